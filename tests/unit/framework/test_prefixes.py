"""Each prefix, of a button or of a stored state, belongs to one feature's codec: a second
claim fails when the features install (at start-up), and every codec a feature defines is
registered by the app's features."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest
from telegram import Update

from bot.core.callbacks import Choice
from bot.core.prefixes import PrefixClash
from bot.core.state import StoredState
from bot.features.worksheets.state import WorksheetState
from bot.framework.context import Context
from bot.framework.hub import Hub
from bot.people.service import Person
from tests.helpers.codecs import codecs, installed

FEATURES = Path(__file__).resolve().parents[3] / "bot" / "features"


class DailyLookalike(Choice, prefix="dly", pattern=r"x"):
    """Another feature's button on the check-ins' prefix."""


@dataclass(frozen=True)
class WorksheetLookalike(StoredState):
    PREFIX: ClassVar[str] = WorksheetState.PREFIX

    def encode(self) -> str:
        return f"{self.PREFIX}:x"


async def _press(update: Update, context: Context, data: DailyLookalike) -> None:
    del update, context, data


async def _text(update: Update, context: Context, person: Person, text: str) -> None:
    del update, context, person, text


def test_a_callback_prefix_claimed_twice_fails_at_install() -> None:
    hub = installed()
    with pytest.raises(PrefixClash, match="'dly' registered twice"):
        hub.router.on_callback(DailyLookalike, _press)
    fresh = Hub()
    fresh.router.on_callback(DailyLookalike, _press)  # alone, the same codec is fine


def test_a_state_prefix_claimed_twice_fails_at_install() -> None:
    with pytest.raises(PrefixClash, match="'ws' registered twice"):
        installed().router.on_state(WorksheetLookalike, _text)


def _defined_codecs() -> set[str]:
    names = set()
    for path in FEATURES.glob("*/callbacks.py"):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef) and node.name.endswith("Button"):
                names.add(node.name)
    return names


def test_every_codec_a_feature_defines_is_registered() -> None:
    registered = {kind.__name__ for kind in codecs()}
    assert _defined_codecs() <= registered
    assert len(registered) == 24  # the app's buttons, DamagedButton (bot/framework) among them
    states = {kind.__name__ for kind in installed().router.state_kinds.kinds()}
    assert states == {
        "SetupState",
        "DiscretionState",
        "WorksheetState",
        "RecordState",
        "UrgeState",
    }
