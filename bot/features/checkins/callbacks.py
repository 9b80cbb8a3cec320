"""The daily check-in's and the journal's buttons (bot/core/callbacks.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Self

from bot.core.callbacks import CallbackData, Choice, is_date


@dataclass(frozen=True)
class DailyButton(CallbackData):
    """`dly:<action>[:<local date>[:s]]`: the date rides along so a button on an old
    prompt cannot act on today's; `s` marks a button of the /settings menu."""

    PREFIX: ClassVar[str] = "dly"
    ACTIONS: ClassVar[frozenset[str]] = frozenset(
        {"show", "snooze", "skip", "unskip", "pause", "resume"}
    )
    DATED: ClassVar[frozenset[str]] = frozenset({"show", "snooze", "skip"})
    action: str
    day: str = ""
    from_settings: bool = False

    def encode(self) -> str:
        parts = [self.PREFIX, self.action]
        if self.day or self.from_settings:
            parts.append(self.day)
        if self.from_settings:
            parts.append("s")
        return ":".join(parts)

    @classmethod
    def decode(cls, rest: str) -> Self | None:
        action, _, tail = rest.partition(":")
        day, _, origin = tail.partition(":")
        if action not in cls.ACTIONS or origin not in ("", "s"):
            return None
        if (action in cls.DATED or day) and not is_date(day):
            return None
        return cls(action, day, origin == "s")


@dataclass(frozen=True)
class JournalButton(CallbackData):
    """`jrn:<offset>` (a page) or `jrn:close`."""

    PREFIX: ClassVar[str] = "jrn"
    MAX_OFFSET: ClassVar[int] = 100_000  # offsets come back untrusted: keep them sane
    offset: int | None  # None: close

    def encode(self) -> str:
        return f"{self.PREFIX}:{'close' if self.offset is None else self.offset}"

    @classmethod
    def decode(cls, rest: str) -> Self | None:
        if rest == "close":
            return cls(None)
        if not re.fullmatch(r"[0-9]{1,6}", rest) or int(rest) > cls.MAX_OFFSET:
            return None
        return cls(int(rest))


class UndoButton(Choice, prefix="jundo", pattern=r"[0-9a-f]{24}"):
    """`jundo:<entry id>`: remove the journal entry just saved (and only that one)."""
