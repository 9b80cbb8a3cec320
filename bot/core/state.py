"""The one codec for a person's stored `state`: what typed text answers right now.

The column holds a short ASCII string (never anything a person wrote):

- ``""``: nothing pending; free text goes to the idle routes (the journal).
- ``setup:<step>:<mode>``: an onboarding or settings step waiting for typed input.
- ``disc:panic`` / ``disc:return``: /settings waits for a panic or return word.
- ``ws:<worksheet>:<question msg>:<"Saved" msg>:<position>:<previous>``: a worksheet
  question waiting for its answer, with the ids of the step's two bot messages (so discreet
  mode can delete them; 0 = none) and the question on screen and the one before it (-1 =
  none; text whose id is below the question's was typed before it appeared).
- ``rec:<entry>:<step>:<question msg>:<"Saved" msg>``: a record entry
(bot/features/record/service.py)
  waiting at one step; the entry id is 24 hex digits, the step a short word.

- ``urge:<step>:<id>``: the urge flow waiting for typed words (`trigger`, `draft`) with
  the urge's random id, or My reasons being written (`reasons`, id ``-``).

Decoding validates once (ASCII digits, whole-string match); everything after works with
typed values. Anything else decodes to None and is treated as nothing pending.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SETUP_PREFIX = "setup"
DISCRETION_PREFIX = "disc"
WORKSHEET_PREFIX = "ws"
RECORD_PREFIX = "rec"
AMEND_STEP = "amend"  # the record's state while a correction is typed
URGE_PREFIX = "urge"
URGE_STEPS = ("trigger", "draft", "reasons")
ONBOARDING = "onboarding"
SETTINGS = "settings"
SETUP_STEPS = ("country", "timezone", "time", "safety")

_DISCRETION = re.compile(r"disc:(panic|return)")
_SETUP = re.compile(r"setup:([a-z]{1,20})(?::([a-z]{1,20})(?::([0-9]{1,12}))?)?")
# [0-9], not \d (which admits other scripts' digits), and fullmatch (where "$" would let a
# trailing newline through).
_WORKSHEET = re.compile(
    r"ws:([a-z0-9_]{1,40})(?::([0-9]{1,12}):([0-9]{1,12}))?(?::([0-9]{1,4}|-1):([0-9]{1,4}|-1))?"
)

_RECORD = re.compile(r"rec:([0-9a-f]{24}):([a-z]{2,8}):([0-9]{1,12}):([0-9]{1,12})")


@dataclass(frozen=True)
class SetupState:
    step: str
    mode: str = ONBOARDING
    # The message that asked it (onboarding): only that message's buttons answer the step,
    # not an older copy of the same question. 0: not known (asked before this was kept).
    asked: int = 0

    def encode(self) -> str:
        tail = f":{self.asked}" if self.asked else ""
        return f"{SETUP_PREFIX}:{self.step}:{self.mode}{tail}"


@dataclass(frozen=True)
class WorksheetState:
    worksheet_id: str
    question_message: int = 0
    saved_message: int = 0
    position: int = -1
    previous: int = -1

    def encode(self) -> str:
        return (
            f"{WORKSHEET_PREFIX}:{self.worksheet_id}:{self.question_message}"
            f":{self.saved_message}:{self.position}:{self.previous}"
        )

    def message_ids(self) -> list[int]:
        return [m for m in (self.question_message, self.saved_message) if m]

    def off_screen(self) -> WorksheetState:
        """No question on screen any more, but which one was stays known."""
        return WorksheetState(self.worksheet_id, position=self.position)


@dataclass(frozen=True)
class RecordState:
    entry_id: str
    step: str
    question_message: int = 0
    saved_message: int = 0

    def encode(self) -> str:
        return (
            f"{RECORD_PREFIX}:{self.entry_id}:{self.step}"
            f":{self.question_message}:{self.saved_message}"
        )

    def message_ids(self) -> list[int]:
        return [m for m in (self.question_message, self.saved_message) if m]


_URGE = re.compile(r"urge:(trigger|draft|reasons):([0-9a-f]{24}|-)(?::([0-9]+))?")


@dataclass(frozen=True)
class UrgeState:
    step: str
    urge_id: str = "-"
    # The message that asked for the words (0: none kept): in discreet mode it leaves
    # the chat with the answer.
    asked: int = 0

    def encode(self) -> str:
        tail = f":{self.asked}" if self.asked else ""
        return f"{URGE_PREFIX}:{self.step}:{self.urge_id}{tail}"


@dataclass(frozen=True)
class DiscretionState:
    """A panic or return word is being typed in /settings (the word itself is never kept)."""

    word: str  # "panic" | "return"

    def encode(self) -> str:
        return f"{DISCRETION_PREFIX}:{self.word}"


PersonState = SetupState | WorksheetState | RecordState | UrgeState | DiscretionState


def decode_state(state: str) -> PersonState | None:
    found = _WORKSHEET.fullmatch(state)
    if found is not None:
        return WorksheetState(
            found.group(1),
            int(found.group(2) or 0),
            int(found.group(3) or 0),
            int(found.group(4) or -1),
            int(found.group(5) or -1),
        )
    record = _RECORD.fullmatch(state)
    if record is not None:
        return RecordState(
            record.group(1), record.group(2), int(record.group(3)), int(record.group(4))
        )
    urge = _URGE.fullmatch(state)
    if urge is not None:
        return UrgeState(urge.group(1), urge.group(2), int(urge.group(3) or 0))
    discretion = _DISCRETION.fullmatch(state)
    if discretion is not None:
        return DiscretionState(discretion.group(1))
    setup = _SETUP.fullmatch(state)
    if setup is not None:
        mode = setup.group(2) if setup.group(2) in (ONBOARDING, SETTINGS) else ONBOARDING
        return SetupState(setup.group(1), mode, int(setup.group(3) or 0))
    return None


def worksheet_state(state: str) -> WorksheetState | None:
    decoded = decode_state(state)
    return decoded if isinstance(decoded, WorksheetState) else None


def setup_state(state: str) -> SetupState | None:
    decoded = decode_state(state)
    return decoded if isinstance(decoded, SetupState) else None


def record_state(state: str) -> RecordState | None:
    decoded = decode_state(state)
    return decoded if isinstance(decoded, RecordState) else None


def urge_state(state: str) -> UrgeState | None:
    decoded = decode_state(state)
    return decoded if isinstance(decoded, UrgeState) else None


def discretion_state(state: str) -> DiscretionState | None:
    decoded = decode_state(state)
    return decoded if isinstance(decoded, DiscretionState) else None
