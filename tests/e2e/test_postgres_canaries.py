"""Every feature on PostgreSQL, as a replica runs it (webhook mode, per-person locks): the
privacy canaries read back every table of both databases, /export carries each feature's
words, and /forget leaves nothing of the person in any table or in the key store.

tests/e2e/test_canaries.py does the same on SQLite by reading the files themselves; here the
server's files are not ours to read, so the test reads what a stolen dump would show."""

from __future__ import annotations

import logging

import pytest

from bot.storage.identities import person_tables
from tests.helpers.bot import TOKEN, BotUnderTest
from tests.helpers.canaries import (
    CANARY,
    PERSON,
    id_encodings,
    printed_forms,
    write_everywhere,
)
from tests.helpers.postgres_canaries import (
    as_bytes,
    every_value,
)


async def test_every_feature_on_postgres_keeps_nothing_readable_and_forgets_everything(
    pg_bot: BotUnderTest, caplog: pytest.LogCaptureFixture
) -> None:
    bot = pg_bot
    caplog.set_level(logging.DEBUG)
    await write_everywhere(bot)
    data, keys = bot.services.db, bot.services.keys.db

    # Each feature wrote its rows on PostgreSQL.
    for table in ("urges", "urge_drafts", "urge_notes", "moods", "journal", "answer_parts"):
        row = await data.fetch_one(f"SELECT COUNT(*) AS n FROM {table}")
        assert row is not None and row["n"] >= 1, table
    for table in ("record_entries", "record_parts", "record_files", "panic_words"):
        row = await data.fetch_one(f"SELECT COUNT(*) AS n FROM {table}")
        assert row is not None and row["n"] >= 1, table
    versions = await keys.fetch_one("SELECT COUNT(*) AS n FROM row_versions")
    assert versions is not None and versions["n"] >= 2  # the edited journal entry and part
    seen = await data.fetch_one("SELECT COUNT(*) AS n FROM seen_updates")
    assert seen is not None and seen["n"] > 10  # every update came by webhook

    # Nothing a person wrote, their Telegram id or the token is in any row of either.
    values = await every_value(data) + await every_value(keys)
    assert len(values) > 100
    for table, value in values:
        blob = as_bytes(value)
        assert CANARY.encode() not in blob, table
        assert TOKEN.encode() not in blob, table
        for encoded in id_encodings(PERSON):
            assert encoded not in blob, (table, encoded)
    sealed = [v for _, v in values if isinstance(v, bytes) and len(v) > 16]
    assert len(sealed) > 5

    # /export carries every feature's words (built in memory, sent, never stored).
    before = len(bot.emu.messages_to(PERSON))
    await bot.send("/export", user=PERSON)
    await bot.next(PERSON, predicate=lambda m: m.document is not None)
    await bot.settle()
    exported = b"".join(
        m.document.data for m in bot.emu.messages_to(PERSON)[before:] if m.document is not None
    )
    for words in (b"first part, edited ", b"trigger ", b"draft ", b"reasons "):
        assert words + CANARY.encode() in exported, words

    # /forget: no row of theirs in any person table, nothing of them in the key store.
    tables = await person_tables(data)
    assert {"urges", "record_files", "panic_words", "self_removals", "moods"} <= set(tables)
    await bot.send("/forget", user=PERSON)
    confirm = await bot.next(PERSON, containing="Delete everything")
    await bot.press(confirm, data="forget:yes", user=PERSON)
    await bot.settle()
    assert await bot.services.people.load(PERSON) is None
    for table in tables:
        row = await data.fetch_one(f"SELECT COUNT(*) AS n FROM {table}")
        assert row is not None and row["n"] == 0, table
    for table in ("identities", "data_keys", "data_keys_next", "row_versions"):
        row = await keys.fetch_one(f"SELECT COUNT(*) AS n FROM {table}")
        assert row is not None and row["n"] == 0, table

    logged = caplog.text
    assert caplog.records
    for secret in (CANARY, TOKEN, TOKEN.split(":")[1], str(PERSON)):
        assert secret not in logged
    for blob in sealed:
        for form in printed_forms(as_bytes(blob)):
            assert form not in logged, form
