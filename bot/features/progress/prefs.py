"""The no-contact count's own field in the sealed profile (bot/people/profile.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from bot.people.profile import Record


@dataclass
class NoContactPrefs(Record):
    KEY: ClassVar[str] = "no_contact"

    nocontact_in_checkin: bool = False  # the no-contact day under the daily check-in
