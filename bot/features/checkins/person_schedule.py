"""One person's check-in schedule: the next due instant, snoozes and skipped days.

What a handler changes for one person (settings, "Remind me in an hour", "Skip today"),
as opposed to the pass (delivery.py), which sends everyone due. Both write the same
`people.next_due_*` and delivery records (docs/scheduling.md).
"""

from __future__ import annotations

import datetime as dt

from bot.core.clock import Clock
from bot.features.checkins.policy import (
    MAX_STEPS,
    REPLY_WINDOW,
    SNOOZE,
    Snooze,
    following,
    local_today,
    schedule_of,
)
from bot.features.checkins.prefs import CheckinPrefs
from bot.features.checkins.schedule import next_occurrence
from bot.people.service import PeopleService, Person
from bot.storage.deliveries import DeliveryRow, DeliveryStore


class PersonSchedule:
    def __init__(self, *, people: PeopleService, store: DeliveryStore, clock: Clock) -> None:
        self.people = people
        self.store = store
        self._clock = clock

    async def record(self, person_id: str, local_date: str) -> DeliveryRow | None:
        """The person's delivery of `local_date`, if one was planned or sent."""
        return await self.store.record(person_id, local_date)

    async def reschedule(self, person: Person) -> None:
        """Recompute the next due instant now (settings changed, paused, back after /start).

        Dates that already have a record are passed over, so moving the time later on a day
        whose prompt went out does not bring a second one.
        """
        schedule = schedule_of(person.profile) if person.active else None
        found: tuple[dt.datetime, dt.date] | None = None
        if schedule is not None:
            after = self._clock()
            for _ in range(MAX_STEPS):
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
        if person.profile.part(CheckinPrefs).skip_date == local_date:
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
        person.profile.part(CheckinPrefs).skip_date = local_date
        await self.people.save(person)
        await self.reschedule(person)

    async def unskip(self, person: Person) -> None:
        person.profile.part(CheckinPrefs).skip_date = None
        await self.people.save(person)
        await self.reschedule(person)

    def today(self, person: Person) -> str:
        return local_today(person.profile, self._clock()).isoformat()
