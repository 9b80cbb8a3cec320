"""The one codec for callback data: `<prefix>:<fields>`, at most 64 bytes, one frozen
dataclass per prefix.

Callback data is untrusted input (a client can send any bytes), so it is validated once,
here, on the way in: ASCII digits only where a number goes ([0-9], not \\d, which admits
other scripts' digits), whole-string matches (where "$" would let a trailing newline
through), known actions only. A handler receives a typed value or nothing at all: data that
does not decode is ignored on purpose. The encodings are the ones buttons already in
people's chats carry, so old buttons keep working.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import ClassVar, Self

from bot.core.telegram_text import CALLBACK_DATA_LIMIT

_TOKEN = re.compile(r"[A-Za-z0-9_+/-]{1,60}")
_WORD = re.compile(r"[a-z]{1,12}")
_NUMBER = re.compile(r"[0-9]{1,12}")
_WORD_UNDERSCORE = re.compile(r"[a-z_]{1,20}")
# A crisis button's argument may carry two fields ("v:GB-SCT": the reply kind, a place).
_CRISIS_ARG = re.compile(r"[A-Za-z0-9_+/:-]{1,60}")


class CallbackData:
    PREFIX: ClassVar[str]

    def encode(self) -> str:
        raise NotImplementedError

    @classmethod
    def decode(cls, rest: str) -> Self | None:
        """`rest` is what follows `<PREFIX>:`; None when it does not fit."""
        raise NotImplementedError


def _is_date(value: str) -> bool:
    if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
        return False
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return True


# --- onboarding and settings: one choice each -------------------------------------------


@dataclass(frozen=True)
class _Choice(CallbackData):
    """`<prefix>:<value>`, the value one of a fixed few (`pattern`)."""

    PATTERN: ClassVar[re.Pattern[str]] = _TOKEN
    value: str

    def __init_subclass__(cls, *, prefix: str, pattern: str | None = None) -> None:
        super().__init_subclass__()
        cls.PREFIX = prefix
        cls.PATTERN = re.compile(pattern) if pattern else _TOKEN

    def encode(self) -> str:
        return f"{self.PREFIX}:{self.value}"

    @classmethod
    def decode(cls, rest: str) -> Self | None:
        return cls(rest) if cls.PATTERN.fullmatch(rest) else None


class CountryButton(_Choice, prefix="cty", pattern=r"[A-Z]{2}|skip"):
    pass


class ZoneButton(_Choice, prefix="tz"):
    pass


class TimeButton(_Choice, prefix="time", pattern=r"[0-9]{1,2}:[0-9]{2}|off"):
    pass


class SafetyButton(_Choice, prefix="safe", pattern=r"yes|no|discreet|later"):
    pass


class LanguageButton(_Choice, prefix="lang", pattern=r"[a-z]{2,3}"):
    """`lang:<code>`: the language chosen (one of content/locales/, or en)."""


class SettingsButton(_Choice, prefix="set", pattern=r"[a-z]{1,12}(?::(?:on|off))?"):
    """`set:<item>` or `set:<toggle>:on|off` (the value it sets, so a double tap or a
    stale menu cannot flip a setting back)."""


class DayButton(_Choice, prefix="day", pattern=r"mon|tue|wed|thu|fri|sat|sun|done"):
    pass


class ForgetButton(_Choice, prefix="forget", pattern=r"yes|clear|no"):
    pass


# --- crisis -------------------------------------------------------------------------


@dataclass(frozen=True)
class CrisisButton(CallbackData):
    """`crisis:<action>[:<arg>]`; `message_id` is the arg when it is a message id."""

    PREFIX: ClassVar[str] = "crisis"
    action: str
    arg: str = ""

    def encode(self) -> str:
        return f"{self.PREFIX}:{self.action}" + (f":{self.arg}" if self.arg else "")

    @property
    def message_id(self) -> int | None:
        return int(self.arg) if _NUMBER.fullmatch(self.arg) else None

    @classmethod
    def decode(cls, rest: str) -> Self | None:
        action, sep, arg = rest.partition(":")
        if not _WORD.fullmatch(action) or (sep and not _CRISIS_ARG.fullmatch(arg)):
            return None
        return cls(action, arg)


@dataclass(frozen=True)
class CheckButton(CallbackData):
    """`check:<action>[:<kind>]`: the tier-2 "Are you safe right now?" check's answers
    ("safe" is onboarding's shared-phone question). The kind rides along with "help" so the
    emergency reply matches what was found."""

    PREFIX: ClassVar[str] = "check"
    ACTIONS: ClassVar[frozenset[str]] = frozenset({"help", "ok", "talk"})
    action: str
    kind: str = ""

    def encode(self) -> str:
        return f"{self.PREFIX}:{self.action}" + (f":{self.kind}" if self.kind else "")

    @classmethod
    def decode(cls, rest: str) -> Self | None:
        action, sep, kind = rest.partition(":")
        if action not in cls.ACTIONS or (sep and not _WORD_UNDERSCORE.fullmatch(kind)):
            return None
        return cls(action, kind)


# --- daily check-ins and the journal ------------------------------------------------


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
        if (action in cls.DATED or day) and not _is_date(day):
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


# --- worksheets ---------------------------------------------------------------------


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
