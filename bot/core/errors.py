"""The one base of every error the bot raises on purpose, so a caller (the CLI, the error
handler, a test) can tell "Steady refused" from a bug in a library or in Python. Each
error stays next to the code that raises it; only the base is here, at the bottom, so any
layer may use it. `tests/unit/core/test_errors.py` holds every error class of bot/ to it."""

from __future__ import annotations


class SteadyError(Exception):
    """Something Steady detected and refused: bad content or configuration, unreadable or
    rolled-back data, a wrong key, a send held back while a chat is in cover."""
