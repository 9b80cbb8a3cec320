"""The machinery of callback data: `<prefix>:<fields>`, at most 64 bytes, one frozen
dataclass per prefix. Each feature's codecs live in its own package
(bot/features/<feature>/callbacks.py) and are registered by prefix when it installs, so
two features claiming one prefix is an error at start-up (bot/core/prefixes.py).

Callback data is untrusted input (a client can send any bytes), so it is validated once,
on the way in, by the codec: ASCII digits only where a number goes ([0-9], not \\d, which
admits other scripts' digits), whole-string matches (where "$" would let a trailing
newline through), known actions only. A handler receives a typed value or nothing at all:
data that does not decode is ignored on purpose. The encodings are the ones buttons
already in people's chats carry, so old buttons keep working.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import ClassVar, Self

TOKEN = re.compile(r"[A-Za-z0-9_+/-]{1,60}")
WORD = re.compile(r"[a-z]{1,12}")
NUMBER = re.compile(r"[0-9]{1,12}")
WORD_UNDERSCORE = re.compile(r"[a-z_]{1,20}")
ITEM_ID = re.compile(r"[0-9a-f]{24}")  # a stored row's random id


class CallbackData:
    PREFIX: ClassVar[str]

    def encode(self) -> str:
        raise NotImplementedError

    @classmethod
    def decode(cls, rest: str) -> Self | None:
        """`rest` is what follows `<PREFIX>:`; None when it does not fit."""
        raise NotImplementedError


def is_date(value: str) -> bool:
    """An ISO date (`2026-12-01`), in ASCII digits, that exists."""
    if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
        return False
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Choice(CallbackData):
    """`<prefix>:<value>`, the value one of a fixed few (`pattern`): the shape of most
    buttons, declared as `class XButton(Choice, prefix="x", pattern=r"a|b")`."""

    PATTERN: ClassVar[re.Pattern[str]] = TOKEN
    value: str

    def __init_subclass__(cls, *, prefix: str, pattern: str | None = None) -> None:
        super().__init_subclass__()
        cls.PREFIX = prefix
        cls.PATTERN = re.compile(pattern) if pattern else TOKEN

    def encode(self) -> str:
        return f"{self.PREFIX}:{self.value}"

    @classmethod
    def decode(cls, rest: str) -> Self | None:
        return cls(rest) if cls.PATTERN.fullmatch(rest) else None
