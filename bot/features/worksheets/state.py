"""A worksheet question waiting for its answer, as stored:
``ws:<worksheet>:<question msg>:<"Saved" msg>:<position>:<previous>``, with the ids of the
step's two bot messages (so discreet mode can delete them; 0 = none) and the question on
screen and the one before it (-1 = none; text whose id is below the question's was typed
before it appeared). Older rows carry the id alone, or the two message ids
(bot/core/state.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Self

from bot.core.state import StoredState

# [0-9], not \d (which admits other scripts' digits), and fullmatch (where "$" would let a
# trailing newline through).
_WORKSHEET = re.compile(
    r"([a-z0-9_]{1,40})(?::([0-9]{1,12}):([0-9]{1,12}))?(?::([0-9]{1,4}|-1):([0-9]{1,4}|-1))?"
)


@dataclass(frozen=True)
class WorksheetState(StoredState):
    PREFIX: ClassVar[str] = "ws"
    worksheet_id: str
    question_message: int = 0
    saved_message: int = 0
    position: int = -1
    previous: int = -1

    def encode(self) -> str:
        return (
            f"{self.PREFIX}:{self.worksheet_id}:{self.question_message}"
            f":{self.saved_message}:{self.position}:{self.previous}"
        )

    @classmethod
    def decode(cls, rest: str) -> Self | None:
        found = _WORKSHEET.fullmatch(rest)
        if found is None:
            return None
        return cls(
            found.group(1),
            int(found.group(2) or 0),
            int(found.group(3) or 0),
            int(found.group(4) or -1),
            int(found.group(5) or -1),
        )

    def message_ids(self) -> list[int]:
        return [m for m in (self.question_message, self.saved_message) if m]

    def off_screen(self) -> WorksheetState:
        """No question on screen any more, but which one was stays known."""
        return WorksheetState(self.worksheet_id, position=self.position)


def worksheet_state(state: str) -> WorksheetState | None:
    return WorksheetState.read(state)


def answering(state: str) -> str | None:
    """The worksheet whose question a stored state waits on (None: none)."""
    found = WorksheetState.read(state)
    return found.worksheet_id if found is not None else None
