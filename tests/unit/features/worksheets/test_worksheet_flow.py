"""The worksheet flow's rules, without Telegram: real SQLite and real encryption, no bot."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.content.worksheet_model import Worksheet
from bot.core.clock import ManualClock
from bot.crypto import MasterKey, PersonCipher, random_key
from bot.features.crisis.held import SAFETY_PLAN, HeldDecision, held_texts, take
from bot.features.worksheets.flow import (
    AddedToPrevious,
    Gone,
    HeldBack,
    NotKept,
    Open,
    Opening,
    Reopen,
    Saved,
    WorksheetFlow,
)
from bot.features.worksheets.prefs import WorksheetPrefs
from bot.features.worksheets.service import WorksheetService
from bot.features.worksheets.state import WorksheetState, worksheet_state
from bot.people.ledger import MessageLedger
from bot.people.profile import Profile
from bot.people.service import PeopleService, Person
from bot.storage.database import Database
from bot.storage.keystore import KeyStore
from bot.storage.people import PeopleStore
from bot.storage.schema import MIGRATIONS
from bot.storage.worksheets import WorksheetStore
from tests.helpers.bot import shared_content

START = 1_764_576_000  # 2025-12-01 08:00 UTC


@dataclass
class World:
    flow: WorksheetFlow
    data: WorksheetService
    people: PeopleService
    ledger: MessageLedger
    person: Person
    ws: Worksheet
    other: Worksheet

    async def reload(self) -> Person:
        person = await self.people.load(1)
        assert person is not None
        return person


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    clock = ManualClock(datetime.fromtimestamp(START, UTC))
    keys = await KeyStore.open(tmp_path / "keys.sqlite3", MasterKey(os.urandom(32)))
    db = await Database.open(tmp_path / "data.sqlite3", MIGRATIONS)
    ledger = MessageLedger(PeopleStore(db), clock)
    people = PeopleService(
        PeopleStore(db), keys, await keys.pseudonym_key(), clock, listeners=(ledger,)
    )
    worksheets = shared_content().worksheets
    data = WorksheetService(WorksheetStore(db), worksheets, clock, keys)
    flow = WorksheetFlow(data, people, ledger)
    ws, other = list(worksheets.values())[:2]
    person = await people.create(1, 1, "")
    try:
        yield World(flow, data, people, ledger, person, ws, other)
    finally:
        await db.close()
        await keys.close()


async def show(world: World, position: int, message_id: int, previous: int = -1) -> None:
    """What the handler does once it sent the question at `position`."""
    step = WorksheetState(world.ws.id, message_id, position=position, previous=previous)
    await world.flow.shown(world.person, world.ws, step)


async def test_text_answers_the_question_on_screen_and_counts_parts(world: World) -> None:
    assert await world.flow.begin(world.person, world.ws) == 0
    await show(world, 0, message_id=10)
    first = await world.flow.receive(world.person, 11, "one")
    second = await world.flow.receive(world.person, 12, "two")
    assert isinstance(first, Saved) and isinstance(second, Saved)
    assert (first.position, first.count, second.count) == (0, 1, 2)
    assert first.delete == ()  # not discreet: nothing leaves the chat
    answer = await world.flow.answer(world.person, world.ws, 0)
    assert answer.parts == ("one", "two")
    assert (await world.reload()).profile.part(WorksheetPrefs).active_worksheet == world.ws.id


async def test_text_typed_before_the_next_question_arrived_joins_the_previous_answer(
    world: World,
) -> None:
    await world.flow.begin(world.person, world.ws)
    await show(world, 0, message_id=10)
    await world.flow.receive(world.person, 11, "first answer")
    await world.flow.go_to(world.person, world.ws, 1)
    await show(world, 1, message_id=20, previous=0)
    late = await world.flow.receive(world.person, 19, "afterthought")  # sent before id 20
    assert isinstance(late, AddedToPrevious) and late.number == 1
    assert (await world.flow.answer(world.person, world.ws, 0)).parts == (
        "first answer",
        "afterthought",
    )
    assert (await world.flow.answer(world.person, world.ws, 1)).parts == ()
    on_time = await world.flow.receive(world.person, 21, "second answer")
    assert isinstance(on_time, Saved) and on_time.position == 1


async def test_discreet_mode_sends_the_message_and_question_away(world: World) -> None:
    world.person.profile.discreet = True
    await world.people.save(world.person)
    await world.flow.begin(world.person, world.ws)
    await show(world, 0, message_id=10)
    saved = await world.flow.receive(world.person, 11, "secret")
    assert isinstance(saved, Saved)
    assert saved.delete == (11, 10) and saved.step.question_message == 0
    await world.flow.shown(world.person, world.ws, replace(saved.step, saved_message=12))
    assert world.flow.leave_step(world.person, pressed=30) == [12, 30]
    assert worksheet_state(world.person.state) == WorksheetState(world.ws.id, position=0)


async def test_a_worksheet_gone_from_content_leaves_nothing_waiting(world: World) -> None:
    world.person.state = WorksheetState("no_such_sheet", 5, position=0).encode()
    world.person.profile.part(WorksheetPrefs).active_worksheet = "no_such_sheet"
    await world.people.save(world.person)
    assert isinstance(await world.flow.receive(world.person, 6, "text"), Gone)
    person = await world.reload()
    assert (person.state, person.profile.part(WorksheetPrefs).active_worksheet) == ("", None)


async def test_text_for_a_finished_worksheet_reopens_it(world: World) -> None:
    await world.flow.begin(world.person, world.ws)
    await show(world, 0, message_id=10)
    await world.flow.go_to(world.person, world.ws, world.ws.question_count)
    outcome = await world.flow.receive(world.person, 11, "late")
    assert isinstance(outcome, Reopen) and outcome.worksheet is world.ws
    assert (await world.reload()).state == ""
    assert await world.flow.opening(world.person, world.ws) == Open(Opening.FINISHED)


async def test_finishing_one_worksheet_keeps_another_ones_question(world: World) -> None:
    await world.flow.begin(world.person, world.ws)
    await show(world, 0, message_id=10)
    waiting = world.person.state
    await world.flow.finish(world.person, world.other)  # an old button of another sheet
    assert world.person.state == waiting
    await world.flow.finish(world.person, world.ws)
    person = await world.reload()
    assert (person.state, person.profile.part(WorksheetPrefs).active_worksheet) == ("", None)


async def test_opening_continue_and_again(world: World) -> None:
    assert await world.flow.opening(world.person, world.ws) == Open(Opening.NEW)
    assert await world.flow.continue_at(world.person, world.ws) is None
    await world.flow.begin(world.person, world.ws)
    assert await world.flow.opening(world.person, world.ws) == Open(Opening.RESUME, 0)
    assert await world.flow.is_current(world.person, world.ws, 0)
    assert not await world.flow.is_current(world.person, world.ws, 1)
    assert not await world.flow.again(world.person, world.ws)  # not finished yet
    await world.flow.go_to(world.person, world.ws, world.ws.question_count)
    assert await world.flow.again(world.person, world.ws)
    assert await world.flow.opening(world.person, world.ws) == Open(Opening.RESUME, 0)


async def test_delete_resets_the_place_and_names_every_message_that_showed_it(
    world: World,
) -> None:
    await world.flow.begin(world.person, world.ws)
    await show(world, 0, message_id=10)
    await world.flow.receive(world.person, 11, "one")
    world.ledger.note(world.person.person_id, 40, START, quotes=world.ws.id)  # a review page
    world.ledger.note(world.person.person_id, 41, START)  # unrelated
    ids = await world.flow.delete(world.person, world.ws)
    assert ids == [11, 40]
    assert await world.flow.answers(world.person, world.ws.id) == {}
    person = await world.reload()
    assert (person.state, person.profile.part(WorksheetPrefs).active_worksheet) == ("", None)
    assert await world.flow.opening(world.person, world.ws) == Open(Opening.NEW)


async def test_clear_answer_returns_its_messages(world: World) -> None:
    await world.flow.begin(world.person, world.ws)
    await show(world, 0, message_id=10)
    await world.flow.receive(world.person, 11, "one")
    await world.flow.receive(world.person, 12, "two")
    assert await world.flow.clear_answer(world.person, world.ws, 0) == [11, 12]
    assert (await world.flow.answer(world.person, world.ws, 0)).parts == ()


async def test_a_deep_link_opens_once(world: World) -> None:
    world.person.profile.part(WorksheetPrefs).pending_worksheet = world.ws.id
    assert await world.flow.take_pending(world.person) == world.ws.id
    assert await world.flow.take_pending(world.person) is None


# --- crisis text inside an answer (bot/features/crisis/held.py decides the HeldDecision) ------


async def test_continue_returns_to_the_question_the_person_was_on(world: World) -> None:
    await world.flow.begin(world.person, world.ws)
    await world.flow.go_to(world.person, world.ws, 2)
    assert await world.flow.continue_at(world.person, world.ws) == 2  # never the next one
    assert await world.flow.continue_at(world.person, world.ws) == 2  # twice: still there
    assert await world.flow.is_current(world.person, world.ws, 2)
    await world.flow.go_to(world.person, world.ws, world.ws.question_count)
    assert await world.flow.continue_at(world.person, world.ws) is None  # finished meanwhile


async def test_only_a_crisis_word_is_not_stored(world: World) -> None:
    await world.flow.begin(world.person, world.ws)
    await show(world, 0, message_id=10)
    outcome = await world.flow.receive(world.person, 11, "help", HeldDecision.DISCARD)
    assert outcome == NotKept(world.ws, 0)
    assert (await world.flow.answer(world.person, world.ws, 0)).parts == ()
    assert held_texts((await world.reload()).profile) == []
    assert await world.flow.is_current(world.person, world.ws, 0)  # nothing moved on


async def test_longer_crisis_text_is_held_sealed_until_kept(world: World) -> None:
    world.person.profile.discreet = True
    await world.people.save(world.person)
    await world.flow.begin(world.person, world.ws)
    await show(world, 0, message_id=10)
    await world.flow.receive(world.person, 11, "before")
    outcome = await world.flow.receive(world.person, 12, "he hit me again", HeldDecision.ASK)
    assert outcome == HeldBack(world.ws, 0, (12,))  # sealed: it may leave the chat
    assert (await world.flow.answer(world.person, world.ws, 0)).parts == ("before",)
    await world.flow.receive(world.person, 13, "after")
    person = await world.reload()  # held in storage: a restart loses nothing
    held = take(person.profile, 12)
    assert held is not None and held.question_id == world.ws.questions[0].id
    assert await world.flow.keep_held(person, held) is world.ws
    answer = await world.flow.answer(person, world.ws, 0)
    assert answer.parts == ("before", "he hit me again", "after")  # in the order typed


async def test_held_text_typed_before_the_next_question_belongs_to_the_previous(
    world: World,
) -> None:
    await world.flow.begin(world.person, world.ws)
    await show(world, 0, message_id=10)
    await world.flow.go_to(world.person, world.ws, 1)
    await show(world, 1, message_id=20, previous=0)
    outcome = await world.flow.receive(
        world.person, 19, "and he said he'd kill me", HeldDecision.ASK
    )
    assert isinstance(outcome, HeldBack) and outcome.position == 0
    held = take((await world.reload()).profile, 19)
    assert held is not None and held.question_id == world.ws.questions[0].id


async def test_a_quiet_safety_plan_answer_is_saved_at_once(world: World) -> None:
    await world.flow.begin(world.person, world.ws)
    await show(world, 0, message_id=10)
    outcome = await world.flow.receive(world.person, 11, "I'd call Anna", HeldDecision.KEEP_QUIETLY)
    assert isinstance(outcome, Saved) and outcome.count == 1


def test_the_quiet_line_only_in_the_safety_plan_and_only_when_the_check_was_held_back() -> None:
    detector = shared_content().detector
    text = "I'm scared of him"
    match = detector.detect(text)
    person = Person("p", 1, Profile(), "", True, PersonCipher("p", random_key()))

    def capture(worksheet: str, *, held_back: bool) -> HeldDecision:
        person.state = WorksheetState(worksheet, 5, position=0).encode()
        return WorksheetFlow.held_decision(
            person, match, text, detector.covers, held_back=held_back
        )

    assert capture(SAFETY_PLAN, held_back=True) is HeldDecision.KEEP_QUIETLY
    assert capture(SAFETY_PLAN, held_back=False) is HeldDecision.ASK
    assert capture("grounding", held_back=True) is HeldDecision.ASK
    assert (
        WorksheetFlow.held_decision(person, None, text, detector.covers, held_back=True)
        is HeldDecision.KEEP
    )
