"""Onboarding's and /settings' stored state: ``setup:<step>:<mode>[:<asked>]``, a step
waiting for typed input (bot/core/state.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Self

from bot.core.state import StoredState

ONBOARDING = "onboarding"
SETTINGS = "settings"
SETUP_STEPS = ("country", "timezone", "time", "safety")

_SETUP = re.compile(r"([a-z]{1,20})(?::([a-z]{1,20})(?::([0-9]{1,12}))?)?")


@dataclass(frozen=True)
class SetupState(StoredState):
    PREFIX: ClassVar[str] = "setup"
    step: str
    mode: str = ONBOARDING
    # The message that asked it (onboarding): only that message's buttons answer the step,
    # not an older copy of the same question. 0: not known (asked before this was kept).
    asked: int = 0

    def encode(self) -> str:
        tail = f":{self.asked}" if self.asked else ""
        return f"{self.PREFIX}:{self.step}:{self.mode}{tail}"

    @classmethod
    def decode(cls, rest: str) -> Self | None:
        found = _SETUP.fullmatch(rest)
        if found is None:
            return None
        mode = found.group(2) if found.group(2) in (ONBOARDING, SETTINGS) else ONBOARDING
        return cls(found.group(1), mode, int(found.group(3) or 0))


def setup_state(state: str) -> SetupState | None:
    return SetupState.read(state)
