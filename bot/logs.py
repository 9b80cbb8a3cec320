"""Logging set-up that keeps people's words, key material and the bot token out of every log
line, at every level.

Third-party libraries log what they handle: PTB prints whole updates and request
parameters (and, on a parse error, the raw batch at CRITICAL), httpx prints request URLs
(which contain the token), aiosqlite prints every SQL statement with its parameters
(wrapped keys, ciphertexts), fontTools lists the glyphs a PDF export uses at INFO (through
the shipped font they spell the text). A list of the noisy ones cannot keep up with what
the next library logs, so the rule is an allow-list: only our own loggers (`OUR_LOGGERS`)
speak as BOT_LOG_LEVEL says. For every other logger, on our handler:

- nothing below WARNING passes, whatever the level of the root or of that logger;
- a record at WARNING or above that carries values (format arguments, an exception's text
  or traceback) keeps only its constant template and the exception's class.

The loggers known to be noisy are also pinned at WARNING, so their records are not even
made. Our own log lines carry update ids, event names and exception types.
"""

from __future__ import annotations

import logging
import sys

# The only loggers whose lines pass as written, at any level: the bot's own.
OUR_LOGGERS = frozenset({"bot", "__main__"})
# Libraries known to log what they see (message text, keys, the token, a PDF's glyphs):
# pinned at WARNING so their records are not made at all. The allow-list above holds
# for any library missing from here.
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
    "fontTools",
    "fpdf",
    "PIL",
    "matplotlib",
)
WITHHELD = " [values withheld]"


def is_ours(name: str) -> bool:
    return name.split(".", 1)[0] in OUR_LOGGERS


class WithholdThirdPartyValues(logging.Filter):
    """Drop another library's record below WARNING; reduce the rest to their template and
    exception class. Ours pass as they are."""

    def filter(self, record: logging.LogRecord) -> bool:
        if is_ours(record.name):
            return True
        if record.levelno < logging.WARNING:
            return False
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
