"""The daily check-in's own settings in the sealed profile (bot/people/profile.py): when
it comes, on which days, whether it is on or paused, and the day-by-day marks. Written by
the check-ins and by the settings panel; read by features that keep quiet while paused."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from bot.features.progress.prefs import NoContactPrefs
from bot.people.profile import Record

ALL_DAYS: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 6)


@dataclass
class CheckinPrefs(Record):
    KEY: ClassVar[str] = "checkins"

    daily_time: str | None = None  # "HH:MM", local
    daily_days: tuple[int, ...] = ALL_DAYS  # 0 = Monday
    daily_enabled: bool = False
    paused: bool = False
    skip_date: str | None = None  # a local date whose prompt is skipped
    # A check-in day whose journal entry was undone: free text that day is no longer
    # taken for the journal (a Telegram reply still is).
    journal_closed: str | None = None

    @classmethod
    def decode(cls, values: dict[str, Any]) -> CheckinPrefs:
        if "daily_days" in values:  # JSON has no tuples
            values["daily_days"] = tuple(map(int, values["daily_days"]))
        return super().decode(values)


# What the check-in pass reads of a profile (the claim, the re-read before the send):
# decoded as the row is opened, the others never.
READS: tuple[type[Record], ...] = (CheckinPrefs, NoContactPrefs)
