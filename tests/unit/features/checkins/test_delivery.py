"""Daily-prompt policy and the dispatcher against real storage, without Telegram."""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from telegram.error import BadRequest

import bot.features.checkins.claims as claims
import bot.features.checkins.delivery as delivery
import bot.features.checkins.policy as policy
from bot.content.prompt_model import Prompt
from bot.core.clock import ManualClock
from bot.core.telegram_text import utf16_len
from bot.crypto import MasterKey
from bot.features.checkins.delivery import Dispatcher
from bot.features.checkins.journal import Entry
from bot.features.checkins.policy import (
    Action,
    Claim,
    decide,
    following,
    pick_prompt,
    schedule_of,
)
from bot.features.checkins.prefs import CheckinPrefs
from bot.features.checkins.schedule import DailySchedule
from bot.features.checkins.views import render_page
from bot.people.profile import Profile
from bot.people.service import PeopleService, Person
from bot.storage.backend import SoleLeadership
from bot.storage.database import Database
from bot.storage.deliveries import DeliveryRow, DeliveryStore, Version
from bot.storage.keystore import KeyStore
from bot.storage.people import PeopleStore
from bot.storage.schema import MIGRATIONS
from bot.transport.send_outcome import Delivered, Failure, SendOutcome, Undelivered, outcome_of
from tests.helpers.bot import shared_content

UTC = dt.UTC
PROMPTS = shared_content().prompts
LONDON_0730 = DailySchedule(dt.time(7, 30), "Europe/London", frozenset(range(7)))


def at(day: int, hour: int, minute: int = 0, month: int = 12) -> dt.datetime:
    return dt.datetime(2026, month, day, hour, minute, tzinfo=UTC)


# --- pure policy ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("late", "existing", "skip", "scheduled", "expected"),
    [
        (dt.timedelta(0), None, None, True, Action.SEND),
        (dt.timedelta(hours=2), None, None, True, Action.SEND),  # the edge is still on time
        (dt.timedelta(hours=2, seconds=1), None, None, True, Action.SKIP),
        (dt.timedelta(0), None, "2026-12-01", True, Action.SKIP),
        (dt.timedelta(0), "sent", None, True, Action.DROP),
        (dt.timedelta(0), "claimed", None, True, Action.DROP),  # crash edge: never again
        (dt.timedelta(0), "skipped", None, True, Action.DROP),
        (dt.timedelta(0), None, None, False, Action.STOP),
        (dt.timedelta(0), "snoozed", None, True, Action.RESEND),
        (dt.timedelta(hours=3), "snoozed", None, True, Action.RESTORE),
        (dt.timedelta(0), "snoozed", "2026-12-01", True, Action.RESTORE),
        (dt.timedelta(0), "snoozed", None, False, Action.RESTORE),
    ],
)
def test_decide(
    late: dt.timedelta, existing: str | None, skip: str | None, scheduled: bool, expected: Action
) -> None:
    due = at(1, 7, 30)
    action = decide(
        scheduled=scheduled,
        due=due,
        now=due + late,
        local_date="2026-12-01",
        skip_date=skip,
        existing=existing,
    )
    assert action is expected


def test_following_skips_every_missed_day_after_downtime() -> None:
    due = at(1, 7, 30)
    found = following(LONDON_0730, due, due.date(), at(3, 9, 0))
    assert found == (at(4, 7, 30), dt.date(2026, 12, 4))


def test_following_a_snooze_never_returns_the_same_date() -> None:
    # A snoozed re-send due at 06:00 for 2026-12-01 (before that date's own 07:30 slot).
    found = following(LONDON_0730, at(1, 6, 0), dt.date(2026, 12, 1), at(1, 6, 0))
    assert found == (at(2, 7, 30), dt.date(2026, 12, 2))


def test_schedule_of_is_none_unless_fully_set_up() -> None:
    def ready(
        *, onboarded: bool = True, timezone: str | None = "Asia/Kolkata", **daily: Any
    ) -> Profile:
        prefs = replace(CheckinPrefs(daily_time="07:30", daily_enabled=True), **daily)
        return Profile(timezone=timezone, onboarded=onboarded).holding(prefs)

    assert schedule_of(ready()) is not None
    changes: tuple[dict[str, Any], ...] = (
        {"onboarded": False},  # stopped before the safety question: nothing yet
        {"paused": True},
        {"daily_enabled": False},
        {"daily_time": None},
        {"timezone": None},
        {"timezone": "Mars/Olympus"},
        {"daily_days": ()},
    )
    for change in changes:
        assert schedule_of(ready(**change)) is None, change


def history_of(ids: list[str]) -> list[DeliveryRow]:
    return [
        DeliveryRow(f"2026-{1 + i // 28:02d}-{1 + i % 28:02d}", pid, "sent", None, 0)
        for i, pid in enumerate(ids)
    ]


def test_no_prompt_twice_until_all_have_been_sent() -> None:
    sent: list[str] = []
    for day in range(len(PROMPTS)):
        prompt = pick_prompt(PROMPTS, history_of(sent), "p1", f"day-{day}")
        sent.append(prompt.id)
    assert sorted(sent) == sorted(p.id for p in PROMPTS)
    # The next cycle does not open with the prompt that closed the last one.
    assert pick_prompt(PROMPTS, history_of(sent), "p1", "next").id != sent[-1]


def test_prompt_choice_is_deterministic_per_person_and_date() -> None:
    history = history_of(["grounding_01"])
    first = pick_prompt(PROMPTS, history, "p1", "2026-12-01")
    assert pick_prompt(PROMPTS, history, "p1", "2026-12-01") == first
    picks = {pick_prompt(PROMPTS, history, f"p{n}", "2026-12-01").id for n in range(20)}
    assert len(picks) > 1
    # Skipped and failed days do not count as seen.
    unseen = [DeliveryRow("2026-12-01", "grounding_01", "skipped", None, 0)]
    only = (Prompt("grounding_01", "grounding", "x"),)
    assert pick_prompt(only, unseen, "p1", "d").id == "grounding_01"


# --- journal rendering ----------------------------------------------------------------


def test_a_page_of_long_entries_fits_one_message() -> None:
    now = at(1, 9)
    entries = [
        Entry(f"e{n}", "grounding_01", ("🌿 long " * 900) if n % 2 else "short", 1_764_000_000)
        for n in range(5)
    ]
    note = "Long entries are cut here."
    text = render_page(
        "Your journal · 1–5 of 9", entries, {"grounding_01": "x" * 300}, "UTC", now, shortened=note
    )
    assert utf16_len(text) <= 4096
    assert text.count("short") == 3  # short entries are shown whole
    assert text.endswith(note)  # and a cut is never silent (issue 27, minor)
    whole = render_page("Your journal", entries[:1], {}, "UTC", now, shortened=note)
    assert note not in whole


# --- the dispatcher against real storage ----------------------------------------------


class World:
    def __init__(self, db: Database, keys: KeyStore, people: PeopleService, clock: ManualClock):
        self.db = db
        self.keys = keys
        self.people = people
        self.clock = clock
        self.store = DeliveryStore(db)
        self.sent: list[Claim] = []
        self.running = True

    def dispatcher(
        self, sender: Callable[[Claim], Awaitable[SendOutcome]] | None = None, **options: Any
    ) -> Dispatcher:
        async def record(claim: Claim) -> SendOutcome:
            self.sent.append(claim)
            await asyncio.sleep(0)  # a real send yields; so does this one
            return Delivered(len(self.sent))

        return Dispatcher(
            people=self.people,
            store=self.store,
            prompts=PROMPTS,
            clock=self.clock,
            sender=sender or record,
            is_running=lambda: self.running,
            **options,
        )

    async def add(self, user_id: int, zone: str = "Europe/London") -> Person:
        person = await self.people.create(user_id, user_id, "")
        person.profile = Profile(timezone=zone, onboarded=True).holding(
            CheckinPrefs(daily_time="07:30", daily_enabled=True)
        )
        await self.people.save(person)
        await self.dispatcher().reschedule(person)
        return person


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    clock = ManualClock(at(1, 6))
    keys = await KeyStore.open(tmp_path / "keys.sqlite3", MasterKey(os.urandom(32)))
    db = await Database.open(tmp_path / "data.sqlite3", MIGRATIONS)
    people = PeopleService(PeopleStore(db), keys, await keys.pseudonym_key(), clock)
    try:
        yield World(db, keys, people, clock)
    finally:
        await db.close()
        await keys.close()


async def statuses(world: World) -> dict[str, str]:
    rows = await world.db.fetch_all("SELECT person_id, status FROM deliveries")
    return {str(r["person_id"]): str(r["status"]) for r in rows}


async def test_sends_are_bounded_and_batches_cover_everyone(world: World) -> None:
    for user in range(1, 121):
        await world.add(user)
    in_flight = peak = 0

    async def slow(claim: Claim) -> SendOutcome:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        for _ in range(3):
            await asyncio.sleep(0)
        in_flight -= 1
        world.sent.append(claim)
        return Delivered(len(world.sent))

    world.clock.set(at(1, 7, 30))
    report = await world.dispatcher(slow, batch_size=25, concurrency=8).run_once()
    assert (report.due, report.sent) == (120, 120)
    # Never more than the limit at once, and really concurrent (each send first re-reads
    # the person, so how many overlap inside the sender varies below the limit).
    assert 1 < peak <= 8
    assert len({c.person_id for c in world.sent}) == 120
    assert set((await statuses(world)).values()) == {"sent"}


async def test_shutdown_releases_claims_whose_send_never_started(world: World) -> None:
    people = [await world.add(user) for user in range(1, 11)]

    async def stop_after_three(claim: Claim) -> SendOutcome:
        world.sent.append(claim)
        if len(world.sent) == 3:
            world.running = False  # Application.stop() was called
        return Delivered(len(world.sent))

    world.clock.set(at(1, 7, 30))
    report = await world.dispatcher(stop_after_three, concurrency=1).run_once()
    assert (report.sent, report.released) == (3, 7)
    assert len(await statuses(world)) == 3  # released claims leave no record behind
    for person in people:
        reloaded = await world.people.load_by_id(person.person_id)
        assert reloaded is not None and reloaded.next_due_utc is not None
    world.running = True
    report = await world.dispatcher().run_once()
    assert report.sent == 7
    assert sorted(c.person_id for c in world.sent) == sorted(p.person_id for p in people)


async def test_a_send_stopped_in_a_pause_is_released_and_sent_after_the_restart(
    world: World,
) -> None:
    # Shutdown during a 429 pause: the transport says "stopped", so it certainly did not
    # go out; like a send that never started, its claim is put back, not recorded failed.
    people = [await world.add(user) for user in range(1, 4)]

    async def stopping(claim: Claim) -> SendOutcome:
        world.running = False  # Application.stop() ends the pause
        return Undelivered(Failure.STOPPED, "SendStopped")

    world.clock.set(at(1, 7, 30))
    report = await world.dispatcher(stopping, concurrency=1).run_once()
    assert (report.sent, report.failed, report.released) == (0, 0, 3)
    assert await statuses(world) == {}
    world.running = True
    report = await world.dispatcher().run_once()
    assert report.sent == 3
    assert sorted(c.person_id for c in world.sent) == sorted(p.person_id for p in people)


async def test_a_storage_error_before_one_send_does_not_stop_the_pass(world: World) -> None:
    world.people.store.sole_writer = False  # replicas: every send re-reads its row first
    for user in range(1, 6):
        await world.add(user)
    current = world.store.current
    failed = False

    async def failing_once(ids: list[str]) -> dict[str, Version]:
        nonlocal failed
        if not failed:
            failed = True
            raise OSError("disk")
        return await current(ids)

    world.store.current = failing_once  # type: ignore[method-assign]
    world.clock.set(at(1, 7, 30))
    report = await asyncio.wait_for(world.dispatcher(concurrency=1).run_once(), 60)
    assert (report.sent, report.unknown) == (4, 1)
    assert sorted((await statuses(world)).values()) == ["claimed"] + ["sent"] * 4


async def test_re_reads_before_sends_are_taken_together(world: World) -> None:
    # With replicas (other processes write too) each send re-reads its person first;
    # those whose turn comes at once share a query.
    world.people.store.sole_writer = False
    for user in range(1, 65):
        await world.add(user)
    asked: list[int] = []
    current = world.store.current

    async def counting(ids: list[str]) -> dict[str, Version]:
        asked.append(len(ids))
        return await current(ids)

    world.store.current = counting  # type: ignore[method-assign]
    world.clock.set(at(1, 7, 30))
    report = await world.dispatcher(concurrency=16).run_once()
    assert report.sent == 64 and sum(asked) == 64
    assert len(asked) <= 64 // 4, asked


async def test_a_row_changed_while_claiming_is_left_for_the_next_batch(world: World) -> None:
    first = await world.add(1)
    await world.add(2)
    dispatcher = world.dispatcher()
    read_histories = world.store.histories

    async def meanwhile(ids: list[str]) -> dict[str, list[DeliveryRow]]:
        found = await read_histories(ids)
        # The person taps "Skip today" between the read and the claim.
        first.profile.part(CheckinPrefs).skip_date = "2026-12-01"
        await world.people.save(first)
        return found

    world.store.histories = meanwhile  # type: ignore[assignment,method-assign]
    world.clock.set(at(1, 7, 30))
    report = await dispatcher.run_once()
    assert (report.sent, report.conflicts) == (1, 1)
    world.store.histories = read_histories  # type: ignore[method-assign]
    report = await dispatcher.run_once()
    assert (report.sent, report.skipped) == (0, 1)
    assert (await statuses(world))[first.person_id] == "skipped"


async def refuse(claim: Claim) -> SendOutcome:
    """A send Telegram refuses for good (the chat is gone)."""

    async def chat_not_found() -> Any:
        raise BadRequest("Chat not found")

    return await outcome_of(chat_not_found())


async def test_a_failed_send_is_recorded_and_not_retried(world: World) -> None:
    person = await world.add(1)

    world.clock.set(at(1, 7, 30))
    report = await world.dispatcher(refuse).run_once()
    assert report.failed == 1
    assert (await statuses(world))[person.person_id] == "failed"
    world.clock.set(at(1, 7, 45))
    assert (await world.dispatcher().run_once()).due == 0


async def test_results_a_failed_write_held_are_written_by_the_next_pass(world: World) -> None:
    # A prompt's message id is what /clear deletes it by and what makes a Telegram reply
    # to it a journal entry: a write that fails keeps it for the next try, not drops it.
    people = [await world.add(user) for user in range(1, 4)]
    record = world.store.record_results
    refused: list[int] = []

    async def down_once(sent: Any, failed: Any) -> None:
        if not refused:
            refused.append(len(sent))
            raise OSError("disk")
        await record(sent, failed)

    async def numbered(claim: Claim) -> SendOutcome:
        world.sent.append(claim)
        return Delivered(len(world.sent))

    world.store.record_results = down_once  # type: ignore[method-assign]
    dispatcher = world.dispatcher(numbered)
    world.clock.set(at(1, 7, 30))
    report = await dispatcher.run_once()
    assert report.sent == 3 and refused == [3]
    assert set((await statuses(world)).values()) == {"claimed"}
    world.clock.set(at(1, 7, 31))
    assert (await dispatcher.run_once()).due == 0  # nothing sent again, the results written
    assert set((await statuses(world)).values()) == {"sent"}
    rows = await world.db.fetch_all("SELECT person_id, message_id FROM deliveries")
    assert {str(r["person_id"]) for r in rows} == {p.person_id for p in people}
    assert sorted(int(r["message_id"]) for r in rows) == [1, 2, 3]
    kept = await world.db.fetch_all("SELECT message_id FROM chat_messages ORDER BY message_id")
    assert [int(r["message_id"]) for r in kept] == [1, 2, 3]


async def test_results_still_unwritten_at_shutdown_are_tried_once_more(world: World) -> None:
    await world.add(1)
    record = world.store.record_results
    tries: list[int] = []

    async def down_once(sent: Any, failed: Any) -> None:
        tries.append(len(sent))
        if len(tries) == 1:
            raise OSError("disk")
        await record(sent, failed)

    world.store.record_results = down_once  # type: ignore[method-assign]
    dispatcher = world.dispatcher()
    world.clock.set(at(1, 7, 30))
    await dispatcher.run_once()
    await dispatcher.close()
    assert tries == [1, 1]
    assert set((await statuses(world)).values()) == {"sent"}


class Toggled(SoleLeadership):
    def __init__(self) -> None:
        self.leading = True

    async def hold(self) -> bool:
        return self.leading


def failing_writes(world: World, times: int) -> list[int]:
    """The next `times` writes of results fail; the list counts every write tried."""
    record = world.store.record_results
    tries: list[int] = []

    async def down(sent: Any, failed: Any) -> None:
        tries.append(len(sent) + len(failed))
        if len(tries) <= times:
            raise OSError("disk")
        await record(sent, failed)

    world.store.record_results = down  # type: ignore[method-assign]
    return tries


async def test_a_replica_no_longer_leading_still_writes_what_it_kept(world: World) -> None:
    # Storage down, then back with another replica holding the lock: this one's results
    # are still only in its memory.
    await world.add(1)
    tries = failing_writes(world, 1)
    leadership = Toggled()
    dispatcher = world.dispatcher(leadership=leadership)
    world.clock.set(at(1, 7, 30))
    await dispatcher.run_once()
    leadership.leading = False
    report = await dispatcher.run_once()
    assert report.standby and tries == [1, 1]
    assert set((await statuses(world)).values()) == {"sent"}


async def test_a_failed_sends_result_is_kept_too(world: World) -> None:
    # Left claimed, a prompt that never went out reads as one that may have arrived.
    person = await world.add(1)

    failing_writes(world, 1)
    dispatcher = world.dispatcher(refuse)
    world.clock.set(at(1, 7, 30))
    await dispatcher.run_once()
    assert (await statuses(world))[person.person_id] == "claimed"
    world.clock.set(at(1, 7, 31))
    await dispatcher.run_once()
    assert (await statuses(world))[person.person_id] == "failed"


async def test_a_result_written_late_never_takes_a_newer_claim_of_its_day(world: World) -> None:
    # The write seemed to fail but had committed, or storage stayed down past a snooze:
    # the day's re-send has been claimed since. The old result must not become its record.
    person = await world.add(1)
    failing_writes(world, 1)
    dispatcher = world.dispatcher()
    world.clock.set(at(1, 7, 30))
    await dispatcher.run_once()
    later = int(at(1, 8, 31).timestamp())
    await world.db.execute(
        "UPDATE deliveries SET claimed_at = ?, message_id = NULL WHERE person_id = ?",
        (later, person.person_id),
    )
    world.clock.set(at(1, 8, 31))
    await dispatcher.close()  # the kept result is tried again, and changes nothing
    row = await world.db.fetch_one(
        "SELECT status, message_id FROM deliveries WHERE person_id = ?", (person.person_id,)
    )
    assert row is not None and (row["status"], row["message_id"]) == ("claimed", None)


async def test_after_a_failed_write_the_next_try_waits(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With storage down, a write per send would hammer it: the next try waits
    # FLUSH_SECONDS, and then does come, within the same pass.
    monkeypatch.setattr(delivery, "FLUSH_ROWS", 1)
    now = [1000.0]
    monkeypatch.setattr(
        delivery, "time", SimpleNamespace(monotonic=lambda: now[0], perf_counter=time.perf_counter)
    )
    for user in range(1, 7):
        await world.add(user)
    tries = failing_writes(world, 100)

    async def ticking(claim: Claim) -> SendOutcome:
        world.sent.append(claim)
        if len(world.sent) == 4:
            now[0] += policy.FLUSH_SECONDS  # storage has had its pause
        return Delivered(len(world.sent))

    world.clock.set(at(1, 7, 30))
    report = await world.dispatcher(ticking, concurrency=1).run_once()
    assert report.sent == 6
    # The first send's write, one more after the pause (sends 1-4 kept by then), and the
    # pass's last one with all six.
    assert tries == [1, 4, 6]


def test_the_results_kept_are_bounded_failures_dropped_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A failed send's result holds no message id: it goes before any sent one does.
    monkeypatch.setattr(delivery, "UNRECORDED_KEPT", 3)
    dispatcher = Dispatcher.__new__(Dispatcher)
    dispatcher._sent, dispatcher._failed = [("p3", "d", 3, 0)], []
    dispatcher._keep_unrecorded(
        [("p1", "d", 1, 0), ("p2", "d", 2, 0)], [("f1", "d", 0), ("f2", "d", 0)]
    )
    assert ([row[0] for row in dispatcher._sent], dispatcher._failed) == (["p1", "p2", "p3"], [])
    dispatcher._keep_unrecorded([("p0", "d", 0, 0)], [("f0", "d", 0)])
    assert ([row[0] for row in dispatcher._sent], dispatcher._failed) == (["p1", "p2", "p3"], [])


async def test_only_those_changed_since_their_claim_are_read_again(world: World) -> None:
    # This process writes the table alone (SQLite): it knows who changed since the claim,
    # and only they are read again before their send.
    people = [await world.add(user) for user in range(1, 33)]
    asked: list[str] = []
    current = world.store.current

    async def counting(ids: list[str]) -> dict[str, Version]:
        asked.extend(ids)
        return await current(ids)

    async def pausing(claim: Claim) -> SendOutcome:
        if not world.sent:
            people[-1].profile.part(CheckinPrefs).paused = True
            await world.people.save(people[-1])
        world.sent.append(claim)
        return Delivered(len(world.sent))

    world.store.current = counting  # type: ignore[method-assign]
    world.clock.set(at(1, 7, 30))
    report = await world.dispatcher(pausing, concurrency=1).run_once()
    assert (report.sent, report.stopped) == (31, 1)
    assert people[-1].person_id not in {c.person_id for c in world.sent}
    assert asked == [people[-1].person_id]


@pytest.mark.parametrize("sole_writer", [True, False])
async def test_a_forget_after_the_claim_stops_the_send(world: World, sole_writer: bool) -> None:
    world.people.store.sole_writer = sole_writer
    first = await world.add(1)
    second = await world.add(2)

    async def forgetting(claim: Claim) -> SendOutcome:
        if not world.sent:
            other = second if claim.person_id == first.person_id else first
            await world.people.forget(other.person_id)
        world.sent.append(claim)
        return Delivered(len(world.sent))

    world.clock.set(at(1, 7, 30))
    report = await world.dispatcher(forgetting, concurrency=1).run_once()
    assert (report.due, report.sent, report.stopped) == (2, 1, 1)


@pytest.mark.parametrize("sole_writer", [True, False])
async def test_a_pause_after_the_claim_stops_the_send(world: World, sole_writer: bool) -> None:
    world.people.store.sole_writer = sole_writer
    first = await world.add(1)
    second = await world.add(2)

    async def pausing(claim: Claim) -> SendOutcome:
        # While the first prompt goes out, the second person pauses check-ins.
        if not world.sent:
            other = second if claim.person_id == first.person_id else first
            other.profile.part(CheckinPrefs).paused = True
            await world.people.save(other)
        world.sent.append(claim)
        return Delivered(len(world.sent))

    world.clock.set(at(1, 7, 30))
    report = await world.dispatcher(pausing, concurrency=1).run_once()
    assert report.due == 2
    assert len(world.sent) == 1  # the paused person got nothing
    assert report.stopped == 1


async def test_an_unchanged_row_is_not_opened_twice_but_a_cover_still_stops_it(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The re-read before the send compares the sealed bytes the claim decided on: equal
    # bytes (every save re-seals with a fresh nonce) need no second decryption, and the
    # panic cover, kept in memory, is still asked.
    first = await world.add(1)
    second = await world.add(2)
    opened: list[str] = []
    real = delivery.open_profile

    def counting(cipher: Any, profile_enc: bytes, chat_enc: bytes, **reading: Any) -> Any:
        opened.append("open")
        return real(cipher, profile_enc, chat_enc, **reading)

    monkeypatch.setattr(claims, "open_profile", counting)  # at the claim
    monkeypatch.setattr(delivery, "open_profile", counting)  # before the send
    covered: set[str] = set()

    async def covering(claim: Claim) -> SendOutcome:
        # While the first prompt goes out, the other person goes into cover.
        if not world.sent:
            covered.add(second.person_id if claim.person_id == first.person_id else first.person_id)
        world.sent.append(claim)
        return Delivered(len(world.sent))

    world.clock.set(at(1, 7, 30))
    dispatcher = world.dispatcher(
        covering, concurrency=1, in_cover=lambda person_id: person_id in covered
    )
    report = await dispatcher.run_once()
    assert report.due == 2
    assert len(world.sent) == 1 and report.stopped == 1  # the one in cover got nothing
    assert len(opened) == 2  # each row opened once, at the claim; not again before the send


def test_sends_in_flight_follow_the_rate() -> None:
    # At the bulk rate the 16 of old; at the paid rate's half, enough for a 250 ms round
    # trip (16 would cap one replica near 16 / 0.05 s = 320 a second, below the rate).
    assert policy.concurrency_for(policy.rate_for(paid_broadcast=False)) == 16
    assert policy.concurrency_for(policy.rate_for(paid_broadcast=True)) == 125
