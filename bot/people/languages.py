"""Each known person's chosen language, in memory, so a reply that cannot wait on storage
(the crisis reply) still speaks it. A PeopleService listener: filled whenever a person is
read or saved, emptied when they are forgotten. The choice itself is sealed in the
profile; this holds nothing that outlives the process."""

from __future__ import annotations

from bot.people.profile import Profile


class LanguageCache:
    def __init__(self) -> None:
        self._chosen: dict[str, str | None] = {}

    def chosen(self, person_id: str) -> str | None:
        return self._chosen.get(person_id)

    # PersonListener
    def seen(self, person_id: str, profile: Profile, state: str) -> None:
        self._chosen[person_id] = profile.language

    def forgotten(self, person_id: str) -> None:
        self._chosen.pop(person_id, None)
