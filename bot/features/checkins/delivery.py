"""Daily prompts: find who is due, claim one prompt per person per local day, send, record.

How it runs
    One repeating PTB job (`tick`, every `TICK`) starts a dispatch pass when none is
    running. A pass (`run_once`) claims due people in batches of `BATCH_SIZE`, hands the
    sends to at most `CONCURRENCY` concurrent tasks (the app's SendPolicy and rate limiter
    pace them), claims the next batch once the queue runs low, and stops when nobody is due.
    There is no job per person: start-up costs nothing per person, and the due instants
    live in `people.next_due_utc` (indexed), so a restart loses no schedule.

Exactly once per local day
    A claim is one transaction that re-checks each row it read, writes the delivery
    record `(person_id, local_date)` (primary key) and advances `next_due_*` to the next
    local occurrence. A second claim of the same date cannot happen: the record exists, and
    a row that comes due again for a date that has a record is only advanced.

The crash edge: at most once
    A record is `claimed` before the send and `sent` after it. If the process dies in
    between, nobody knows whether the message reached Telegram, and the claim has already
    moved `next_due` on, so the prompt is NOT sent again: the record stays `claimed`. For
    people who may be watched, a missed prompt is better than two. Sends that had not
    started when the bot shut down cleanly are certain not to have happened, so those
    claims are released (record deleted, `next_due` put back) and go out after the restart.

Late prompts
    A prompt up to `GRACE` (2 h) late is sent; an older one is recorded `skipped` and the
    person moves on to their next occurrence after now, so an outage never ends in a burst.

Snooze ("Remind me in an hour")
    The day's record goes `sent -> snoozed` and `next_due` is set to now + 1 h with the same
    local date. When that comes due, the same record goes `snoozed -> claimed -> sent`: one
    record per day still, and the re-send shows the same prompt again. Changing the
    schedule (or skipping the day) drops a pending snooze.

Blocked (403)
    The person is marked inactive and their `next_due` cleared; /start re-activates them and
    the schedule hook computes a fresh due instant.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import functools
import logging
import math
import random
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from telegram.error import Forbidden, TelegramError, TimedOut

from bot.content.prompt_model import Prompt, choose_next_prompt, current_cycle
from bot.core.clock import Clock
from bot.crypto import CryptoError, PersonCipher
from bot.features.checkins.schedule import (
    DailySchedule,
    is_valid_timezone,
    lateness_allowed,
    local_date_of,
    next_occurrence,
    parse_local_time,
)
from bot.people.service import PeopleService, Person, Profile, open_profile
from bot.storage.backend import Leadership, SoleLeadership
from bot.storage.deliveries import (
    CLAIMED,
    DELIVERED,
    SENT,
    SKIPPED,
    SNOOZED,
    ClaimWrites,
    DeliveryRow,
    DeliveryStore,
    DueRow,
    Version,
)

log = logging.getLogger(__name__)

GRACE = dt.timedelta(hours=2)
SNOOZE = dt.timedelta(hours=1)
# How long after a prompt a reply, a snooze or a skip still belongs to it.
REPLY_WINDOW = dt.timedelta(hours=12)
# Telegram's bulk rate (Bots FAQ: about 30 messages a second), and with paid broadcasts.
BULK_RATE = 30.0
PAID_BROADCAST_RATE = 1000.0
BATCH_SIZE = 500
# Sends at once. Enough to keep PTB's 30/s limiter fed at round-trips up to ~500 ms, and
# few enough that a person's own reply, queued in the same limiter, waits behind at most
# this many prompts (docs/performance.md).
CONCURRENCY = 16
# A faster rate needs more in flight: sends a second times the round trip to Telegram.
# 250 ms covers a server far from Telegram's data centres; at the paid rate's half
# (500/s) that is 125 sends, each reply still waiting behind a quarter second of prompts.
ROUND_TRIP = 0.25


def rate_for(paid_broadcast: bool) -> float:
    """This replica's sending rate: the bulk rate, or with paid broadcasts half the paid
    rate (two replicas may send at once and share it)."""
    return PAID_BROADCAST_RATE / 2 if paid_broadcast else BULK_RATE


def concurrency_for(send_rate: float) -> int:
    """Sends at once for a pass that may send `send_rate` a second."""
    return max(CONCURRENCY, math.ceil(send_rate * ROUND_TRIP))


TICK = dt.timedelta(seconds=15)
# Results are written in groups: one transaction per send would cost more than the send.
_FLUSH_ROWS = 200
_FLUSH_SECONDS = 1.0
# next_occurrence steps one date at a time; a handful of dates already recorded is the most
# a real history produces (a time change on a day that already had its prompt).
_MAX_STEPS = 8

Sender = Callable[["Claim"], Awaitable[int]]
Spawn = Callable[[Coroutine[Any, Any, None]], "asyncio.Task[None]"]


# --- pure policy ----------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def _schedule(daily_time: str, timezone: str, days: tuple[int, ...]) -> DailySchedule | None:
    local = parse_local_time(daily_time)
    if local is None or not days or not is_valid_timezone(timezone):
        return None
    try:
        return DailySchedule(local, timezone, frozenset(days))
    except ValueError:
        return None


def schedule_of(profile: Profile) -> DailySchedule | None:
    """The person's schedule, or None when they get no prompts (off, paused, not set up).
    Nothing before onboarding ends: the safety question (discreet, neutral, silent) comes
    after the time, and someone who stopped there must not get a ringing, plain prompt."""
    if not profile.daily_enabled or profile.paused or not profile.onboarded:
        return None
    if profile.daily_time is None or profile.timezone is None:
        return None
    return _schedule(profile.daily_time, profile.timezone, tuple(profile.daily_days))


def local_today(profile: Profile, now: dt.datetime) -> dt.date:
    zone = profile.timezone if profile.timezone and is_valid_timezone(profile.timezone) else "UTC"
    return local_date_of(now, zone)


def following(
    schedule: DailySchedule, due: dt.datetime, local_date: dt.date, now: dt.datetime
) -> tuple[dt.datetime, dt.date] | None:
    """The occurrence after handling `local_date`'s prompt: after now, on a later date.

    Starting from now (not from `due`) is what stops a burst after downtime: every missed
    occurrence but the handled one is passed over. The later-date rule matters after a
    snooze, whose re-send can come before that date's own slot has passed.
    """
    found = next_occurrence(schedule, max(due, now))
    for _ in range(_MAX_STEPS):
        if found is None or found[1] > local_date:
            return found
        found = next_occurrence(schedule, found[0])
    return None


class Action(Enum):
    SEND = "send"  # claim a new record and send
    RESEND = "resend"  # a snoozed record comes due: claim it again and send
    RESTORE = "restore"  # a snoozed record that can no longer be sent: back to sent
    SKIP = "skip"  # record the day as skipped
    DROP = "drop"  # the day already has a record: only advance
    STOP = "stop"  # no schedule any more: clear the due instant


def decide(
    *,
    scheduled: bool,
    due: dt.datetime,
    now: dt.datetime,
    local_date: str,
    skip_date: str | None,
    existing: str | None,
    grace: dt.timedelta = GRACE,
) -> Action:
    """What to do with a row that is due at `due` for `local_date`, given its record."""
    on_time = lateness_allowed(due, now, grace)
    if existing == SNOOZED:
        if scheduled and skip_date != local_date and on_time:
            return Action.RESEND
        return Action.RESTORE
    if not scheduled:
        return Action.STOP
    if existing is not None:
        return Action.DROP
    if skip_date == local_date or not on_time:
        return Action.SKIP
    return Action.SEND


def pick_prompt(
    prompts: Sequence[Prompt], history: Sequence[DeliveryRow], person_id: str, local_date: str
) -> Prompt:
    """No repeat until every prompt has been sent; the same person and date pick the same."""
    ids = [d.prompt_id for d in history if d.status in DELIVERED and d.prompt_id]
    rng = random.Random(f"{person_id}|{local_date}")  # noqa: S311 - variety, not secrecy
    last = ids[-1] if ids else None
    return choose_next_prompt(prompts, current_cycle(ids, prompts), rng, last_sent=last)


# --- the dispatcher -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Claim:
    """One prompt to send, already recorded as claimed."""

    person_id: str
    chat_id: int
    local_date: str
    prompt: Prompt
    neutral: bool
    silent: bool
    resend: bool
    due_utc: int  # where next_due stood before the claim (put back on release)
    next_due_utc: int | None  # where the claim moved it
    next_due_date: str | None
    count_line: bool = False  # the person wants their no-contact day in the check-in
    language: str | None = None  # the person's stored choice (the sender has no update)
    # (profile_enc, chat_enc) as the claim read them: the re-read before the send can tell
    # that nothing changed without decrypting again.
    sealed: tuple[bytes, bytes] | None = None


@dataclass
class PassReport:
    due: int = 0  # rows read as due
    sent: int = 0  # includes re-sends after a snooze
    resent: int = 0
    skipped: int = 0
    dropped: int = 0  # the day already had a record
    stopped: int = 0  # no schedule any more
    failed: int = 0
    blocked: int = 0
    unknown: int = 0  # left claimed: timed out or crashed mid-send
    released: int = 0  # shutdown came before the send started
    conflicts: int = 0  # changed between read and claim; retried next batch
    claim_seconds: float = 0.0
    record_seconds: float = 0.0
    seconds: float = 0.0
    standby: bool = False  # another replica holds the dispatcher's lock: nothing was read
    backlog: int = 0  # due at the start of the pass
    drain_seconds: float = 0.0  # the backlog at the send rate


@dataclass(slots=True)
class _Plan:
    row: DueRow
    action: Action
    existing: str | None
    following: tuple[dt.datetime, dt.date] | None
    prompt: Prompt | None = None
    chat_id: int = 0
    neutral: bool = False
    silent: bool = False
    count_line: bool = False
    language: str | None = None


# A day's prompt is out in the chat (it can be snoozed; skipping it skips a sent one).
PROMPT_OUT = (SENT, SNOOZED)


class Snooze(Enum):
    SET = "set"
    EXPIRED = "expired"  # not the latest prompt, too old, skipped, or the next one is sooner
    OFF = "off"  # check-ins are off or paused


class Dispatcher:
    def __init__(
        self,
        *,
        people: PeopleService,
        store: DeliveryStore,
        prompts: Sequence[Prompt],
        clock: Clock,
        sender: Sender,
        is_running: Callable[[], bool] = lambda: True,
        in_cover: Callable[[str], bool] = lambda _: False,
        leadership: Leadership | None = None,
        send_rate: float = BULK_RATE,
        observe: Callable[[PassReport], None] | None = None,
        batch_size: int = BATCH_SIZE,
        concurrency: int = CONCURRENCY,
        grace: dt.timedelta = GRACE,
    ) -> None:
        if not prompts:
            raise ValueError("daily prompts need at least one prompt")
        self.people = people
        self.store = store
        self._prompts = tuple(prompts)
        self._by_id = {p.id: p for p in prompts}
        self._clock = clock
        self._sender = sender
        self._is_running = is_running
        # Memory's word on the panic cover (it is entered before storage hears of it).
        self._in_cover = in_cover
        # Several replicas tick; only the holder claims (docs/scaling.md). Claims stay
        # exactly-once without it (the claim locks its rows); it keeps one sender in budget.
        self._leadership = leadership or SoleLeadership()
        self._send_rate = send_rate
        self._observe = observe
        self._batch_size = batch_size
        self._concurrency = concurrency
        self._grace = grace
        self._lock = asyncio.Lock()
        self._pump: asyncio.Task[None] | None = None
        self._sent: list[tuple[str, str, int, int]] = []
        self._failed: list[tuple[str, str]] = []
        self._first_buffered = 0.0
        self._unsent: list[Claim] = []

    async def record(self, person_id: str, local_date: str) -> DeliveryRow | None:
        """The person's delivery of `local_date`, if one was planned or sent."""
        return await self.store.record(person_id, local_date)

    # --- ticking ------------------------------------------------------------------------

    def kick(self, spawn: Spawn) -> None:
        """Start a pass unless one is running. The tick returns at once, so a pass that
        takes an hour at Telegram's rate never makes APScheduler skip (and log) ticks."""
        if self._pump is not None and not self._pump.done():
            return
        self._pump = spawn(self._pass_logged())

    async def _pass_logged(self) -> None:
        try:
            await self.run_once()
        except Exception as exc:
            log.error("daily pass failed: %s", type(exc).__name__)  # noqa: TRY400 - type only, by design

    # --- one pass -----------------------------------------------------------------------

    async def run_once(self) -> PassReport:
        """Send every prompt due now; return what happened. Passes never overlap."""
        async with self._lock:
            report = PassReport()
            if not await self._leadership.hold():
                report.standby = True
                if self._observe is not None:
                    self._observe(report)
                return report
            await self._measure_backlog(report)
            started = time.perf_counter()
            semaphore = asyncio.Semaphore(self._concurrency)
            low_water = max(self._concurrency, self._batch_size // 4)
            tasks: set[asyncio.Task[None]] = set()
            room = asyncio.Event()

            def finished(task: asyncio.Task[None]) -> None:
                tasks.discard(task)
                if len(tasks) <= low_water:
                    room.set()

            try:
                while self._is_running() and await self._leadership.hold():
                    claims, more = await self._claim_batch(report)
                    for claim in claims:
                        task = asyncio.create_task(self._deliver(claim, semaphore, report))
                        tasks.add(task)
                        task.add_done_callback(finished)
                    if not more:
                        break
                    # Claim the next batch only when this one is nearly sent: a crash then
                    # loses at most what is in flight, and lateness is judged near send time.
                    while len(tasks) > low_water:
                        room.clear()
                        await room.wait()
            finally:
                if tasks:
                    await asyncio.gather(*list(tasks), return_exceptions=True)
                await self._flush(report)
                await self._release(report)
            report.seconds = time.perf_counter() - started
            if report.due:
                log.info(
                    "daily pass: due=%d sent=%d skipped=%d dropped=%d failed=%d blocked=%d"
                    " unknown=%d released=%d conflicts=%d in %.2fs",
                    report.due,
                    report.sent,
                    report.skipped,
                    report.dropped,
                    report.failed,
                    report.blocked,
                    report.unknown,
                    report.released,
                    report.conflicts,
                    report.seconds,
                )
            if self._observe is not None:
                self._observe(report)
            return report

    async def _measure_backlog(self, report: PassReport) -> None:
        """How many are due now, and whether the send rate gets through them within the
        grace window: said as a metric and a log line, not found out by skipped people."""
        report.backlog = await self.store.due_count(int(self._clock().timestamp()))
        report.drain_seconds = report.backlog / self._send_rate
        grace = self._grace.total_seconds()
        if report.drain_seconds > grace:
            log.warning(
                "the due queue holds %d prompts: about %d min at %d/s, past the %d-min grace"
                " window; people at its end will be skipped (BOT_PAID_BROADCAST raises the rate)",
                report.backlog,
                report.drain_seconds // 60,
                self._send_rate,
                grace // 60,
            )

    async def close(self) -> None:
        """Give up the dispatcher's lock, so a standby replica takes over at its next tick."""
        await self._leadership.close()

    async def claim(self) -> list[Claim]:
        """Claim one batch without sending it: for tests that stage a crash after a claim."""
        async with self._lock:
            claims, _ = await self._claim_batch(PassReport())
            return claims

    async def _claim_batch(self, report: PassReport) -> tuple[list[Claim], bool]:
        started = time.perf_counter()
        now = self._clock()
        now_ts = int(now.timestamp())
        rows = await self.store.due(now_ts, self._batch_size)
        if not rows:
            return [], False
        report.due += len(rows)
        ids = [r.person_id for r in rows]
        ciphers = await self.people.ciphers(ids)
        histories = await self.store.histories(ids)
        # Decrypting and planning happen before the write lock is taken; the transaction
        # below only re-checks and writes, so handlers never wait behind the decryption.
        plans = [self._plan(r, ciphers.get(r.person_id), histories[r.person_id], now) for r in rows]
        claims: list[Claim] = []
        writes = ClaimWrites([], [], [], [])
        conflicts = 0
        async with self.store.claiming() as tx:
            versions = await tx.versions(ids)
            statuses = await tx.statuses([(p.row.person_id, p.row.next_due_date) for p in plans])
            for plan in plans:
                row = plan.row
                read = Version(
                    row.next_due_utc, row.next_due_date, True, row.profile_enc, row.chat_enc
                )
                current = versions.get(row.person_id)
                if current is None or current != read:
                    conflicts += 1
                    continue
                if statuses.get((row.person_id, row.next_due_date)) != plan.existing:
                    conflicts += 1
                    continue
                claim = self._write(plan, writes, now_ts, report)
                if claim is not None:
                    claims.append(claim)
            await tx.write(writes)
        report.conflicts += conflicts
        report.claim_seconds += time.perf_counter() - started
        more = len(rows) == self._batch_size and conflicts < len(rows)
        return claims, more

    def _plan(
        self,
        row: DueRow,
        cipher: PersonCipher | None,
        history: list[DeliveryRow],
        now: dt.datetime,
    ) -> _Plan:
        record = next((d for d in reversed(history) if d.local_date == row.next_due_date), None)
        existing = None if record is None else record.status
        due = dt.datetime.fromtimestamp(row.next_due_utc, dt.UTC)
        stop = _Plan(row, Action.RESTORE if existing == SNOOZED else Action.STOP, existing, None)
        if cipher is None:
            return stop  # no key: the person is being forgotten
        try:
            profile, chat_id = open_profile(cipher, row.profile_enc, row.chat_enc)
        except (CryptoError, ValueError, TypeError) as exc:
            log.warning("daily: unreadable person row, prompts stop: %s", type(exc).__name__)
            return stop
        schedule = schedule_of(profile)
        action = decide(
            scheduled=schedule is not None,
            due=due,
            now=now,
            local_date=row.next_due_date,
            skip_date=profile.skip_date,
            existing=existing,
            grace=self._grace,
        )
        nxt = None
        if schedule is not None:
            try:
                day = dt.date.fromisoformat(row.next_due_date)
            except ValueError:
                day = local_date_of(due, schedule.timezone)
            nxt = following(schedule, due, day, now)
        if profile.cover or self._in_cover(row.person_id):
            # In cover nothing arrives unprompted: the day is skipped, not missed (a snoozed
            # one stays as sent), and the next occurrence after the cover goes out as usual.
            action = {Action.SEND: Action.SKIP, Action.RESEND: Action.RESTORE}.get(action, action)
        plan = _Plan(row, action, existing, nxt, None, chat_id, profile.neutral_wording)
        plan.silent = profile.silent
        plan.count_line = profile.nocontact_in_checkin
        plan.language = profile.language
        if action is Action.SEND:
            plan.prompt = pick_prompt(self._prompts, history, row.person_id, row.next_due_date)
        elif action is Action.RESEND:
            plan.prompt = self._by_id.get(record.prompt_id) if record is not None else None
            if plan.prompt is None:
                plan.action = Action.RESTORE  # the prompt was retired since the snooze
        return plan

    def _write(
        self, plan: _Plan, writes: ClaimWrites, now_ts: int, report: PassReport
    ) -> Claim | None:
        row = plan.row
        pid, day = row.person_id, row.next_due_date
        nxt_ts = None if plan.following is None else int(plan.following[0].timestamp())
        nxt_day = None if plan.following is None else plan.following[1].isoformat()
        writes.advances.append((nxt_ts, nxt_day, pid))
        action = plan.action
        if action is Action.SKIP:
            writes.records.append((pid, day, "", SKIPPED, now_ts))
            report.skipped += 1
        elif action is Action.DROP:
            report.dropped += 1
        elif action is Action.STOP:
            report.stopped += 1
        elif action is Action.RESTORE:
            writes.restores.append((pid, day))
            report.stopped += 1
        elif plan.prompt is None:  # a send without a prompt cannot happen; never guess one
            report.dropped += 1
        else:
            if action is Action.SEND:
                writes.records.append((pid, day, plan.prompt.id, CLAIMED, now_ts))
            else:
                writes.resends.append((now_ts, pid, day))
            return Claim(
                person_id=pid,
                chat_id=plan.chat_id,
                local_date=day,
                prompt=plan.prompt,
                neutral=plan.neutral,
                silent=plan.silent,
                resend=action is Action.RESEND,
                due_utc=row.next_due_utc,
                next_due_utc=nxt_ts,
                next_due_date=nxt_day,
                count_line=plan.count_line,
                language=plan.language,
                sealed=(row.profile_enc, row.chat_enc),
            )
        return None

    async def _deliver(
        self, claim: Claim, semaphore: asyncio.Semaphore, report: PassReport
    ) -> None:
        async with semaphore:
            if not self._is_running():
                self._unsent.append(claim)
                return
            current = await self._still_wanted(claim)
            if current is None:
                # Paused, skipped, blocked or forgotten since the claim (a peak can hold a
                # claim for many seconds): the day's record stays, nothing is sent.
                report.stopped += 1
                self._buffer_failed(claim)
                return
            claim = current
            send_started = int(self._clock().timestamp())
            try:
                message_id = await self._sender(claim)
            except Forbidden:
                report.blocked += 1
                self._buffer_failed(claim)
                try:
                    await self.store.deactivate(
                        claim.person_id,
                        int(self._clock().timestamp()),
                        unless_changed_after=send_started,
                    )
                except Exception as exc:
                    log.warning("daily: could not mark blocked person: %s", type(exc).__name__)
            except TimedOut:
                # It may have arrived; the record stays claimed and nothing re-sends it.
                report.unknown += 1
                log.warning("daily prompt timed out; left claimed")
            except TelegramError as exc:
                report.failed += 1
                self._buffer_failed(claim)
                log.warning("daily prompt not sent: %s", type(exc).__name__)
            except Exception as exc:
                report.unknown += 1
                log.error("daily prompt send crashed: %s", type(exc).__name__)  # noqa: TRY400 - type only
            else:
                report.sent += 1
                report.resent += int(claim.resend)
                sent_at = int(self._clock().timestamp())
                if not self._sent and not self._failed:
                    self._first_buffered = time.monotonic()
                self._sent.append((claim.person_id, claim.local_date, message_id, sent_at))
        buffered = len(self._sent) + len(self._failed)
        if buffered >= _FLUSH_ROWS or (
            buffered and time.monotonic() - self._first_buffered >= _FLUSH_SECONDS
        ):
            await self._flush(report)

    async def _still_wanted(self, claim: Claim) -> Claim | None:
        """Re-read the person just before sending: settings win over the claim's snapshot."""
        try:
            row = await self.people.store.get(claim.person_id)
            if row is None or not row.active:
                return None
            cipher = await self.people.cipher(claim.person_id)
            if cipher is None:
                return None
            if claim.sealed == (row.profile_enc, row.chat_enc):
                # The very bytes the claim decided on (every change re-seals with a fresh
                # nonce): schedule, skip and cover were checked then; memory's cover is not.
                # Decrypting again was a twentieth of a prompt's CPU (docs/performance.md).
                return None if self._in_cover(claim.person_id) else claim
            profile, chat_id = open_profile(cipher, row.profile_enc, row.chat_enc)
        except (CryptoError, ValueError, TypeError) as exc:
            log.warning("daily: person unreadable before send: %s", type(exc).__name__)
            return None
        if schedule_of(profile) is None or profile.skip_date == claim.local_date:
            return None
        if profile.cover or self._in_cover(claim.person_id):
            return None
        return dataclasses.replace(
            claim,
            chat_id=chat_id,
            neutral=profile.neutral_wording,
            silent=profile.silent,
            count_line=profile.nocontact_in_checkin,
            language=profile.language,
        )

    def _buffer_failed(self, claim: Claim) -> None:
        if not self._sent and not self._failed:
            self._first_buffered = time.monotonic()
        self._failed.append((claim.person_id, claim.local_date))

    async def _flush(self, report: PassReport) -> None:
        sent, failed = self._sent, self._failed
        if not sent and not failed:
            return
        self._sent, self._failed = [], []
        started = time.perf_counter()
        try:
            await self.store.record_results(sent, failed)
        except Exception as exc:
            # The records stay claimed: never re-sent, only their message ids are lost.
            log.error(  # noqa: TRY400 - the type only: a traceback may quote a person's words
                "daily: results not recorded (%d): %s", len(sent), type(exc).__name__
            )
        report.record_seconds += time.perf_counter() - started

    async def _release(self, report: PassReport) -> None:
        claims, self._unsent = self._unsent, []
        if not claims:
            return
        await self.store.release(
            [(c.person_id, c.local_date) for c in claims if not c.resend],
            [(c.person_id, c.local_date) for c in claims if c.resend],
            [
                (c.due_utc, c.local_date, c.person_id, c.next_due_utc, c.next_due_date)
                for c in claims
            ],
        )
        report.released += len(claims)

    # --- one person ---------------------------------------------------------------------

    async def reschedule(self, person: Person) -> None:
        """Recompute the next due instant now (settings changed, paused, back after /start).

        Dates that already have a record are passed over, so moving the time later on a day
        whose prompt went out does not bring a second one.
        """
        schedule = schedule_of(person.profile) if person.active else None
        found: tuple[dt.datetime, dt.date] | None = None
        if schedule is not None:
            after = self._clock()
            for _ in range(_MAX_STEPS):
                found = next_occurrence(schedule, after)
                if found is None:
                    break
                if await self.store.record(person.person_id, found[1].isoformat()) is None:
                    break
                after = found[0]
            else:
                found = None
        due = None if found is None else int(found[0].timestamp())
        day = None if found is None else found[1].isoformat()
        await self.store.reschedule(person.person_id, due, day)
        person.next_due_utc, person.next_due_date = due, day

    async def snooze(self, person: Person, local_date: str) -> Snooze:
        schedule = schedule_of(person.profile) if person.active else None
        if schedule is None:
            return Snooze.OFF
        if person.profile.skip_date == local_date:
            return Snooze.EXPIRED
        latest = await self.store.latest_delivered(person.person_id)
        now = self._clock()
        if latest is None or latest.local_date != local_date:
            return Snooze.EXPIRED
        if now.timestamp() - latest.claimed_at > REPLY_WINDOW.total_seconds():
            return Snooze.EXPIRED
        until = now + SNOOZE
        regular = following(schedule, now, dt.date.fromisoformat(local_date), now)
        if regular is not None and regular[0] <= until:
            return Snooze.EXPIRED
        if not await self.store.snooze(person.person_id, local_date, int(until.timestamp())):
            return Snooze.EXPIRED
        person.next_due_utc, person.next_due_date = int(until.timestamp()), local_date
        return Snooze.SET

    async def skip(self, person: Person, local_date: str) -> None:
        """Skip `local_date`: no prompt that day, no reminder, no journal catch-all."""
        person.profile.skip_date = local_date
        await self.people.save(person)
        await self.reschedule(person)

    async def unskip(self, person: Person) -> None:
        person.profile.skip_date = None
        await self.people.save(person)
        await self.reschedule(person)

    def today(self, person: Person) -> str:
        return local_today(person.profile, self._clock()).isoformat()
