"""Logging set-up that keeps people's words, key material and the bot token out of every log
line, at every level.

Third-party libraries log what they handle: PTB prints whole updates and request
parameters (and, on a parse error, the raw batch at CRITICAL), httpx prints request URLs
(which contain the token), aiosqlite prints every SQL statement with its parameters
(wrapped keys, ciphertexts). Two layers keep that out:

- their loggers are pinned at WARNING whatever BOT_LOG_LEVEL says;
- on our handler, any record of theirs that carries values (format arguments, an
  exception's text or traceback) keeps only its constant template and the exception's
  class, at every level, CRITICAL included.

Our own log lines carry update ids, event names and exception types.
"""

from __future__ import annotations

import logging
import sys

# Loggers (and their children) of libraries that see message text, keys or the token.
QUIET_LOGGERS = (
    "httpx",
    "httpcore",
    "telegram",
    "apscheduler",
    "aiohttp",
    "hpack",
    "aiosqlite",
    "asyncpg",
    "asyncio",
)
WITHHELD = " [values withheld]"


class WithholdThirdPartyValues(logging.Filter):
    """Reduce a third-party record to its template and exception class; ours pass as they are."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.split(".", 1)[0] not in QUIET_LOGGERS:
            return True
        exc = record.exc_info[1] if record.exc_info else None
        if not record.args and exc is None and not record.stack_info:
            return True
        note = WITHHELD if exc is None else f"{WITHHELD} ({type(exc).__name__})"
        # With no args, getMessage() does no %-formatting: the template is printed as is.
        record.msg = f"{record.msg}{note}"
        record.args = ()
        record.exc_info = None
        record.exc_text = None
        record.stack_info = None
        return True


def log_handler(stream: object = None) -> logging.Handler:
    """The handler every log line of the bot goes through (tests attach one too)."""
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)  # type: ignore[arg-type]
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(WithholdThirdPartyValues())
    return handler


def configure_logging(level: int, *, stream: object = None) -> logging.Handler:
    handler = log_handler(stream)
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    pin_noisy_loggers()
    return handler


def pin_noisy_loggers() -> None:
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
