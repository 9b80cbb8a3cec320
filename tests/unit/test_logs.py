"""Third-party log records keep only their template and exception class, at every level."""

from __future__ import annotations

import io
import logging

from bot.logs import configure_logging, log_handler

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


def test_a_pdf_export_leaves_no_trace_in_the_log_at_info_or_debug() -> None:
    """fontTools logs the glyphs a PDF uses (at INFO), which give the text back through the
    shipped font; fpdf logs too. Only our own loggers speak below WARNING (issue 27.5)."""
    from bot.features.export.render import build_pdf  # noqa: PLC0415
    from tests.helpers.export import document  # noqa: PLC0415 - only this test builds one

    words = ("他用皮带打我 " + CANARY,)
    for level in (logging.INFO, logging.DEBUG):
        buffer = io.StringIO()
        root = logging.getLogger()
        old_handlers, old_level = list(root.handlers), root.level
        handler = configure_logging(level, stream=buffer)
        try:
            logging.getLogger("bot.services.export").log(level, "an export was built")
            build_pdf(document(1, parts=words))
        finally:
            root.removeHandler(handler)
            for old in old_handlers:
                root.addHandler(old)
            root.setLevel(old_level)
        text = buffer.getvalue()
        assert "an export was built" in text  # our own line at that level passes
        assert CANARY not in text and "皮带" not in text
        for library in ("fontTools", "fpdf", "PIL", "matplotlib"):
            assert f" {library}" not in text, (logging.getLevelName(level), library, text[:400])


def test_a_library_we_never_heard_of_is_quiet_below_warning() -> None:
    for level in (logging.DEBUG, logging.INFO):
        assert emit("somelib.inner", level, CANARY) == ""
    text = emit("somelib.inner", logging.WARNING, CANARY)
    assert CANARY not in text and "[values withheld]" in text
