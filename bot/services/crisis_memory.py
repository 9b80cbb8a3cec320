"""What the crisis reply needs without waiting on storage, and what it counts afterwards.

`CrisisCache` holds each known person's country and Silent setting in memory (filled
whenever a person is loaded or saved), so the reply to "help" never waits on the database;
and which worksheet they are answering, so the tier-2 check can stay quiet inside the
safety plan (bot/services/crisis_capture.py) without a lookup. `CrisisCounter` keeps the
operator's statistics: a day and a kind, never a person.
"""

from __future__ import annotations

from bot.core.state import worksheet_state
from bot.services.people import Profile
from bot.storage.people import PeopleStore

# Safety checks are counted beside the emergency replies, as "check:<kind>".
CHECK_PREFIX = "check:"


class CrisisCache:
    def __init__(self) -> None:
        self._country: dict[str, str | None] = {}
        self._silent: dict[str, bool] = {}
        self._answering: dict[str, str] = {}

    def knows(self, person_id: str) -> bool:
        return person_id in self._country

    def country(self, person_id: str) -> str | None:
        return self._country.get(person_id)

    def silent(self, person_id: str) -> bool:
        """A phone that rings can be dangerous: unknown people get the default (not silent)."""
        return self._silent.get(person_id, False)

    def answering(self, person_id: str) -> str | None:
        """The worksheet whose question waits for this person's text (None: none, or not
        known: the person has not been read since the start)."""
        return self._answering.get(person_id)

    def remember_country(self, person_id: str, country: str) -> None:
        """A country chosen from the crisis reply, kept before (and whether or not) storage
        has it; the Silent setting stays as it was."""
        self._country[person_id] = country

    # PersonListener
    def seen(self, person_id: str, profile: Profile, state: str) -> None:
        self._country[person_id] = profile.country
        self._silent[person_id] = profile.silent
        step = worksheet_state(state)
        if step is not None:
            self._answering[person_id] = step.worksheet_id
        else:
            self._answering.pop(person_id, None)

    def forgotten(self, person_id: str) -> None:
        self._country.pop(person_id, None)
        self._silent.pop(person_id, None)
        self._answering.pop(person_id, None)


class CrisisCounter:
    def __init__(self, store: PeopleStore) -> None:
        self._store = store

    async def count(self, day: str, kind: str) -> None:
        """One emergency reply of this kind on this day."""
        await self._store.count_crisis(day, kind)

    async def count_check(self, day: str, kind: str) -> None:
        """One "Are you safe right now?" check, for the kind that was found."""
        await self._store.count_crisis(day, CHECK_PREFIX + kind)
