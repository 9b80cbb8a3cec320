"""Steady: a discreet Telegram companion for people leaving or recovering from abuse."""

import os

# Opt into PTB's coming behaviour (durations such as RetryAfter.retry_after as timedelta)
# now, so our code is written against it and PTB's deprecation warning stays quiet.
os.environ.setdefault("PTB_TIMEDELTA", "true")
