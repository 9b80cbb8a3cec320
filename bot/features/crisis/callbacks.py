"""The crisis reply's buttons, the tier-2 safety check's answers, and keeping a text that
triggered the crisis path (bot/core/callbacks.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Self

from bot.core.callbacks import NUMBER, WORD, WORD_UNDERSCORE, CallbackData

# A crisis button's argument may carry two fields ("v:GB-SCT": the reply kind, a place).
_CRISIS_ARG = re.compile(r"[A-Za-z0-9_+/:-]{1,60}")


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
        return int(self.arg) if NUMBER.fullmatch(self.arg) else None

    @classmethod
    def decode(cls, rest: str) -> Self | None:
        action, sep, arg = rest.partition(":")
        if not WORD.fullmatch(action) or (sep and not _CRISIS_ARG.fullmatch(arg)):
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
        if action not in cls.ACTIONS or (sep and not WORD_UNDERSCORE.fullmatch(kind)):
            return None
        return cls(action, kind)


@dataclass(frozen=True)
class HeldButton(CallbackData):
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
        if choice not in ("yes", "no") or not NUMBER.fullmatch(number):
            return None
        return cls(choice == "yes", int(number))
