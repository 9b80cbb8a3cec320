"""Logging set-up that keeps people's words and the bot token out of every log line.

PTB's `telegram` loggers print whole updates and request parameters at DEBUG, and httpx
prints request URLs (which contain the token) at INFO, so those stay at WARNING whatever
BOT_LOG_LEVEL says. Our own log lines carry update ids, event names and exception types.
"""

from __future__ import annotations

import logging
import sys

# Third-party loggers that would leak message text or the token below WARNING.
QUIET_LOGGERS = ("httpx", "httpcore", "telegram", "apscheduler", "aiohttp.access", "hpack")


def configure_logging(level: int, *, stream: object = None) -> None:
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)  # type: ignore[arg-type]
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    pin_noisy_loggers()


def pin_noisy_loggers() -> None:
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
