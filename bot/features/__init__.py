"""One package per feature: its handlers (PTB adapters, in `handlers.py` or `handlers/`),
its service and flow (logic without Telegram), its views (pure text and buttons)."""
