"""The no-contact count's and the mood rating's buttons (bot/core/callbacks.py)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import ClassVar, Self

from bot.core.callbacks import CallbackData, Choice, is_date


class NoContactButton(
    Choice,
    prefix="nc",
    pattern=r"start|pause|resume|reset|resetok|resetno|stop|inon|inoff|show|earlier"
    r"|from:[0-9]{4}-[0-9]{2}-[0-9]{2}",
):
    """`from:<local date>`: a count that began on an earlier day (the date rides along, so
    a picker left open past midnight still means the day it showed)."""

    @property
    def since(self) -> dt.date | None:
        day = self.value.removeprefix("from:")
        return dt.date.fromisoformat(day) if day != self.value and is_date(day) else None


@dataclass(frozen=True)
class MoodButton(CallbackData):
    """`mood:<local date>:<1-5>`: the day rides along, so an old check-in rates its own day."""

    PREFIX: ClassVar[str] = "mood"
    day: str
    rating: int

    def encode(self) -> str:
        return f"{self.PREFIX}:{self.day}:{self.rating}"

    @classmethod
    def decode(cls, rest: str) -> Self | None:
        day, _, rating = rest.partition(":")
        if not is_date(day) or not re.fullmatch(r"[1-5]", rating):
            return None
        return cls(day, int(rating))
