"""A full disk while serving (issue 27, minor): the person is told, kindly, that what they
just sent was not kept; the operator gets one line (no traceback); nothing the bot said it
kept is lost, and once there is room the same words are kept.

The fault is injected where the bytes would go: every write statement the data database
runs fails as SQLite fails on a full disk (reads still work, as they do on a real one)."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from typing import Any

import aiosqlite
import pytest

from tests.conftest import BotUnderTest, buttons_of

WORDS = "full-disk-canary because I matter"
_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


@pytest.fixture
def disk() -> Iterator[dict[str, bool]]:
    """`disk["full"] = True` makes every write fail with SQLite's own error."""
    state = {"full": False}
    originals = {n: getattr(aiosqlite.Connection, n) for n in ("execute", "execute_fetchall")}

    def failing(name: str) -> Any:
        real = originals[name]

        def call(self: aiosqlite.Connection, sql: str, *args: Any, **kwargs: Any) -> Any:
            if state["full"] and sql.lstrip().upper().startswith(_WRITES):
                raise sqlite3.OperationalError("database or disk is full")
            return real(self, sql, *args, **kwargs)

        return call

    for name in originals:
        setattr(aiosqlite.Connection, name, failing(name))
    try:
        yield state
    finally:
        for name, real in originals.items():
            setattr(aiosqlite.Connection, name, real)


async def test_a_full_disk_is_one_line_and_a_kind_reply_and_nothing_said_kept_is_lost(
    bot: BotUnderTest, disk: dict[str, bool], caplog: pytest.LogCaptureFixture
) -> None:
    await bot.onboard()
    await bot.send("/reasons")
    none = await bot.next(containing="haven't written your reasons")
    await bot.press(none, data=buttons_of(none)[0][1])
    await bot.next(containing="Write your reasons")
    await bot.settle()
    caplog.clear()
    caplog.set_level(logging.INFO)
    disk["full"] = True
    await bot.send(WORDS)
    reply = await bot.next()
    await bot.settle()
    assert "storage is full" in (reply.text or "") and "It isn't saved" in (reply.text or "")
    assert "try again in a minute" not in (reply.text or "")
    assert not any("Kept, encrypted" in (m.text or "") for m in bot.unread())
    failures = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(failures) == 1, [r.getMessage() for r in failures]
    assert "no space left" in failures[0].getMessage()
    for record in caplog.records:
        if record.levelno >= logging.INFO:
            assert record.exc_info is None and record.exc_text is None, record.getMessage()
            assert "Traceback" not in record.getMessage()
            assert "canary" not in record.getMessage()
    # Room again: the same words, sent again, are kept and shown back whole.
    disk["full"] = False
    await bot.send("/reasons")
    still_none = await bot.next(containing="haven't written your reasons")
    await bot.press(still_none, data=buttons_of(still_none)[0][1])
    await bot.next(containing="Write your reasons")
    await bot.send(WORDS)
    await bot.next(containing="Kept, encrypted")
    await bot.send("/reasons")
    shown = await bot.next(containing="Your reasons")
    assert WORDS in (shown.text or "")
