"""Writing a record entry, without Telegram: what a typed answer at each step means, when
it happened from a typed phrase or a button, which step a button leads to, and when an
old button has expired.

bot/features/record/handlers/steps.py asks and gets an outcome back; it sends what the outcome says
(views from bot/features/record/views.py). The entry's data is RecordService's
(bot/features/record/service.py,
which also writes down how an entry is written as a person sees it). Unit-tested in
tests/unit/features/record/test_record_flow.py, end to end in tests/e2e/test_record.py.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from bot.features.record.dates import MINUTE, parse_when
from bot.features.record.service import (
    AMEND,
    FILES,
    STEPS,
    WHEN,
    FullEntry,
    RecordService,
    next_step,
)
from bot.features.record.state import RecordState, record_state
from bot.people.service import Person

# How far back the day and hour pickers go (a forged number goes no further).
MAX_DAYS_PAGE = 520
MAX_DAYS_BACK = 3650
# `day` buttons at or above this carry a day with no time: 1000 + days back.
DAY_ONLY = 1000

# --- outcomes -------------------------------------------------------------------------


@dataclass(frozen=True)
class Gone:
    """The entry left meanwhile (deleted elsewhere): nothing waits any more."""


@dataclass(frozen=True)
class Expired:
    """A button for a step the person is no longer on."""


@dataclass(frozen=True)
class Unclear:
    """Typed at "when" but names no day we can use: say `key` and wait."""

    key: str


@dataclass(frozen=True)
class KeptAsWhat:
    """Crisis words typed at "when": their words matter more than the date, so they are
    kept as what happened; the next question waits for "Continue"."""


@dataclass(frozen=True)
class WhenSet:
    entry_id: str
    entry: FullEntry | None  # as read back, for its label


@dataclass(frozen=True)
class PartSaved:
    """One part of the step's answer (or an amendment) is stored."""

    step: str
    count: int


@dataclass(frozen=True)
class DayPicker:
    today: dt.date
    page: int


@dataclass(frozen=True)
class HourPicker:
    day: dt.date
    back: int  # days before today
    last: int  # the last hour offered (now's, today)


@dataclass(frozen=True)
class Ask:
    """Show the question of `step`; None: the entry is finished."""

    step: str | None


Typed = Gone | Unclear | KeptAsWhat | WhenSet | PartSaved
Pressed = Expired | WhenSet | DayPicker | HourPicker


class RecordFlow:
    def __init__(self, record: RecordService) -> None:
        self._record = record

    def current(self, person: Person, entry_id: str, step: str | None = None) -> RecordState | None:
        """The step on screen, if it is this entry's (and `step`, when named)."""
        state = record_state(person.state)
        if state is None or state.entry_id != entry_id:
            return None
        if step is not None and state.step != step:
            return None
        return state

    # --- typed answers --------------------------------------------------------------

    async def typed(
        self,
        person: Person,
        state: RecordState,
        message_id: int,
        text: str,
        *,
        languages: Sequence[str],
        crisis: bool,
    ) -> Typed:
        """A message typed while `state` waits; stored before anything is sent back.
        `languages`: those a typed date is read in, the person's first; `crisis`: the
        message triggered the crisis reply."""
        record = self._record
        if not await record.exists(person, state.entry_id):
            await record.leave(person)
            return Gone()
        if state.step == WHEN:
            today = record.today(person)
            found = parse_when(text, languages, today, country=person.profile.country)
            if found is None or found.day > today:
                if crisis:
                    await record.add_text(person, state.entry_id, "what", message_id, text)
                    return KeptAsWhat()
                return Unclear("record.when_unclear" if found is None else "record.when_future")
            local, precision = record.local_moment(person, found.day, found.time)
            if local > record.local_now(person):
                local, precision = record.local_now(person), MINUTE
            return await self.set_when(person, state.entry_id, local, precision)
        count = await record.add_text(person, state.entry_id, state.step, message_id, text)
        return PartSaved(state.step, count)

    async def set_when(
        self, person: Person, entry_id: str, local: dt.datetime, precision: int
    ) -> WhenSet:
        await self._record.set_when(person, entry_id, local, precision)
        return WhenSet(entry_id, await self._record.read(person, entry_id))

    # --- buttons --------------------------------------------------------------------

    async def when_pressed(
        self, person: Person, entry_id: str, action: str, n: int
    ) -> Pressed | None:
        """The "when" step's buttons: now, a day (no time), an hour of a day, or a
        picker to choose them from; None for a moment that cannot be (forged data)."""
        record = self._record
        if self.current(person, entry_id, WHEN) is None:
            return Expired()
        today, now = record.today(person), record.local_now(person)
        if action == "now":
            return await self.set_when(person, entry_id, now, MINUTE)
        if action == "day" and n >= DAY_ONLY:  # a day, time unknown
            day = today - dt.timedelta(days=n - DAY_ONLY)
            return await self.set_when(person, entry_id, *record.local_moment(person, day, None))
        if action == "hour":
            back, hour = divmod(n, 100)
            if hour > 23:
                return None
            day = today - dt.timedelta(days=back)
            local, precision = record.local_moment(person, day, dt.time(hour, 0))
            if local > now:
                return None
            return await self.set_when(person, entry_id, local, precision)
        if action == "days":
            return DayPicker(today, min(n, MAX_DAYS_PAGE))
        back = 0 if action == "today" else min(n, MAX_DAYS_BACK)
        return HourPicker(today - dt.timedelta(days=back), back, now.hour if back == 0 else 23)

    def step_pressed(self, person: Person, entry_id: str, n: int) -> Ask | Expired:
        """Skip, Next or Continue from step number `n`: only from the step on screen."""
        state = self.current(person, entry_id)
        if state is None or not 0 <= n < len(STEPS) or state.step != STEPS[n]:
            return Expired()
        return Ask(next_step(STEPS[n]))

    def done_pressed(self, person: Person, entry_id: str) -> Ask | Expired:
        """Done on the files step: the entry is finished."""
        return Ask(None) if self.current(person, entry_id, FILES) is not None else Expired()

    async def resume(self, person: Person, entry_id: str) -> Ask | Expired:
        entry = await self._record.read(person, entry_id)
        if entry is None or entry.finished_at is not None:
            return Expired()
        return Ask(self._record.resume_step(person, entry))

    async def amend_done(self, person: Person, entry_id: str) -> FullEntry | None:
        if self.current(person, entry_id, AMEND) is not None:
            await self._record.leave(person)
        return await self._record.read(person, entry_id)
