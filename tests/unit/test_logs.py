"""Third-party log records keep only their template and exception class, at every level."""

from __future__ import annotations

import io
import logging

from bot.logs import log_handler

CANARY = "CANARY-log-heron-7781"


def emit(name: str, level: int, *args: object, exc: Exception | None = None) -> str:
    buffer = io.StringIO()
    logger = logging.getLogger(name)
    handler = log_handler(buffer)
    logger.addHandler(handler)
    old_level, old_propagate = logger.level, logger.propagate
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    try:
        if exc is None:
            logger.log(level, "Received data was %r", *args)
        else:
            logger.log(level, "Error while parsing updates! %r", *args, exc_info=exc)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
        logger.propagate = old_propagate
    return buffer.getvalue()


def test_a_telegram_critical_with_the_raw_batch_keeps_no_payload() -> None:
    text = emit("telegram.Bot", logging.CRITICAL, [{"message": {"text": CANARY}}])
    assert CANARY not in text
    assert "Received data was %r [values withheld]" in text


def test_an_exception_keeps_only_its_class() -> None:
    text = emit("telegram.ext.Updater", logging.ERROR, CANARY, exc=ValueError(CANARY))
    assert CANARY not in text and "Traceback" not in text
    assert "(ValueError)" in text


def test_sql_parameters_are_withheld() -> None:
    text = emit("aiosqlite", logging.DEBUG, (b"\x01wrapped-key", CANARY))
    assert CANARY not in text and "wrapped-key" not in text


def test_our_own_lines_pass_unchanged() -> None:
    text = emit("bot.transport.intake", logging.WARNING, 42)
    assert "Received data was 42" in text
