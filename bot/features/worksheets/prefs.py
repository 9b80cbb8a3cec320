"""The worksheets' own fields in the sealed profile (bot/people/profile.py): the one
being filled in, and one a deep link opened before onboarding ended."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from bot.people.profile import Record


@dataclass
class WorksheetPrefs(Record):
    KEY: ClassVar[str] = "worksheets"

    active_worksheet: str | None = None
    pending_worksheet: str | None = None  # opened by a deep link before onboarding ended
