"""What the crisis reply needs without waiting on storage, and what it counts afterwards.

`CrisisCache` holds each known person's country and Silent setting in memory (filled
whenever a person is loaded or saved), so the reply to "help" never waits on the database;
and which worksheet they are answering, so the tier-2 check can stay quiet inside the
safety plan (bot/features/crisis/held.py) without a lookup. `CrisisCounter` keeps the
operator's statistics: a day and a kind, never a person.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from bot.core.recent import Recent
from bot.matching.crisis import CrisisKind
from bot.people.profile import Profile
from bot.storage.people import PeopleStore
from bot.transport.metrics import Metrics

# Safety checks are counted beside the emergency replies, as "check:<kind>".
CHECK_PREFIX = "check:"
ASKS_REMEMBERED = 10_000  # people asked "where are you?" and not answered yet, at most


class CountryAsks:
    """Who was asked for their country from the crisis reply (the kind of reply to send
    again, and until when a typed name counts): memory only, bounded."""

    def __init__(self) -> None:
        self._asked: Recent[str, tuple[CrisisKind, float]] = Recent(ASKS_REMEMBERED)

    def ask(self, person_id: str, kind: CrisisKind, until: float) -> None:
        self._asked[person_id] = (kind, until)

    def asked(self, person_id: str, now: float) -> CrisisKind | None:
        """The kind asked about, while the ask stands (a late one is forgotten here)."""
        found = self._asked.get(person_id)
        if found is None:
            return None
        if now > found[1]:
            self._asked.pop(person_id)
            return None
        return found[0]

    def answered(self, person_id: str) -> None:
        self._asked.pop(person_id)


class CrisisCache:
    """`ttl`: with several replicas, entries older than this count as unknown (then storage
    gets its short lookup budget). Change notices keep entries fresh; the TTL is the
    backstop for a notice missed while the listening connection was down."""

    def __init__(self, ttl: float | None = None, clock: Callable[[], float] = time.monotonic):
        self._country: dict[str, str | None] = {}
        self._silent: dict[str, bool] = {}
        # The stored state (a short code, never words): what the person is answering.
        self._state: dict[str, str] = {}
        self._at: dict[str, float] = {}
        self._ttl = ttl
        self._clock = clock
        self.country_asks = CountryAsks()

    def knows(self, person_id: str) -> bool:
        if person_id not in self._country:
            return False
        if self._ttl is None:
            return True
        return self._clock() - self._at.get(person_id, 0.0) <= self._ttl

    def country(self, person_id: str) -> str | None:
        return self._country.get(person_id)

    def silent(self, person_id: str) -> bool:
        """A phone that rings can be dangerous: unknown people get the default (not silent)."""
        return self._silent.get(person_id, False)

    def state(self, person_id: str) -> str:
        """What waits for this person's text, as stored ("": nothing, or not known: the
        person has not been read since the start); its owner's codec reads it."""
        return self._state.get(person_id, "")

    def remember_country(self, person_id: str, country: str) -> None:
        """A country chosen from the crisis reply, kept before (and whether or not) storage
        has it; the Silent setting stays as it was."""
        self._country[person_id] = country

    # PersonListener
    def seen(self, person_id: str, profile: Profile, state: str) -> None:
        self._country[person_id] = profile.country
        self._silent[person_id] = profile.silent
        if state:
            self._state[person_id] = state
        else:
            self._state.pop(person_id, None)
        if self._ttl is not None:
            self._at[person_id] = self._clock()

    def forgotten(self, person_id: str) -> None:
        self._country.pop(person_id, None)
        self._silent.pop(person_id, None)
        self._state.pop(person_id, None)
        self._at.pop(person_id, None)


class CrisisCounter:
    def __init__(self, store: PeopleStore, metrics: Metrics | None = None) -> None:
        self._store = store
        self._metrics = metrics

    async def count(self, day: str, kind: str) -> None:
        """One emergency reply of this kind on this day."""
        if self._metrics is not None:  # first: the stored count may fail with storage
            self._metrics.crisis_replies.labels(kind=kind).inc()
        await self._store.count_crisis(day, kind)

    async def count_check(self, day: str, kind: str) -> None:
        """One "Are you safe right now?" check, for the kind that was found."""
        await self._store.count_crisis(day, CHECK_PREFIX + kind)
