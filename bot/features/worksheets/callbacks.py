"""The worksheets' buttons (bot/core/callbacks.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Self

from bot.core.callbacks import CallbackData
from bot.core.telegram_text import CALLBACK_DATA_LIMIT


@dataclass(frozen=True)
class WorksheetButton(CallbackData):
    """`ws:<action>[:<worksheet id>][:<number>]`: which fields an action carries is fixed."""

    PREFIX: ClassVar[str] = "ws"
    BARE: ClassVar[frozenset[str]] = frozenset({"later", "revx", "exp", "pdf"})
    WITH_ID: ClassVar[frozenset[str]] = frozenset(
        {"open", "go", "again", "pause", "cpause", "del", "delok", "delno"}
    )
    WITH_NUMBER: ClassVar[frozenset[str]] = frozenset({"next", "back", "clr", "cont", "rev"})
    _SHAPE: ClassVar[re.Pattern[str]] = re.compile(
        r"([a-z]{2,6})(?::([a-z0-9_]{1,40}))?(?::([0-9]{1,4}))?"
    )
    action: str
    worksheet_id: str = ""
    number: int = 0

    def encode(self) -> str:
        parts = [self.PREFIX, self.action]
        if self.action not in self.BARE:
            parts.append(self.worksheet_id)
        if self.action in self.WITH_NUMBER:
            parts.append(str(self.number))
        return ":".join(parts)

    @classmethod
    def decode(cls, rest: str) -> Self | None:
        found = cls._SHAPE.fullmatch(rest) if len(rest) <= CALLBACK_DATA_LIMIT else None
        if found is None:
            return None
        action, worksheet_id, number = found.groups()
        if action in cls.BARE:
            valid = worksheet_id is None and number is None
        elif action in cls.WITH_ID:
            valid = worksheet_id is not None and number is None
        else:
            valid = action in cls.WITH_NUMBER and worksheet_id is not None and number is not None
        return cls(action, worksheet_id or "", int(number or 0)) if valid else None
