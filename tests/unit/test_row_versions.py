"""Rollback refused for rows that are rewritten or deleted: an older copy of a journal entry
or of an answer part put back (from a data backup) is refused, and so is a deleted part put
back; rows written before versions existed keep opening."""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.content.worksheet_model import Question, Worksheet
from bot.core.clock import ManualClock
from bot.crypto import MasterKey
from bot.features.checkins.journal import JournalService
from bot.features.worksheets.service import WorksheetService
from bot.people.service import PeopleService, Person, RolledBackError
from bot.storage.database import Database
from bot.storage.deliveries import DeliveryStore
from bot.storage.journal import JournalStore
from bot.storage.keystore import KeyStore
from bot.storage.people import PeopleStore
from bot.storage.schema import MIGRATIONS
from bot.storage.worksheets import WorksheetStore
from tests.conftest import shared_content

CANARY = "ROLLBACK-CANARY-7"


@dataclass
class World:
    tmp: Path
    master: MasterKey
    keys: KeyStore
    db: Database
    journal: JournalService
    sheets: WorksheetService
    person: Person
    ws: Worksheet
    question: Question

    async def reopen(self) -> None:
        """A restart: the anchors come back from the key store file, nothing from memory."""
        await self.keys.close()
        await self.db.close()
        await self.open(self.tmp, self.master)

    async def open(self, tmp: Path, master: MasterKey) -> None:
        clock = ManualClock(datetime(2026, 12, 1, 9, tzinfo=UTC))
        self.keys = await KeyStore.open(tmp / "keys.sqlite3", master)
        self.db = await Database.open(tmp / "data.sqlite3", MIGRATIONS)
        people = PeopleService(
            PeopleStore(self.db), self.keys, await self.keys.pseudonym_key(), clock
        )
        self.journal = JournalService(
            JournalStore(self.db), DeliveryStore(self.db), clock, self.keys
        )
        self.sheets = WorksheetService(
            WorksheetStore(self.db), shared_content().worksheets, clock, self.keys
        )
        person = await people.load(1) or await people.create(1, 1, "")
        self.person = person


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    ws = next(iter(shared_content().worksheets.values()))
    w = World.__new__(World)
    w.tmp, w.master, w.ws, w.question = tmp_path, MasterKey(os.urandom(32)), ws, ws.questions[0]
    await w.open(tmp_path, w.master)
    try:
        yield w
    finally:
        await w.keys.close()
        await w.db.close()


async def snapshot(db: Database, table: str) -> list[tuple[object, ...]]:
    return [tuple(r) for r in await db.fetch_all(f"SELECT * FROM {table}")]


async def put_back(db: Database, table: str, rows: list[tuple[object, ...]]) -> None:
    """What restoring an older copy of the data database does to these rows."""
    await db.execute(f"DELETE FROM {table}")
    for row in rows:
        marks = ",".join("?" * len(row))
        await db.execute(f"INSERT INTO {table} VALUES ({marks})", row)


async def test_a_rolled_back_journal_edit_is_refused_and_logged(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    await world.journal.add(world.person, None, 10, f"first {CANARY}")
    old = await snapshot(world.db, "journal")
    assert await world.journal.edit(world.person, 10, f"edited {CANARY}")
    await put_back(world.db, "journal", old)
    await world.reopen()
    caplog.set_level(logging.DEBUG)
    with pytest.raises(RolledBackError):
        await world.journal.page(world.person, 0, 10)
    with pytest.raises(RolledBackError):  # the export refuses it too
        await world.journal.all(world.person)
    assert "refused a rolled-back journal row (version 0, newest written 1)" in caplog.text
    assert CANARY not in caplog.text


async def test_a_rolled_back_answer_edit_is_refused(world: World) -> None:
    await world.sheets.save_part(world.person, world.ws, world.question, 20, f"a {CANARY}")
    old = await snapshot(world.db, "answer_parts")
    assert await world.sheets.update_part(world.person, 20, f"b {CANARY}")
    assert await world.sheets.update_part(world.person, 20, f"c {CANARY}")
    newer = await snapshot(world.db, "answer_parts")
    await put_back(world.db, "answer_parts", old)
    await world.reopen()
    with pytest.raises(RolledBackError):
        await world.sheets.answers(world.person, world.ws.id)
    # The newest copy still opens (and a copy whose version was edited no longer does).
    await put_back(world.db, "answer_parts", newer)
    answer = await world.sheets.answer(world.person, world.ws, world.question)
    assert answer.parts == (f"c {CANARY}",)
    await world.db.execute("UPDATE answer_parts SET version = version + 1")
    # A part that does not open is left out and noted (offered for erasure), not fatal.
    assert await world.sheets.answers(world.person, world.ws.id) == {}
    assert world.sheets.take_damaged(world.person) == [20]


@pytest.mark.parametrize("how", ["clear_answer", "delete"])
async def test_a_deleted_answer_put_back_is_refused(world: World, how: str) -> None:
    await world.sheets.save_part(world.person, world.ws, world.question, 30, f"a {CANARY}")
    old = await snapshot(world.db, "answer_parts")
    if how == "clear_answer":
        await world.sheets.clear_answer(world.person, world.ws, world.question)
    else:
        await world.sheets.delete(world.person, world.ws)
    await put_back(world.db, "answer_parts", old)
    await world.reopen()
    with pytest.raises(RolledBackError):
        await world.sheets.answers(world.person, world.ws.id)
    # The same message stored again (an update read twice) opens; the old copy never will.
    await world.db.execute("DELETE FROM answer_parts")
    await world.sheets.save_part(world.person, world.ws, world.question, 30, f"again {CANARY}")
    answer = await world.sheets.answer(world.person, world.ws, world.question)
    assert answer.parts == (f"again {CANARY}",)
    # A new answer to the cleared question (a new message) opens as any other.
    await world.sheets.save_part(world.person, world.ws, world.question, 31, "new")
    answer = await world.sheets.answer(world.person, world.ws, world.question)
    assert answer.parts == (f"again {CANARY}", "new")


async def test_rows_from_before_versions_keep_opening_and_are_then_protected(
    tmp_path: Path,
) -> None:
    """A database at schema 3 (before this change), with an entry and a part in it."""
    master = MasterKey(os.urandom(32))
    ws = next(iter(shared_content().worksheets.values()))
    question = ws.questions[0]
    w = World.__new__(World)
    w.tmp, w.master, w.ws, w.question = tmp_path, master, ws, question
    # The person's key and identity, then the data database rebuilt at schema 3 and
    # written the old way: plain slots, no version column.
    await w.open(tmp_path, master)
    cipher = w.person.cipher
    pid = w.person.person_id
    await w.keys.close()
    await w.db.close()
    (tmp_path / "data.sqlite3").unlink()
    for suffix in ("-wal", "-shm"):
        (tmp_path / f"data.sqlite3{suffix}").unlink(missing_ok=True)
    db = await Database.open(tmp_path / "data.sqlite3", MIGRATIONS[:3])
    await db.execute(
        "INSERT INTO people (person_id, chat_enc, profile_enc, state, created_at, updated_at)"
        " VALUES (?, ?, ?, '', 0, 0)",
        (pid, cipher.seal_text("chat_id", "1"), cipher.seal_text("profile", "{}")),
    )
    await db.execute(
        "INSERT INTO journal (entry_id, person_id, prompt_id, message_id, text_enc,"
        " created_at, updated_at) VALUES ('e1', ?, NULL, 10, ?, 0, 0)",
        (pid, cipher.seal_text("journal:e1", "old entry")),
    )
    await db.execute(
        "INSERT INTO answer_parts (person_id, worksheet_id, question_id, message_id,"
        " text_enc, created_at, updated_at) VALUES (?, ?, ?, 20, ?, 0, 0)",
        (pid, ws.id, question.id, cipher.seal_text(f"answer:{ws.id}:{question.id}:20", "old")),
    )
    await db.close()

    await w.open(tmp_path, master)  # migrates to 8
    try:
        page = await w.journal.page(w.person, 0, 10)
        assert [e.text for e in page.entries] == ["old entry"]
        assert (await w.sheets.answer(w.person, ws, question)).parts == ("old",)
        before = await snapshot(w.db, "journal")
        assert await w.journal.edit(w.person, 10, "edited")
        assert [e.text for e in (await w.journal.page(w.person, 0, 10)).entries] == ["edited"]
        await put_back(w.db, "journal", before)
        with pytest.raises(RolledBackError):
            await w.journal.page(w.person, 0, 10)
    finally:
        await w.keys.close()
        await w.db.close()


async def test_a_journal_entry_undone_then_put_back_is_refused(world: World) -> None:
    entry_id = await world.journal.add(world.person, None, 40, f"not for the journal {CANARY}")
    old = await snapshot(world.db, "journal")
    assert await world.journal.remove(world.person, entry_id)
    await put_back(world.db, "journal", old)
    await world.reopen()
    with pytest.raises(RolledBackError):
        await world.journal.page(world.person, 0, 10)
