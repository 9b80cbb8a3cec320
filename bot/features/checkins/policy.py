"""What the check-in pass does with each due person, and how fast it may send.

Pure decisions, no I/O: the rates and batch limits the pass engine (delivery.py) runs at,
the grace for late prompts, what a due row becomes (`decide`), when the next one falls
(`following`), which prompt goes out (`pick_prompt`), and the `Claim` the engine hands to
the sender (sender.py) with the `Sender` it calls. docs/scheduling.md has the design.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import Enum

from bot.content.prompt_model import Prompt, choose_next_prompt, current_cycle
from bot.features.checkins.prefs import CheckinPrefs
from bot.features.checkins.schedule import (
    DailySchedule,
    is_valid_timezone,
    lateness_allowed,
    local_date_of,
    next_occurrence,
    parse_local_time,
)
from bot.people.profile import Profile
from bot.storage.deliveries import DELIVERED, SENT, SNOOZED, DeliveryRow
from bot.transport.send_outcome import SendOutcome

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
FLUSH_ROWS = 200
FLUSH_SECONDS = 1.0
# Results a failed write keeps for the next try (a few MB at most): the prompts of a long
# storage outage, beyond which the oldest are dropped.
UNRECORDED_KEPT = 20_000
# next_occurrence steps one date at a time; a handful of dates already recorded is the most
# a real history produces (a time change on a day that already had its prompt).
MAX_STEPS = 8


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
    prefs = profile.part(CheckinPrefs)
    if not prefs.daily_enabled or prefs.paused or not profile.onboarded:
        return None
    if prefs.daily_time is None or profile.timezone is None:
        return None
    return _schedule(prefs.daily_time, profile.timezone, tuple(prefs.daily_days))


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
    for _ in range(MAX_STEPS):
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
    return PromptPicker(prompts)(history, person_id, local_date)


class PromptPicker:
    """`pick_prompt` over one set of prompts, with what depends on the set alone worked out
    once: a pass picks for thousands of people from the same prompts."""

    def __init__(self, prompts: Sequence[Prompt]) -> None:
        if not prompts:
            raise ValueError("no prompts to choose from")
        self._prompts = tuple(prompts)

    def __call__(self, history: Sequence[DeliveryRow], person_id: str, local_date: str) -> Prompt:
        ids = [d.prompt_id for d in history if d.status in DELIVERED and d.prompt_id]
        rng = random.Random(f"{person_id}|{local_date}")  # noqa: S311 - variety, not secrecy
        if not ids:
            # Nothing sent yet: every prompt is fresh, as choose_next_prompt would find.
            return rng.choice(self._prompts)
        cycle = current_cycle(ids, self._prompts)
        return choose_next_prompt(self._prompts, cycle, rng, last_sent=ids[-1])


# --- what the pass hands around ---------------------------------------------------------


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
    country: str | None = None  # picks a regional variant (pt in Portugal)
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
    released: int = 0  # shutdown came before the send started (or during its pause)
    conflicts: int = 0  # changed between read and claim; retried next batch
    claim_seconds: float = 0.0
    record_seconds: float = 0.0
    seconds: float = 0.0
    standby: bool = False  # another replica holds the dispatcher's lock: nothing was read
    backlog: int = 0  # due at the start of the pass
    drain_seconds: float = 0.0  # the backlog at the send rate


# A day's prompt is out in the chat (it can be snoozed; skipping it skips a sent one).
PROMPT_OUT = (SENT, SNOOZED)


class Snooze(Enum):
    SET = "set"
    EXPIRED = "expired"  # not the latest prompt, too old, skipped, or the next one is sooner
    OFF = "off"  # check-ins are off or paused


# How the pass sends one claimed prompt (sender.py builds the real one): what became of it.
Sender = Callable[[Claim], Awaitable[SendOutcome]]
