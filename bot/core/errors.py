"""The one base of every error the bot raises on purpose, so a caller (the CLI, the error
handler, a test) can tell "Steady refused" from a bug in a library or in Python. Each
error stays next to the code that raises it; only the base is here, at the bottom, so any
layer may use it. `tests/unit/test_errors.py` holds every error class of bot/ to it."""

from __future__ import annotations

import errno
import sqlite3


class SteadyError(Exception):
    """Something Steady detected and refused: bad content or configuration, unreadable or
    rolled-back data, a wrong key, a send held back while a chat is in cover."""


def is_disk_full(exc: BaseException) -> bool:
    """No room to write: ENOSPC anywhere in the chain, SQLite's "database or disk is full",
    PostgreSQL's disk_full (SQLSTATE 53100). The CLI exits 4 for it; a handler tells the
    person that nothing was kept, rather than "try again in a minute"."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno == errno.ENOSPC:
            return True
        if isinstance(current, sqlite3.Error) and "is full" in str(current):
            return True
        if getattr(current, "sqlstate", None) == "53100":
            return True
        current = current.__cause__ or current.__context__
    return False
