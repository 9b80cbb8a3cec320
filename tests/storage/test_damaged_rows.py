"""One damaged answer part or journal entry (issue 27, minor), on both engines: the rest
opens, the damaged row is noted for the offer to erase it, erasing it removes only that
row (and only while it still does not open), and a copy of it put back is refused."""

from __future__ import annotations

import os
from datetime import UTC, datetime

import pytest

from bot.core.clock import ManualClock
from bot.crypto import MasterKey
from bot.features.checkins.journal import JournalService
from bot.features.worksheets.service import WorksheetService
from bot.people.service import PeopleService, RolledBackError
from bot.storage.deliveries import DeliveryStore
from bot.storage.engines import open_data_database
from bot.storage.journal import JournalStore
from bot.storage.keystore import KeyStore
from bot.storage.people import PeopleStore
from bot.storage.worksheets import WorksheetStore
from tests.conftest import shared_content
from tests.storage.conftest import Targets


def _flip(blob: bytes) -> bytes:
    return blob[:-3] + bytes([blob[-3] ^ 0x5A]) + blob[-2:]


async def test_a_damaged_part_and_entry_leave_the_rest_and_can_be_erased(
    targets: Targets,
) -> None:
    clock = ManualClock(datetime(2026, 12, 1, 9, tzinfo=UTC))
    keys = await KeyStore.open(targets.keys, MasterKey(os.urandom(32)))
    db = await open_data_database(targets.data)
    try:
        people = PeopleService(PeopleStore(db), keys, await keys.pseudonym_key(), clock)
        journal = JournalService(JournalStore(db), DeliveryStore(db), clock, keys)
        sheets = WorksheetService(WorksheetStore(db), shared_content().worksheets, clock, keys)
        person = await people.create(1, 1, "")
        ws = next(iter(shared_content().worksheets.values()))
        question = ws.questions[0]
        await sheets.save_part(person, ws, question, 10, "kept part")
        await sheets.save_part(person, ws, question, 11, "damaged part")
        kept = await journal.add(person, None, 20, "kept entry")
        damaged = await journal.add(person, None, 21, "damaged entry")
        part = await db.fetch_one("SELECT text_enc FROM answer_parts WHERE message_id = 11")
        entry = await db.fetch_one("SELECT text_enc FROM journal WHERE message_id = 21")
        assert part is not None and entry is not None
        await db.execute(
            "UPDATE answer_parts SET text_enc = ? WHERE message_id = 11",
            (_flip(bytes(part["text_enc"])),),
        )
        await db.execute(
            "UPDATE journal SET text_enc = ? WHERE message_id = 21",
            (_flip(bytes(entry["text_enc"])),),
        )

        answers = await sheets.answers(person, ws.id)
        assert answers[question.id].parts == ("kept part",)
        assert [e.text for e in await journal.all(person)] == ["kept entry"]
        assert sheets.take_damaged(person) == [11] and journal.take_damaged(person) == [damaged]
        assert sheets.take_damaged(person) == []  # taken once; noted again when read again

        # Only a row that does not open is erased (an old or forged button erases nothing).
        assert not await sheets.erase_damaged(person, 10)
        assert not await journal.erase_damaged(person, kept)
        assert await sheets.erase_damaged(person, 11)
        assert await journal.erase_damaged(person, damaged)
        assert await sheets.erase_damaged(person, 11)  # gone already: nothing to do
        left = await db.fetch_all("SELECT message_id FROM answer_parts")
        assert [int(r["message_id"]) for r in left] == [10]
        left = await db.fetch_all("SELECT entry_id FROM journal")
        assert [str(r["entry_id"]) for r in left] == [kept]

        # The erased part put back (an older copy of the file) is refused, as any deletion.
        await db.execute(
            "INSERT INTO answer_parts (person_id, worksheet_id, question_id, message_id,"
            " text_enc, created_at, updated_at, version) VALUES (?, ?, ?, 11, ?, 0, 0, 0)",
            (person.person_id, ws.id, question.id, bytes(part["text_enc"])),
        )
        with pytest.raises(RolledBackError):
            await sheets.answers(person, ws.id)
    finally:
        await db.close()
        await keys.close()
