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


class DiscretionButton(
    _Choice,
    prefix="dsc",
    pattern=r"menu|panic|return|noreturn|off|erase:(?:on|off)|theme:[a-z]{1,12}",
):
    """The panic-word menu in /settings."""


class TidyButton(_Choice, prefix="tidy", pattern=r"keep|remove|hide"):
    """[Keep it], [Remove this file from the chat] and [Hide], on the message itself."""


class ForgetButton(_Choice, prefix="forget", pattern=r"yes|clear|no"):
    pass


class DamagedButton(
    _Choice, prefix="dmg", pattern=r"(?:erase|keep):(?:a:[0-9]{1,12}|j:[0-9a-f]{24})"
):
    """`dmg:erase|keep:a:<message id>` (a worksheet answer's part) or `...:j:<entry id>`
    (a journal entry): one row that no longer opens, erased or left as it is."""

    @property
    def erase(self) -> bool:
        return self.value.startswith("erase:")

    @property
    def kind(self) -> str:
        return self.value.split(":")[1]

    @property
    def key(self) -> str:
        return self.value.split(":")[2]


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


@dataclass(frozen=True)
class KeepButton(CallbackData):
    """`keep:<yes|no>:<message id>`: keep or let go of a text that triggered the crisis
    path inside an answer or a journal reply (held until then; the id finds it)."""

    PREFIX: ClassVar[str] = "keep"
    keep: bool
    message_id: int

    def encode(self) -> str:
        return f"{self.PREFIX}:{'yes' if self.keep else 'no'}:{self.message_id}"

    @classmethod
    def decode(cls, rest: str) -> Self | None:
        choice, _, number = rest.partition(":")
        if choice not in ("yes", "no") or not _NUMBER.fullmatch(number):
            return None
        return cls(choice == "yes", int(number))


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


# --- the record ---------------------------------------------------------------------


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


# --- the conversation: the menu, "stop", journal undo ------------------------------


class MenuButton(_Choice, prefix="menu", pattern=r"[a-z]{1,12}"):
    """`menu:<command>`: runs that command, as if it were sent (unknown names: nothing)."""


class StopButton(
    _Choice, prefix="stop", pattern=r"end|keep|carry(?:country|timezone|time|safety)?"
):
    """What "stop" offers beside pausing (which is a DailyButton): end check-ins, keep
    them; `carry` goes back to an unfinished onboarding step."""


class UndoButton(_Choice, prefix="jundo", pattern=r"[0-9a-f]{24}"):
    """`jundo:<entry id>`: remove the journal entry just saved (and only that one)."""


# --- riding the wave (urges, held drafts, reasons, no-contact days, moods) ---------------

_ITEM_ID = re.compile(r"[0-9a-f]{24}")


@dataclass(frozen=True)
class UrgeButton(CallbackData):
    """`urg:<action>[:<id>][:<arg>]`: the id is an urge's or a held draft's random id, the
    arg a number (a strength, a step) or a trigger id; which action carries which is fixed."""

    PREFIX: ClassVar[str] = "urg"
    BARE: ClassVar[frozenset[str]] = frozenset(
        {"go", "ci", "no", "never", "offers", "rsn", "redit"}
    )
    WITH_ARG: ClassVar[frozenset[str]] = frozenset({"s"})
    WITH_ID: ClassVar[frozenset[str]] = frozenset({"tk", "dw", "dn", "x", "fx", "dr", "dk", "dd"})
    WITH_ID_ARG: ClassVar[frozenset[str]] = frozenset({"t", "n", "a", "f"})
    _ARG: ClassVar[re.Pattern[str]] = re.compile(r"[a-z0-9_]{1,12}")
    action: str
    item: str = ""
    arg: str = ""

    def encode(self) -> str:
        return ":".join(p for p in (self.PREFIX, self.action, self.item, self.arg) if p)

    @property
    def number(self) -> int | None:
        return int(self.arg) if re.fullmatch(r"[0-9]{1,2}", self.arg) else None

    @classmethod
    def decode(cls, rest: str) -> Self | None:
        parts = rest.split(":")
        action, fields = parts[0], parts[1:]
        if action in cls.BARE:
            ok = not fields
            return cls(action) if ok else None
        if action in cls.WITH_ARG:
            if len(fields) == 1 and cls._ARG.fullmatch(fields[0]):
                return cls(action, arg=fields[0])
            return None
        if action in cls.WITH_ID:
            if len(fields) == 1 and _ITEM_ID.fullmatch(fields[0]):
                return cls(action, fields[0])
            return None
        if (
            action in cls.WITH_ID_ARG
            and len(fields) == 2
            and _ITEM_ID.fullmatch(fields[0])
            and cls._ARG.fullmatch(fields[1])
        ):
            return cls(action, fields[0], fields[1])
        return None


class NoContactButton(
    _Choice,
    prefix="nc",
    pattern=r"start|pause|resume|reset|resetok|resetno|stop|inon|inoff|show|earlier"
    r"|from:[0-9]{4}-[0-9]{2}-[0-9]{2}",
):
    """`from:<local date>`: a count that began on an earlier day (the date rides along, so
    a picker left open past midnight still means the day it showed)."""

    @property
    def since(self) -> dt.date | None:
        day = self.value.removeprefix("from:")
        return dt.date.fromisoformat(day) if day != self.value and _is_date(day) else None


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
        if not _is_date(day) or not re.fullmatch(r"[1-5]", rating):
            return None
        return cls(day, int(rating))
