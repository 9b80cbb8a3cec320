"""Riding the wave's buttons: urges, held drafts, reasons (bot/core/callbacks.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar, Self

from bot.core.callbacks import ITEM_ID, CallbackData


class UrgeAction(StrEnum):
    """What an urge button does. The value is the short code its callback data carries
    (64 bytes at most; buttons already in a chat must keep working, so never renumber).
    What each carries besides (nothing, a number, an id, an id and an argument) is below."""

    START = "go"  # [Start] on the offer: begin, the offer goes
    FROM_CHECKIN = "ci"  # from the check-in, whose own buttons stay
    NOT_NOW = "no"  # the offer put away
    NEVER = "never"  # no more urge offers
    OFFERS_ON = "offers"  # urge offers back on (from /settings)
    SHOW_REASONS = "rsn"  # the person's own reasons, shown
    EDIT_REASONS = "redit"  # write or rewrite them
    STRENGTH = "s"  # how strong the urge is (0-10)
    SKIP_TRIGGER = "tk"  # no trigger named
    WRITE_DRAFT = "dw"  # write the message they want to send, held instead of sent
    NO_DRAFT = "dn"  # no draft: straight to riding the wave
    STOP_SURF = "x"  # out of the wave's steps, to what helps after
    FOLLOW_UP_NOT_NOW = "fx"  # the later "how strong is it now?" put away
    READ_DRAFT = "dr"  # the held draft shown again (its id rides along)
    KEEP_DRAFT = "dk"
    DELETE_DRAFT = "dd"
    TRIGGER = "t"  # a trigger's id (or "other": typed)
    SURF_STEP = "n"  # the wave's next step number
    AFTER = "a"  # what helps after: again, done, reasons, safe
    FOLLOW_UP = "f"  # the strength now, for the comparison


_BARE = frozenset(
    {
        UrgeAction.START,
        UrgeAction.FROM_CHECKIN,
        UrgeAction.NOT_NOW,
        UrgeAction.NEVER,
        UrgeAction.OFFERS_ON,
        UrgeAction.SHOW_REASONS,
        UrgeAction.EDIT_REASONS,
    }
)
_WITH_ARG = frozenset({UrgeAction.STRENGTH})
_WITH_ID = frozenset(
    {
        UrgeAction.SKIP_TRIGGER,
        UrgeAction.WRITE_DRAFT,
        UrgeAction.NO_DRAFT,
        UrgeAction.STOP_SURF,
        UrgeAction.FOLLOW_UP_NOT_NOW,
        UrgeAction.READ_DRAFT,
        UrgeAction.KEEP_DRAFT,
        UrgeAction.DELETE_DRAFT,
    }
)
_WITH_ID_ARG = frozenset(
    {UrgeAction.TRIGGER, UrgeAction.SURF_STEP, UrgeAction.AFTER, UrgeAction.FOLLOW_UP}
)
_URGE_ACTIONS = {action.value: action for action in UrgeAction}


@dataclass(frozen=True)
class UrgeButton(CallbackData):
    """`urg:<action>[:<id>][:<arg>]`: the id is an urge's or a held draft's random id, the
    arg a number (a strength, a step) or a trigger id; which action carries which is fixed
    (`UrgeAction`)."""

    PREFIX: ClassVar[str] = "urg"
    _ARG: ClassVar[re.Pattern[str]] = re.compile(r"[a-z0-9_]{1,12}")
    action: UrgeAction
    item: str = ""
    arg: str = ""

    def encode(self) -> str:
        return ":".join(p for p in (self.PREFIX, self.action.value, self.item, self.arg) if p)

    @property
    def number(self) -> int | None:
        return int(self.arg) if re.fullmatch(r"[0-9]{1,2}", self.arg) else None

    @classmethod
    def decode(cls, rest: str) -> Self | None:
        parts = rest.split(":")
        action, fields = _URGE_ACTIONS.get(parts[0]), parts[1:]
        if action is None:
            return None
        if action in _BARE:
            return cls(action) if not fields else None
        if action in _WITH_ARG:
            if len(fields) == 1 and cls._ARG.fullmatch(fields[0]):
                return cls(action, arg=fields[0])
            return None
        if action in _WITH_ID:
            if len(fields) == 1 and ITEM_ID.fullmatch(fields[0]):
                return cls(action, fields[0])
            return None
        if (
            action in _WITH_ID_ARG
            and len(fields) == 2
            and ITEM_ID.fullmatch(fields[0])
            and cls._ARG.fullmatch(fields[1])
        ):
            return cls(action, fields[0], fields[1])
        return None
