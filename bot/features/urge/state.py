"""The urge flow's stored state: ``urge:<step>:<id>[:<asked>]``, waiting for typed words
(`trigger`, `draft`) with the urge's random id, or My reasons being written (`reasons`,
id ``-``; bot/core/state.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Self

from bot.core.state import StoredState

_URGE = re.compile(r"(trigger|draft|reasons):([0-9a-f]{24}|-)(?::([0-9]+))?")


@dataclass(frozen=True)
class UrgeState(StoredState):
    PREFIX: ClassVar[str] = "urge"
    step: str
    urge_id: str = "-"
    # The message that asked for the words (0: none kept): in discreet mode it leaves
    # the chat with the answer.
    asked: int = 0

    def encode(self) -> str:
        tail = f":{self.asked}" if self.asked else ""
        return f"{self.PREFIX}:{self.step}:{self.urge_id}{tail}"

    @classmethod
    def decode(cls, rest: str) -> Self | None:
        found = _URGE.fullmatch(rest)
        if found is None:
            return None
        return cls(found.group(1), found.group(2), int(found.group(3) or 0))


def urge_state(state: str) -> UrgeState | None:
    return UrgeState.read(state)
