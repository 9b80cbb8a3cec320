"""Canaries: what a person writes, their Telegram id and the bot token reach no file and no
log line. Feature tests add their own writing paths through `write_everywhere`."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.features.crisis.held import HeldTexts
from bot.storage.database import Database
from tests.helpers.bot import TOKEN, BotUnderTest
from tests.helpers.canaries import (
    CANARY,
    PERSON,
    id_encodings,
    printed_forms,
    write_everywhere,
)


def files_of(data_dir: Path) -> list[Path]:
    return [p for p in data_dir.iterdir() if p.is_file()]


async def test_canary_is_nowhere_on_disk_or_in_logs(
    bot: BotUnderTest, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    await write_everywhere(bot)
    people = bot.services.people
    person = await people.load(PERSON)
    assert person is not None  # the person really is stored
    # The crisis answer waits for [Keep] sealed in the profile: on disk, but never readable.
    assert any(CANARY in held.text for held in person.profile.part(HeldTexts).texts)
    # ... and so are the answers, sealed: the canary is in them, just not readable on disk.
    exports = [
        m.document
        for m in bot.emu.messages_to(PERSON)
        if m.document is not None and "dated" not in m.document.filename  # not the record's
    ]
    assert exports and CANARY.encode() in exports[-1].data
    for words in (b"trigger ", b"draft ", b"reasons "):  # the urge flow's own section
        assert words + CANARY.encode() in exports[-1].data, words
    urges = await bot.services.db.fetch_one("SELECT COUNT(*) AS n FROM urges")
    assert urges is not None and urges["n"] == 1
    journal = await bot.services.db.fetch_one("SELECT COUNT(*) AS n FROM journal")
    assert journal is not None and journal["n"] == 1
    files = await bot.services.db.fetch_one("SELECT COUNT(*) AS n FROM record_files")
    assert files is not None and files["n"] == 1  # the photo is stored, sealed

    data_dir = bot.settings.data_dir
    await bot.stop()  # close connections; the WAL files stay as they were
    files = files_of(data_dir)
    names = {p.name for p in files}
    assert {"steady.sqlite3", "keys.sqlite3"} <= names
    for path in files:
        blob = path.read_bytes()
        assert CANARY.encode() not in blob, path.name
        assert TOKEN.encode() not in blob, path.name
        for encoded in id_encodings(PERSON):
            assert encoded not in blob, (path.name, encoded)

    logged = caplog.text
    assert caplog.records, "the test must have captured the bot's logs"
    assert CANARY not in logged
    assert TOKEN not in logged
    assert TOKEN.split(":")[1] not in logged
    assert str(PERSON) not in logged


async def sealed_material(*dbs: Database) -> list[bytes]:
    """Every stored blob: ciphertexts, wrapped data keys, the wrapped pseudonym key."""
    blobs: list[bytes] = []
    for db in dbs:
        tables = await db.fetch_all("SELECT name FROM sqlite_master WHERE type = 'table'")
        for table in tables:
            rows = await db.fetch_all(f"SELECT * FROM {table['name']}")
            blobs += [bytes(v) for row in rows for v in row if isinstance(v, bytes) and len(v) > 16]
    return blobs


async def test_no_key_material_or_ciphertext_in_debug_logs(
    bot: BotUnderTest, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    await write_everywhere(bot)
    material = await sealed_material(bot.services.db, bot.services.keys.db)
    assert len(material) > 5, "the session must have stored sealed rows and wrapped keys"
    await bot.send("/forget", user=PERSON)
    confirm = await bot.next(PERSON, containing="Delete everything")
    await bot.press(confirm, data="forget:yes", user=PERSON)
    await bot.settle()
    assert await bot.services.people.load(PERSON) is None
    for table in ("record_entries", "record_parts", "record_files"):  # the record goes too
        row = await bot.services.db.fetch_one(f"SELECT COUNT(*) AS n FROM {table}")
        assert row is not None and row["n"] == 0, table
    await bot.stop()
    logged = caplog.text
    assert logged
    for blob in material:
        for form in printed_forms(blob):
            assert form not in logged, form


async def test_wal_is_checked_too(bot: BotUnderTest) -> None:
    await write_everywhere(bot)
    wal = bot.settings.data_dir / "steady.sqlite3-wal"
    # While running, recent writes sit in the WAL: it must exist and be clean.
    assert wal.exists() and wal.stat().st_size > 0
    assert CANARY.encode() not in wal.read_bytes()
