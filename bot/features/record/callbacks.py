"""The record's buttons (bot/core/callbacks.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Self

from bot.core.callbacks import CallbackData
from bot.core.telegram_text import CALLBACK_DATA_LIMIT


@dataclass(frozen=True)
class RecordButton(CallbackData):
    """`rec:<action>[:<entry id>][:<number>]`: which fields an action carries is fixed.
    The entry id is 24 hex digits (bot/storage/record.py); numbers are offsets, steps, hours
    (days back * 100 + hour) or the person's message id."""

    PREFIX: ClassVar[str] = "rec"
    BARE: ClassVar[frozenset[str]] = frozenset(
        {"new", "menu", "hide", "delall", "delallok", "delno", "exp", "pdf", "rmx", "nolook",
         "later", "pause", "offon", "offoff"}
    )  # fmt: skip
    WITH_ID: ClassVar[frozenset[str]] = frozenset(
        {"open", "now", "today", "amend", "amdone", "files", "del", "delok", "look", "resume",
         "done", "notime"}
    )  # fmt: skip
    WITH_NUMBER: ClassVar[frozenset[str]] = frozenset({"list"})
    WITH_BOTH: ClassVar[frozenset[str]] = frozenset(
        {"days", "day", "hour", "skip", "next", "cont", "rmf", "keepf"}
    )
    _SHAPE: ClassVar[re.Pattern[str]] = re.compile(
        r"([a-z]{2,8})(?::([0-9a-f]{24}))?(?::([0-9]{1,12}))?"
    )
    action: str
    entry_id: str = ""
    number: int = 0

    def encode(self) -> str:
        parts = [self.PREFIX, self.action]
        if self.action in self.WITH_ID or self.action in self.WITH_BOTH:
            parts.append(self.entry_id)
        if self.action in self.WITH_NUMBER or self.action in self.WITH_BOTH:
            parts.append(str(self.number))
        return ":".join(parts)

    @classmethod
    def decode(cls, rest: str) -> Self | None:
        found = cls._SHAPE.fullmatch(rest) if len(rest) <= CALLBACK_DATA_LIMIT else None
        if found is None:
            return None
        action, entry_id, number = found.groups()
        shapes = {
            (True, False, False): cls.BARE,
            (True, True, False): cls.WITH_ID,
            (True, False, True): cls.WITH_NUMBER,
            (True, True, True): cls.WITH_BOTH,
        }
        allowed = shapes[(True, entry_id is not None, number is not None)]
        if action not in allowed:
            return None
        return cls(action, entry_id or "", int(number or 0))
