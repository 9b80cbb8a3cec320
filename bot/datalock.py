"""One process at a time per data dir.

Two bots on one data dir would each send every daily prompt, and `keys rotate` while the bot
runs would leave the running process wrapping new keys with the old master key. An
advisory lock (released by the OS if the process dies, even by kill -9) prevents both.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from bot.config import ConfigError

LOCK_NAME = "steady.lock"


class DataDirLock:
    def __init__(self, data_dir: Path, purpose: str) -> None:
        self.path = data_dir / LOCK_NAME
        self.purpose = purpose
        self._fd: int | None = None

    def acquire(self) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise ConfigError(
                f"another Steady process is using {self.path.parent}; stop it before {self.purpose}"
            ) from None
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def is_held(data_dir: Path) -> bool:
    """True while a Steady process holds the data dir's lock (for a health check: the lock
    goes when the process dies, however it dies)."""
    try:
        fd = os.open(data_dir / LOCK_NAME, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)
