"""Writing a record entry, without Telegram: real SQLite and real encryption, no bot."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.core.clock import ManualClock
from bot.crypto import MasterKey
from bot.features.record.dates import DAY, MINUTE
from bot.features.record.flow import (
    Ask,
    DayPicker,
    Expired,
    Gone,
    HourPicker,
    KeptAsWhat,
    PartSaved,
    RecordFlow,
    Unclear,
    WhenSet,
)
from bot.features.record.service import FILES, STEPS, WHEN, RecordService
from bot.features.record.state import RecordState
from bot.people.service import PeopleService, Person
from bot.storage.database import Database
from bot.storage.keystore import KeyStore
from bot.storage.people import PeopleStore
from bot.storage.record import RecordStore
from bot.storage.schema import MIGRATIONS

START = dt.datetime(2025, 12, 3, 14, 30, tzinfo=dt.UTC)  # a Wednesday; London is on UTC
LANGUAGES = ("en",)


@dataclass
class World:
    flow: RecordFlow
    record: RecordService
    person: Person
    entry: str

    async def at(self, step: str) -> RecordState:
        state = RecordState(self.entry, step, 10)
        await self.record.move(self.person, state)
        return state

    async def typed(self, step: str, text: str, *, crisis: bool = False) -> object:
        state = await self.at(step)
        return await self.flow.typed(
            self.person, state, 11, text, languages=LANGUAGES, crisis=crisis
        )


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    clock = ManualClock(START)
    keys = await KeyStore.open(tmp_path / "keys.sqlite3", MasterKey(os.urandom(32)))
    db = await Database.open(tmp_path / "data.sqlite3", MIGRATIONS)
    people = PeopleService(PeopleStore(db), keys, await keys.pseudonym_key(), clock)
    record = RecordService(RecordStore(db), people, clock)
    person = await people.create(1, 1, "")
    person.profile.timezone = "Europe/London"
    await people.save(person)
    try:
        yield World(RecordFlow(record), record, person, await record.begin(person))
    finally:
        await db.close()
        await keys.close()


def local(world: World, ts: int | None) -> dt.datetime:
    if ts is None:
        raise AssertionError("no time was kept")
    return dt.datetime.fromtimestamp(ts, dt.UTC)


# --- typed at "when" ------------------------------------------------------------------


async def test_a_typed_day_is_kept_as_when_it_happened(world: World) -> None:
    outcome = await world.typed(WHEN, "yesterday at 9pm")
    assert isinstance(outcome, WhenSet) and outcome.entry is not None
    assert local(world, outcome.entry.happened_at) == dt.datetime(2025, 12, 2, 21, 0, tzinfo=dt.UTC)


async def test_a_day_in_the_future_or_no_day_asks_again(world: World) -> None:
    assert await world.typed(WHEN, "5 December 2025") == Unclear("record.when_future")
    assert await world.typed(WHEN, "the blue one") == Unclear("record.when_unclear")
    entry = await world.record.read(world.person, world.entry)
    assert entry is not None and entry.happened_at is None


async def test_a_time_later_today_is_taken_as_now(world: World) -> None:
    outcome = await world.typed(WHEN, "today at 23:00")
    assert isinstance(outcome, WhenSet) and outcome.entry is not None
    assert local(world, outcome.entry.happened_at) == START.replace(second=0)
    assert outcome.entry.precision == MINUTE


async def test_crisis_words_at_when_are_kept_as_what_happened(world: World) -> None:
    outcome = await world.typed(WHEN, "he is outside the door, help", crisis=True)
    assert outcome == KeptAsWhat()
    entry = await world.record.read(world.person, world.entry)
    assert entry is not None
    assert [p.text for p in entry.answers["what"]] == ["he is outside the door, help"]


async def test_parts_of_a_step_are_counted(world: World) -> None:
    assert await world.typed("said", "that I imagine things") == PartSaved("said", 1)
    assert await world.typed("said", "and then he laughed") == PartSaved("said", 2)


async def test_text_for_an_entry_that_left_leaves_the_step(world: World) -> None:
    state = await world.at("what")
    await world.record.delete(world.person, world.entry)
    assert (
        await world.flow.typed(world.person, state, 11, "x", languages=LANGUAGES, crisis=False)
        == Gone()
    )
    assert world.person.state == ""


# --- the "when" buttons ---------------------------------------------------------------


async def test_when_buttons_only_from_the_when_step(world: World) -> None:
    await world.at("what")
    assert await world.flow.when_pressed(world.person, world.entry, "now", 0) == Expired()


async def test_now_and_a_day_without_time(world: World) -> None:
    await world.at(WHEN)
    now = await world.flow.when_pressed(world.person, world.entry, "now", 0)
    assert isinstance(now, WhenSet) and now.entry is not None
    assert now.entry.precision == MINUTE
    await world.at(WHEN)
    day = await world.flow.when_pressed(world.person, world.entry, "day", 1003)
    assert isinstance(day, WhenSet) and day.entry is not None
    assert day.entry.precision == DAY
    assert local(world, day.entry.happened_at).date() == dt.date(2025, 11, 30)


async def test_an_hour_that_cannot_be_changes_nothing(world: World) -> None:
    await world.at(WHEN)
    assert await world.flow.when_pressed(world.person, world.entry, "hour", 24) is None
    assert await world.flow.when_pressed(world.person, world.entry, "hour", 15) is None  # later
    earlier = await world.flow.when_pressed(world.person, world.entry, "hour", 109)
    assert isinstance(earlier, WhenSet) and earlier.entry is not None
    assert local(world, earlier.entry.happened_at) == dt.datetime(2025, 12, 2, 9, tzinfo=dt.UTC)


async def test_the_pickers_go_no_further_back_than_their_limits(world: World) -> None:
    await world.at(WHEN)
    today = dt.date(2025, 12, 3)
    assert await world.flow.when_pressed(world.person, world.entry, "days", 99_999) == DayPicker(
        today, 520
    )
    assert await world.flow.when_pressed(world.person, world.entry, "today", 0) == HourPicker(
        today, 0, 14
    )
    far = await world.flow.when_pressed(world.person, world.entry, "day", 999)
    assert far == HourPicker(today - dt.timedelta(days=999), 999, 23)


# --- which step a button leads to -----------------------------------------------------


async def test_next_and_skip_only_from_the_step_on_screen(world: World) -> None:
    await world.at("what")
    what = STEPS.index("what")
    assert world.flow.step_pressed(world.person, world.entry, what) == Ask("said")
    assert world.flow.step_pressed(world.person, world.entry, what + 1) == Expired()
    assert world.flow.step_pressed(world.person, world.entry, 99) == Expired()
    assert world.flow.step_pressed(world.person, "0" * 24, what) == Expired()


async def test_done_finishes_only_from_the_files_step(world: World) -> None:
    await world.at("hurt")
    assert world.flow.done_pressed(world.person, world.entry) == Expired()
    await world.at(FILES)
    assert world.flow.done_pressed(world.person, world.entry) == Ask(None)


async def test_resume_goes_to_the_step_on_screen_and_not_into_a_finished_entry(
    world: World,
) -> None:
    await world.at("body")
    assert await world.flow.resume(world.person, world.entry) == Ask("body")
    await world.record.finish(world.person, world.entry)
    assert await world.flow.resume(world.person, world.entry) == Expired()
