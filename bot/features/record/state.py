"""A record entry waiting at one step, as stored:
``rec:<entry>:<step>:<question msg>:<"Saved" msg>``; the entry id is 24 hex digits, the
step a short word (bot/features/record/service.py; bot/core/state.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Self

from bot.core.state import StoredState

AMEND_STEP = "amend"  # the record's state while a correction is typed

_RECORD = re.compile(r"([0-9a-f]{24}):([a-z]{2,8}):([0-9]{1,12}):([0-9]{1,12})")


@dataclass(frozen=True)
class RecordState(StoredState):
    PREFIX: ClassVar[str] = "rec"
    entry_id: str
    step: str
    question_message: int = 0
    saved_message: int = 0

    def encode(self) -> str:
        return (
            f"{self.PREFIX}:{self.entry_id}:{self.step}"
            f":{self.question_message}:{self.saved_message}"
        )

    @classmethod
    def decode(cls, rest: str) -> Self | None:
        found = _RECORD.fullmatch(rest)
        if found is None:
            return None
        return cls(found.group(1), found.group(2), int(found.group(3)), int(found.group(4)))

    def message_ids(self) -> list[int]:
        return [m for m in (self.question_message, self.saved_message) if m]


def record_state(state: str) -> RecordState | None:
    return RecordState.read(state)
