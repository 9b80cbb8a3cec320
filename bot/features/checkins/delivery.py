"""Daily prompts: find who is due, claim one prompt per person per local day, send, record.

How it runs
    One repeating PTB job (`tick`, every `TICK`) starts a dispatch pass when none is
    running. A pass (`run_once`) claims due people in batches of `BATCH_SIZE`, queues the
    sends for `CONCURRENCY` workers (the app's SendPolicy and rate limiter pace them),
    claims the next batch once the queue runs low, and stops when nobody is due.
    There is no job per person: start-up costs nothing per person, and the due instants
    live in `people.next_due_utc` (indexed), so a restart loses no schedule.

Claiming (claims.py)
    A batch is read, decided and recorded in one claim: exactly once per person and local
    date, and on PostgreSQL disjoint between two dispatchers.

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

What a send did
    The sender (sender.py) returns a `SendOutcome` from the transport edge
    (bot/transport/send_outcome.py): delivered, or undelivered with a `Failure`. The pass
    acts on it: blocked marks the person inactive, unknown (a timeout) leaves the record
    claimed, stopped (shutdown during a 429 pause) releases the claim like a send that never
    started, and every other failure is recorded `failed`. This module knows no Telegram.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any

from bot.content.prompt_model import Prompt
from bot.core.clock import Clock
from bot.crypto import CryptoError
from bot.features.checkins.claims import Claimer
from bot.features.checkins.person_schedule import PersonSchedule
from bot.features.checkins.policy import (
    BATCH_SIZE,
    BULK_RATE,
    CONCURRENCY,
    FLUSH_ROWS,
    FLUSH_SECONDS,
    GRACE,
    UNRECORDED_KEPT,
    Claim,
    PassReport,
    Sender,
    concurrency_for,
    rate_for,
    schedule_of,
)
from bot.features.checkins.prefs import READS, CheckinPrefs
from bot.features.progress.prefs import NoContactPrefs
from bot.people.service import PeopleService, open_profile
from bot.storage.backend import Leadership, SoleLeadership
from bot.storage.deliveries import DeliveryStore, Version
from bot.storage.people import ChangeWatch
from bot.transport.send_outcome import Delivered, Failure, SendOutcome

# What the app and tests took from here before the split (the names' homes are policy.py).
__all__ = ["GRACE", "Claim", "Dispatcher", "PassReport", "concurrency_for", "rate_for"]

log = logging.getLogger(__name__)

Spawn = Callable[[Coroutine[Any, Any, None]], "asyncio.Task[None]"]
# Re-reads taken together at most (a query's host parameters stay far below the limits).
_REREAD_MOST = 256


class _Rereads:
    """The re-reads before sends, taken together: every worker whose turn comes in the same
    turn of the event loop joins one query instead of one query each. Each row is still
    read after every send that finished before its own send starts."""

    def __init__(self, read: Callable[[list[str]], Awaitable[dict[str, Version]]]) -> None:
        self._read = read
        self._waiting: dict[str, asyncio.Future[Version | None]] | None = None

    async def get(self, person_id: str) -> Version | None:
        waiting = self._waiting
        if waiting is not None and person_id not in waiting:
            future: asyncio.Future[Version | None] = asyncio.get_running_loop().create_future()
            waiting[person_id] = future
            return await future
        waiting = self._waiting = {}
        try:
            # The others whose turn comes join while they keep coming, turn after turn
            # (answers from Telegram arrive spread over a few turns of the loop).
            joined = -1
            while joined != len(waiting) and len(waiting) < _REREAD_MOST:
                joined = len(waiting)
                await asyncio.sleep(0)
        finally:
            self._waiting = None
        try:
            found = await self._read([person_id, *waiting])
        except BaseException as exc:
            for future in waiting.values():
                if not future.done():
                    future.set_exception(exc)
            raise
        for pid, future in waiting.items():
            if not future.done():
                future.set_result(found.get(pid))
        return found.get(person_id)


class Dispatcher(PersonSchedule):
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
        super().__init__(people=people, store=store, clock=clock)
        # Memory's word on the panic cover (it is entered before storage hears of it).
        self._in_cover = in_cover
        self._claimer = Claimer(
            people=people,
            store=store,
            prompts=prompts,
            clock=clock,
            in_cover=in_cover,
            batch_size=batch_size,
            grace=grace,
        )
        self._sender = sender
        self._is_running = is_running
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
        self._failed: list[tuple[str, str, int]] = []
        self._first_buffered = 0.0
        self._retry_at = 0.0  # after a failed flush, the next try waits (storage is down)
        self._unsent: list[Claim] = []
        self._rereads = _Rereads(store.current)
        self._changes: ChangeWatch | None = None

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
                # What this replica sent as leader and could not write yet is still its own
                # to write (storage back, another replica leading now).
                await self._flush(report)
                report.standby = True
                if self._observe is not None:
                    self._observe(report)
                return report
            await self._measure_backlog(report)
            started = time.perf_counter()
            await self._claim_and_send(report)
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

    async def _claim_and_send(self, report: PassReport) -> None:
        """Batches go into a queue that `concurrency` workers send from (a fixed pool, not
        a task per prompt). The next batch is claimed only when the queue runs low: a crash
        then loses at most what is queued, and lateness is judged near send time."""
        queue: deque[Claim] = deque()
        low_water = max(self._concurrency, self._batch_size // 4)
        room, more = asyncio.Event(), asyncio.Event()
        claiming = True

        async def work() -> None:
            while True:
                if queue:
                    claim = queue.popleft()
                    if len(queue) <= low_water:
                        room.set()
                    try:
                        await self._deliver(claim, report)
                    except Exception as exc:
                        # A worker must outlive one bad send (the pass waits on the pool):
                        # the record stays claimed, as after a crash, and is never re-sent.
                        report.unknown += 1
                        log.error("daily prompt not handled: %s", type(exc).__name__)  # noqa: TRY400 - type only
                elif not claiming:
                    return
                else:
                    more.clear()
                    await more.wait()

        # Opened before the first claim reads a row: anyone changed after their claim's
        # read is in it.
        with self.people.store.watch() as changes:
            self._changes = changes
            workers = [asyncio.create_task(work()) for _ in range(self._concurrency)]
            try:
                while self._is_running() and await self._leadership.hold():
                    claims, again = await self._claimer.batch(report)
                    queue.extend(claims)
                    more.set()
                    if not again:
                        break
                    while len(queue) > low_water:
                        room.clear()
                        await room.wait()
            finally:
                claiming = False
                more.set()
                await asyncio.gather(*workers, return_exceptions=True)
                self._changes = None
        await self._flush(report)
        await self._release(report)

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
        """Write what a failed flush kept, then give up the dispatcher's lock, so a standby
        replica takes over at its next tick. A pass still running flushes at its own end."""
        if not self._lock.locked():
            await self._flush(PassReport())
        await self._leadership.close()

    async def claim(self) -> list[Claim]:
        """Claim one batch without sending it: for tests that stage a crash after a claim."""
        async with self._lock:
            claims, _ = await self._claimer.batch(PassReport())
            return claims

    async def _deliver(self, claim: Claim, report: PassReport) -> None:
        if not self._is_running():
            self._unsent.append(claim)
            return
        current = await self._still_wanted(claim)
        if current is None:
            # Paused, skipped, blocked or forgotten since the claim (a peak can hold a
            # claim for many seconds): the day's record stays, nothing is sent.
            report.stopped += 1
            self._buffer_failed(claim)
        else:
            await self._send(current, report)
        buffered = len(self._sent) + len(self._failed)
        now = time.monotonic()
        if (
            buffered
            and now >= self._retry_at
            and (buffered >= FLUSH_ROWS or now - self._first_buffered >= FLUSH_SECONDS)
        ):
            await self._flush(report)

    async def _send(self, claim: Claim, report: PassReport) -> None:
        send_started = int(self._clock().timestamp())
        try:
            outcome: SendOutcome = await self._sender(claim)
        except Exception as exc:
            # A fault of ours, not Telegram's answer: whether it went out is unknown.
            report.unknown += 1
            log.error("daily prompt send crashed: %s", type(exc).__name__)  # noqa: TRY400 - type only
            return
        if isinstance(outcome, Delivered):
            report.sent += 1
            report.resent += int(claim.resend)
            if not self._sent and not self._failed:
                self._first_buffered = time.monotonic()
            sent_at = int(self._clock().timestamp())
            self._sent.append((claim.person_id, claim.local_date, outcome.message_id, sent_at))
            return
        failure = outcome.failure
        if failure is Failure.UNKNOWN:
            # It may have arrived; the record stays claimed and nothing re-sends it.
            report.unknown += 1
            log.warning("daily prompt timed out; left claimed")
        elif failure is Failure.STOPPED:
            self._unsent.append(claim)  # certainly not sent: released with the unstarted
        elif failure is Failure.BLOCKED:
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
        else:
            report.failed += 1
            self._buffer_failed(claim)
            log.warning("daily prompt not sent: %s (%s)", failure.value, outcome.reason)

    async def _still_wanted(self, claim: Claim) -> Claim | None:
        """Re-read the person just before sending: settings win over the claim's snapshot.
        Only those changed since the claim need it, when this process sees every change
        (SQLite); with replicas every row is read again."""
        changes = self._changes
        if changes is not None and changes.complete and claim.person_id not in changes.changed:
            # Nothing written since the claim read the row; memory's cover is asked still.
            return None if self._in_cover(claim.person_id) else claim
        try:
            row = await self._rereads.get(claim.person_id)
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
            profile, chat_id = open_profile(cipher, row.profile_enc, row.chat_enc, reading=READS)
        except (CryptoError, ValueError, TypeError) as exc:
            log.warning("daily: person unreadable before send: %s", type(exc).__name__)
            return None
        if schedule_of(profile) is None or profile.part(CheckinPrefs).skip_date == claim.local_date:
            return None
        if profile.cover or self._in_cover(claim.person_id):
            return None
        return dataclasses.replace(
            claim,
            chat_id=chat_id,
            neutral=profile.neutral_wording,
            silent=profile.silent,
            count_line=profile.part(NoContactPrefs).nocontact_in_checkin,
            language=profile.language,
        )

    def _buffer_failed(self, claim: Claim) -> None:
        if not self._sent and not self._failed:
            self._first_buffered = time.monotonic()
        self._failed.append((claim.person_id, claim.local_date, int(self._clock().timestamp())))

    async def _flush(self, report: PassReport) -> None:
        sent, failed = self._sent, self._failed
        if not sent and not failed:
            return
        self._sent, self._failed = [], []
        started = time.perf_counter()
        try:
            await self.store.record_results(sent, failed)
        except Exception as exc:
            # The records stay claimed, so none is sent twice; what the write would have
            # kept is a prompt's message id, which /clear needs to delete it from the chat
            # and a Telegram reply needs to be read as that day's journal entry. Kept here
            # for the next flush (a result written twice, or after a newer claim of its
            # day, changes nothing: record_results), up to a bound; past it the oldest
            # go, said in the log.
            self._keep_unrecorded(sent, failed)
            log.error(  # noqa: TRY400 - the type only: a traceback may quote a person's words
                "daily: results not recorded (%d), kept to retry (%d): %s",
                len(sent) + len(failed),
                len(self._sent) + len(self._failed),
                type(exc).__name__,
            )
            self._retry_at = time.monotonic() + FLUSH_SECONDS
        report.record_seconds += time.perf_counter() - started

    def _keep_unrecorded(
        self, sent: list[tuple[str, str, int, int]], failed: list[tuple[str, str, int]]
    ) -> None:
        self._sent, self._failed = sent + self._sent, failed + self._failed
        over = len(self._sent) + len(self._failed) - UNRECORDED_KEPT
        if over > 0:
            from_failed = min(over, len(self._failed))
            del self._failed[:from_failed]
            del self._sent[: over - from_failed]
            log.error("daily: %d results dropped unrecorded (storage down too long)", over)
        self._first_buffered = time.monotonic()

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
