"""The urge flow's stored side (bot/features/urge/service.py over bot/storage/urge.py, a real SQLite
file): sealing, the once-only claims of due check-backs and offers, the offer-back time,
no-contact marks, and the export section."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import pytest

from bot.core.clock import ManualClock
from bot.crypto import MasterKey, PersonCipher
from bot.features.export import render as export
from bot.features.progress.no_contact import MarkKind, State
from bot.features.urge.export_parts import export_parts
from bot.features.urge.service import UrgeService, offer_back_at
from bot.features.worksheets.service import WorksheetService
from bot.people.profile import Profile
from bot.people.service import Person
from bot.storage.database import Database
from bot.storage.keystore import KeyStore
from bot.storage.schema import MIGRATIONS
from bot.storage.urge import UrgeStore
from bot.storage.worksheets import WorksheetStore
from tests.helpers.bot import shared_content

LONDON = ZoneInfo("Europe/London")
START = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def tx(key: str, **values: object) -> str:
    return shared_content().texts(key, **values)


@pytest.fixture
async def keys(tmp_path: Path) -> AsyncIterator[KeyStore]:
    store = await KeyStore.open(tmp_path / "keys.sqlite3", MasterKey(os.urandom(32)))
    yield store
    await store.close()


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(tmp_path / "data.sqlite3", MIGRATIONS)
    try:
        yield database
    finally:
        await database.close()


async def make_person(db: Database, person_id: str = "r" + "1" * 32) -> Person:
    await db.execute(
        "INSERT INTO people (person_id, chat_enc, profile_enc, created_at, updated_at)"
        " VALUES (?, x'00', x'00', 0, 0)",
        (person_id,),
    )
    profile = Profile(timezone="Europe/London")
    return Person(person_id, 1, profile, "", True, PersonCipher(person_id, os.urandom(32)))


def service(db: Database, clock: ManualClock, keys: KeyStore) -> UrgeService:
    worksheets = WorksheetService(WorksheetStore(db), shared_content().worksheets, clock, keys)
    # No people service or texts: nothing here loads a person by id or writes the check-in
    # line; only the key store is asked (a deleted draft's anchor).
    people = SimpleNamespace(keys=keys)
    return UrgeService(UrgeStore(db), worksheets, people, clock)  # type: ignore[arg-type]


async def test_an_urge_is_sealed_and_its_check_back_is_claimed_once(
    db: Database, keys: KeyStore
) -> None:
    clock = ManualClock(START)
    urges = service(db, clock, keys)
    person = await make_person(db)
    urge = await urges.start(person, 8)
    await urges.set_trigger(person, urge.urge_id, "other", "  the song on the radio  ")
    row = await db.fetch_one("SELECT data_enc FROM urges")
    assert row is not None and b"radio" not in bytes(row["data_enc"])
    assert (await urges.get(person, urge.urge_id)) == type(urge)(
        urge.urge_id,
        START,
        8,
        "other",
        "the song on the radio",
        None,
        START + timedelta(minutes=20),
    )
    clock.advance(timedelta(minutes=19, seconds=59))
    assert await urges.claim_follow_ups() == []
    clock.advance(timedelta(seconds=1))
    claimed = await urges.claim_follow_ups()
    assert [(d.item_id, fresh) for d, fresh in claimed] == [(urge.urge_id, True)]
    assert await urges.claim_follow_ups() == []  # once
    assert await urges.answer_follow_up(person, urge.urge_id, 3) == (8, 3)
    assert await urges.answer_follow_up(person, urge.urge_id, 2) is None
    assert (await urges.urges(person, START))[0].event().eased


async def test_a_check_back_hours_late_is_dropped_not_sent(db: Database, keys: KeyStore) -> None:
    clock = ManualClock(START)
    urges = service(db, clock, keys)
    person = await make_person(db)
    await urges.start(person, 6)
    clock.advance(timedelta(hours=3))  # the bot was down
    claimed = await urges.claim_follow_ups()
    assert [fresh for _, fresh in claimed] == [False]
    assert await urges.claim_follow_ups() == []


async def test_the_promise_moves_the_check_back_to_twenty_minutes_from_now(
    db: Database, keys: KeyStore
) -> None:
    clock = ManualClock(START)
    urges = service(db, clock, keys)
    person = await make_person(db)
    urge = await urges.start(person, 6)
    clock.advance(timedelta(minutes=15))
    assert await urges.promise_follow_up(person, urge.urge_id)
    clock.advance(timedelta(minutes=10))
    assert await urges.claim_follow_ups() == []
    clock.advance(timedelta(minutes=10))
    assert len(await urges.claim_follow_ups()) == 1


@pytest.mark.parametrize(
    ("written", "offered"),
    [
        (
            datetime(2026, 12, 1, 14, 30, tzinfo=LONDON),
            datetime(2026, 12, 2, 14, 30, tzinfo=LONDON),
        ),
        (datetime(2026, 12, 1, 2, 10, tzinfo=LONDON), datetime(2026, 12, 2, 9, 0, tzinfo=LONDON)),
        (datetime(2026, 12, 1, 23, 50, tzinfo=LONDON), datetime(2026, 12, 2, 21, 0, tzinfo=LONDON)),
        # The clocks go forward on 2027-03-28: the next day's 10:00 is still 10:00 local.
        (datetime(2027, 3, 27, 10, 0, tzinfo=LONDON), datetime(2027, 3, 28, 10, 0, tzinfo=LONDON)),
    ],
)
def test_the_draft_comes_back_the_next_day_in_daytime(written: datetime, offered: datetime) -> None:
    assert offer_back_at(written, LONDON) == offered


async def test_a_held_draft_is_offered_once_or_postponed(db: Database, keys: KeyStore) -> None:
    clock = ManualClock(START)
    urges = service(db, clock, keys)
    person = await make_person(db)
    draft = await urges.hold_draft(person, "please call me")
    row = await db.fetch_one("SELECT text_enc FROM urge_drafts")
    assert row is not None and b"please" not in bytes(row["text_enc"])
    clock.advance(timedelta(days=1))
    (due,) = await urges.due_drafts()
    assert await urges.claim_offer(due, postpone=True)  # paused: tomorrow instead
    assert await urges.due_drafts() == []
    clock.advance(timedelta(days=1))
    (due,) = await urges.due_drafts()
    assert await urges.claim_offer(due, postpone=False)
    assert not await urges.claim_offer(due, postpone=False)  # once
    assert (await urges.draft(person, draft.draft_id)) == draft
    assert await urges.delete_draft(person, draft.draft_id)
    assert await urges.drafts(person) == []


async def test_no_contact_marks_and_stale_buttons(db: Database, keys: KeyStore) -> None:
    clock = ManualClock(START)
    urges = service(db, clock, keys)
    person = await make_person(db)
    assert (await urges.count(person)).state is State.OFF
    assert await urges.mark(person, MarkKind.PAUSE) is None  # nothing to pause
    started = await urges.mark(person, MarkKind.START)
    assert started is not None and started.day == 1
    clock.advance(timedelta(days=4))
    count = await urges.count(person)
    assert (count.state, count.day) == (State.RUNNING, 5)
    reset = await urges.mark(person, MarkKind.RESET)
    assert reset is not None and reset.day == 1 and len(reset.stretches) == 2


async def test_the_export_has_its_own_sections(db: Database, keys: KeyStore) -> None:
    clock = ManualClock(START)
    urges = service(db, clock, keys)
    person = await make_person(db)
    urge = await urges.start(person, 9)
    await urges.set_trigger(person, urge.urge_id, "loneliness")
    await urges.answer_follow_up(person, urge.urge_id, 4)
    await urges.hold_draft(person, "# not a heading\nsecond line")
    await urges.set_reasons(person, "I can breathe here.")
    parts = await export_parts(urges, person, tx)
    assert [p.title for p in parts] == [
        "Hard moments",
        "Messages held here, never sent",
        "My reasons",
    ]
    doc = export.ExportDocument("Notes", "", (), "Journal", (), "", tuple(parts))
    text = export.build_markdown(doc)
    assert "**Strength 9, then 4 at the check-back**" in text
    assert "> What set it off: Loneliness" in text
    assert "> # not a heading\n> second line" in text  # quoted: it cannot break the file
    assert "> I can breathe here." in text
    assert "I can breathe here." in "".join(line.text for line in export.pdf_lines(doc))
