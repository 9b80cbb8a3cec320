"""/settings' stored state while a panic or return word is typed: ``disc:panic`` or
``disc:return`` (the word itself is never kept; bot/core/state.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Self

from bot.core.state import StoredState

WORDS = ("panic", "return")


@dataclass(frozen=True)
class DiscretionState(StoredState):
    """A panic or return word is being typed in /settings."""

    PREFIX: ClassVar[str] = "disc"
    word: str  # "panic" | "return"

    def encode(self) -> str:
        return f"{self.PREFIX}:{self.word}"

    @classmethod
    def decode(cls, rest: str) -> Self | None:
        return cls(rest) if rest in WORDS else None


def discretion_state(state: str) -> DiscretionState | None:
    return DiscretionState.read(state)
