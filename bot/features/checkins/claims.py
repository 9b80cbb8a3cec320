"""Claiming a batch of due check-ins: read, decide, and record each one in one go.

Exactly once per local day
    A claim is one transaction that re-checks each row it read, writes the delivery
    record `(person_id, local_date)` (primary key) and advances `next_due_*` to the next
    local occurrence. A second claim of the same date cannot happen: the record exists, and
    a row that comes due again for a date that has a record is only advanced.

Two dispatchers (PostgreSQL)
    With paid broadcasts two replicas claim at once. There the batch is read, decided and
    written in one transaction whose read locks its rows (FOR UPDATE SKIP LOCKED), so the
    other dispatcher's read passes over them and takes the next rows: the batches are
    disjoint, and nobody's row is read and decrypted by both. A handler saving one of
    those people waits for the claim (a batch's decryption, tens of ms).

One writer (SQLite)
    The batch is read and decided outside the write lock, and only re-checked and written
    inside it (BEGIN IMMEDIATE), so handlers never wait behind the decryption; a row that
    changed in between is a conflict, left for the next batch.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.content.prompt_model import Prompt
from bot.core.clock import Clock
from bot.crypto import CryptoError, PersonCipher
from bot.features.checkins.policy import (
    Action,
    Claim,
    PassReport,
    PromptPicker,
    decide,
    following,
    schedule_of,
)
from bot.features.checkins.prefs import READS, CheckinPrefs
from bot.features.checkins.schedule import DailySchedule, local_date_of
from bot.features.progress.prefs import NoContactPrefs
from bot.people.service import PeopleService, open_profile
from bot.storage.deliveries import (
    CLAIMED,
    SKIPPED,
    SNOOZED,
    ClaimTransaction,
    ClaimWrites,
    DeliveryRow,
    DeliveryStore,
    DueRow,
    Version,
)

log = logging.getLogger(__name__)


_Next = tuple[dt.datetime, dt.date] | None


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
    country: str | None = None


class Claimer:
    """Turns due rows into claims: what to do with each (policy.py), the prompt it gets,
    and the records and advances, written in one transaction."""

    def __init__(
        self,
        *,
        people: PeopleService,
        store: DeliveryStore,
        prompts: Sequence[Prompt],
        clock: Clock,
        in_cover: Callable[[str], bool],
        batch_size: int,
        grace: dt.timedelta,
    ) -> None:
        self.people = people
        self.store = store
        self._by_id = {p.id: p for p in prompts}
        self._pick = PromptPicker(prompts)
        self._clock = clock
        self.in_cover = in_cover
        self._batch_size = batch_size
        self._grace = grace
        # A batch's next occurrences, by (schedule, due, date) at the batch's `now`: at a
        # peak most people share a few of them, and finding one walks the time zone's rules.
        self._next: dict[tuple[DailySchedule, dt.datetime, dt.date], _Next] = {}

    def _following(
        self, schedule: DailySchedule, due: dt.datetime, day: dt.date, now: dt.datetime
    ) -> _Next:
        key = (schedule, due, day)
        if key not in self._next:
            self._next[key] = following(schedule, due, day, now)
        return self._next[key]

    async def batch(self, report: PassReport) -> tuple[list[Claim], bool]:
        """Claim the next batch of due rows; whether more may be due after it."""
        started = time.perf_counter()
        now = self._clock()
        self._next.clear()  # kept for one `now` only
        claims: list[Claim] = []
        conflicts = 0
        if self.store.locks_rows:
            async with self.store.claiming() as tx:
                rows = await tx.due(int(now.timestamp()), self._batch_size)
                plans = await self._plans(rows, now, tx)
                # The rows are locked since the read: only their delivery records can
                # have moved (a snooze), and the status check sees that.
                if plans:
                    claims, conflicts = await self._write_claims(tx, plans, now, report, None)
        else:
            rows = await self.store.due(int(now.timestamp()), self._batch_size)
            # Decrypting and planning happen before the write lock is taken; the
            # transaction only re-checks and writes, so handlers never wait behind it.
            plans = await self._plans(rows, now, None)
            if plans:
                async with self.store.claiming() as tx:
                    versions = await tx.versions([p.row.person_id for p in plans])
                    claims, conflicts = await self._write_claims(tx, plans, now, report, versions)
        report.due += len(rows)
        report.conflicts += conflicts
        report.claim_seconds += time.perf_counter() - started
        more = len(rows) == self._batch_size and conflicts < len(rows)
        return claims, more

    async def _plans(
        self, rows: list[DueRow], now: dt.datetime, tx: ClaimTransaction | None
    ) -> list[_Plan]:
        if not rows:
            return []
        ids = [r.person_id for r in rows]
        ciphers = await self.people.ciphers(ids)
        histories = await (tx.histories(ids) if tx is not None else self.store.histories(ids))
        return [self._plan(r, ciphers.get(r.person_id), histories[r.person_id], now) for r in rows]

    async def _write_claims(
        self,
        tx: ClaimTransaction,
        plans: list[_Plan],
        now: dt.datetime,
        report: PassReport,
        versions: dict[str, Version] | None,
    ) -> tuple[list[Claim], int]:
        """Re-check each plan against what storage holds now, then write the batch. With
        `versions` (SQLite: the rows were read outside this transaction) a row that moved
        since it was read is a conflict too."""
        now_ts = int(now.timestamp())
        claims: list[Claim] = []
        writes = ClaimWrites([], [], [], [])
        conflicts = 0
        statuses = await tx.statuses([(p.row.person_id, p.row.next_due_date) for p in plans])
        for plan in plans:
            row = plan.row
            if versions is not None:
                read = Version(
                    row.next_due_utc, row.next_due_date, True, row.profile_enc, row.chat_enc
                )
                if versions.get(row.person_id) != read:
                    conflicts += 1
                    continue
            if statuses.get((row.person_id, row.next_due_date)) != plan.existing:
                conflicts += 1
                continue
            claim = self._write(plan, writes, now_ts, report)
            if claim is not None:
                claims.append(claim)
        await tx.write(writes)
        return claims, conflicts

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
            profile, chat_id = open_profile(cipher, row.profile_enc, row.chat_enc, reading=READS)
        except (CryptoError, ValueError, TypeError) as exc:
            log.warning("daily: unreadable person row, prompts stop: %s", type(exc).__name__)
            return stop
        schedule = schedule_of(profile)
        prefs = profile.part(CheckinPrefs)
        action = decide(
            scheduled=schedule is not None,
            due=due,
            now=now,
            local_date=row.next_due_date,
            skip_date=prefs.skip_date,
            existing=existing,
            grace=self._grace,
        )
        nxt = None
        if schedule is not None:
            try:
                day = dt.date.fromisoformat(row.next_due_date)
            except ValueError:
                day = local_date_of(due, schedule.timezone)
            nxt = self._following(schedule, due, day, now)
        if profile.cover or self.in_cover(row.person_id):
            # In cover nothing arrives unprompted: the day is skipped, not missed (a snoozed
            # one stays as sent), and the next occurrence after the cover goes out as usual.
            action = {Action.SEND: Action.SKIP, Action.RESEND: Action.RESTORE}.get(action, action)
        plan = _Plan(row, action, existing, nxt, None, chat_id, profile.neutral_wording)
        plan.silent = profile.silent
        plan.count_line = profile.part(NoContactPrefs).nocontact_in_checkin
        plan.language = profile.language
        plan.country = profile.country
        if action is Action.SEND:
            plan.prompt = self._pick(history, row.person_id, row.next_due_date)
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
                country=plan.country,
                sealed=(row.profile_enc, row.chat_enc),
            )
        return None
