"""A deleted held draft or record entry put back from an older copy of the data database
(issue 27, minor: rows outside the versioned set) is refused like any rolled-back row, on
both engines, and a restart (anchors read back from the key store) keeps refusing it."""

from __future__ import annotations

import os
from datetime import UTC, datetime

import pytest

from bot.core.clock import ManualClock
from bot.crypto import MasterKey
from bot.features.record.service import RecordService
from bot.features.urge.service import UrgeService
from bot.features.worksheets.service import WorksheetService
from bot.people.service import PeopleService, RolledBackError
from bot.storage.backend import Backend, Dialect
from bot.storage.engines import open_data_database
from bot.storage.keystore import KeyStore
from bot.storage.people import PeopleStore
from bot.storage.record import RecordStore
from bot.storage.urge import UrgeStore
from bot.storage.worksheets import WorksheetStore
from tests.conftest import shared_content
from tests.storage.conftest import Targets


async def _snapshot(db: Backend, table: str) -> list[dict[str, object]]:
    return [dict(r) for r in await db.fetch_all(f"SELECT * FROM {table}")]


async def _put_back(db: Backend, table: str, rows: list[dict[str, object]]) -> None:
    for row in rows:
        names = ", ".join(row)
        marks = ", ".join("?" * len(row))
        # An identity column keeps its old value, as a restored file would.
        overriding = " OVERRIDING SYSTEM VALUE" if db.dialect is Dialect.POSTGRES else ""
        await db.execute(
            f"INSERT INTO {table} ({names}){overriding} VALUES ({marks})", tuple(row.values())
        )


async def test_a_deleted_draft_or_record_entry_put_back_is_refused(targets: Targets) -> None:
    master = MasterKey(os.urandom(32))
    clock = ManualClock(datetime(2026, 12, 1, 9, tzinfo=UTC))

    async def services() -> tuple[KeyStore, Backend, PeopleService, UrgeService, RecordService]:
        keys = await KeyStore.open(targets.keys, master)
        db = await open_data_database(targets.data)
        people = PeopleService(PeopleStore(db), keys, await keys.pseudonym_key(), clock)
        sheets = WorksheetService(WorksheetStore(db), shared_content().worksheets, clock, keys)
        urges = UrgeService(UrgeStore(db), sheets, people, clock)
        return keys, db, people, urges, RecordService(RecordStore(db), people, clock)

    keys, db, people, urges, record = await services()
    try:
        person = await people.create(1, 1, "")
        draft = await urges.hold_draft(person, "a message never sent")
        kept = await urges.hold_draft(person, "another, kept")
        entry = await record.begin(person)
        await record.add_text(person, entry, "what", None, "what happened")
        old_drafts = [
            r for r in await _snapshot(db, "urge_drafts") if r["draft_id"] == draft.draft_id
        ]
        old_entries = await _snapshot(db, "record_entries")
        old_parts = await _snapshot(db, "record_parts")
        assert await urges.delete_draft(person, draft.draft_id)
        await record.delete(person, entry)
        await _put_back(db, "urge_drafts", old_drafts)
        await _put_back(db, "record_entries", old_entries)
        await _put_back(db, "record_parts", old_parts)
    finally:
        await db.close()
        await keys.close()

    keys, db, people, urges, record = await services()  # a restart: anchors from the store
    try:
        person = await people.load(1)
        assert person is not None
        with pytest.raises(RolledBackError):
            await urges.draft(person, draft.draft_id)
        with pytest.raises(RolledBackError):
            await urges.drafts(person)
        with pytest.raises(RolledBackError):
            await record.read(person, entry)
        with pytest.raises(RolledBackError):
            await record.everything(person)
        # What was never deleted still opens.
        await db.execute("DELETE FROM urge_drafts WHERE draft_id = ?", (draft.draft_id,))
        assert [d.text for d in await urges.drafts(person)] == [kept.text]
    finally:
        await db.close()
        await keys.close()
