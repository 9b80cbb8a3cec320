"""The record's own fields in the sealed profile (bot/people/profile.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from bot.people.profile import Record


@dataclass
class RecordPrefs(Record):
    KEY: ClassVar[str] = "record"

    # The look-back offer (bot/features/record/service.py): on until turned off with one
    # tap; the local date it was last made (at most once a day).
    record_offers: bool = True
    record_offered_on: str | None = None
