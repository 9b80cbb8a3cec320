"""Riding the wave's own fields in the sealed profile (bot/people/profile.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from bot.people.profile import Record


@dataclass
class UrgePrefs(Record):
    KEY: ClassVar[str] = "urge"

    # The pull-back offer (issue 15): at most once a local day, off with a tap.
    urge_offers: bool = True
    urge_offered_on: str | None = None  # the local date it was last offered
