"""What tests share, so no test module imports another: the person's-eye DSL
(`bot.py`), storage targets, and each feature's steps and constants."""
