"""The two kinds of codec: a person's state and callback data (bot/core/state.py,
callbacks.py), each feature's own (bot/features/<feature>/state.py, callbacks.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.features.checkins.callbacks import DailyButton, JournalButton
from bot.features.crisis.callbacks import CrisisButton, HeldButton
from bot.features.progress.callbacks import MoodButton, NoContactButton
from bot.features.setup.callbacks import CountryButton, SettingsButton, TimeButton, ZoneButton
from bot.features.setup.state import SetupState
from bot.features.urge.callbacks import UrgeAction, UrgeButton
from bot.features.urge.state import UrgeState
from bot.features.worksheets.callbacks import WorksheetButton
from bot.features.worksheets.state import WorksheetState
from tests.helpers.codecs import codecs, decode_state

URGE_ID = "0123456789abcdef01234567"
ALL_CODECS = codecs()


def test_state_round_trips() -> None:
    for state in (
        SetupState("country", "settings"),
        SetupState("time"),
        WorksheetState("bond_or_love", 10, 11, 2, 1),
        WorksheetState("bond_or_love"),
        UrgeState("trigger", URGE_ID),
        UrgeState("reasons"),
    ):
        assert decode_state(state.encode()) == state


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        ("ws:bond_or_love", WorksheetState("bond_or_love")),  # older rows: id only
        ("ws:bond_or_love:10:11", WorksheetState("bond_or_love", 10, 11)),
        ("setup:country", SetupState("country", "onboarding")),
        ("setup:time:junk", SetupState("time", "onboarding")),
        ("", None),
        ("ws:bond_or_love:1²:0", None),  # not an ASCII digit
        ("ws:bond_or_love\n", None),
        ("other:thing", None),
        ("urge:draft:" + URGE_ID, UrgeState("draft", URGE_ID)),
        ("urge:draft:" + URGE_ID.upper(), None),
        ("urge:send:" + URGE_ID, None),
    ],
)
def test_stored_states_decode_once(stored: str, expected: object) -> None:
    assert decode_state(stored) == expected


@pytest.mark.parametrize(
    "button",
    [
        WorksheetButton("later"),
        WorksheetButton("open", "bond_or_love"),
        WorksheetButton("next", "bond_or_love", 3),
        DailyButton("pause"),
        DailyButton("unskip", from_settings=True),
        DailyButton("skip", "2026-12-01", from_settings=True),
        DailyButton("show", "2026-12-01"),
        JournalButton(None),
        JournalButton(15),
        CrisisButton("more"),
        CrisisButton("clear", "42"),
        CountryButton("GB"),
        ZoneButton("America/Argentina/Buenos_Aires"),
        TimeButton("07:30"),
        SettingsButton("pause:on"),
        UrgeButton(UrgeAction.START),
        UrgeButton(UrgeAction.STRENGTH, arg="10"),
        UrgeButton(UrgeAction.TRIGGER, URGE_ID, "loneliness"),
        UrgeButton(UrgeAction.FOLLOW_UP, URGE_ID, "0"),
        UrgeButton(UrgeAction.DELETE_DRAFT, URGE_ID),
        NoContactButton("resetok"),
        MoodButton("2026-12-01", 5),
        HeldButton(True, 123456789012),
        HeldButton(False, 1),
    ],
)
def test_buttons_round_trip_within_telegrams_limit(button: object) -> None:
    encoded = button.encode()  # type: ignore[attr-defined]
    assert len(encoded.encode()) <= 64
    prefix, _, rest = encoded.partition(":")
    assert prefix == type(button).PREFIX
    assert type(button).decode(rest) == button  # type: ignore[attr-defined]


def test_the_encodings_old_buttons_carry_still_decode() -> None:
    assert WorksheetButton.decode("next:bond_or_love:3") == WorksheetButton(
        "next", "bond_or_love", 3
    )
    assert DailyButton.decode("unskip::s") == DailyButton("unskip", "", True)
    assert CrisisButton.decode("clear:42") == CrisisButton("clear", "42")
    assert CrisisButton("clear", "4²").message_id is None


@pytest.mark.parametrize(
    ("kind", "rest"),
    [
        (WorksheetButton, "next:bond_or_love"),  # a position is required
        (WorksheetButton, "later:bond_or_love"),  # ... and refused where none belongs
        (WorksheetButton, "nope:bond_or_love"),
        (WorksheetButton, "next:bond_or_love:٣"),  # Arabic-Indic digit
        (DailyButton, "skip:yesterday"),
        (DailyButton, "snooze:2026-02-30"),
        (DailyButton, "pause:x:s"),
        (JournalButton, "100001"),
        (JournalButton, "-5"),
        (CountryButton, "gb"),
        (TimeButton, "7pm"),
        (SettingsButton, "pause:maybe"),
        (UrgeButton, "go:" + URGE_ID),  # no id on a bare action
        (UrgeButton, "t:" + URGE_ID),  # a trigger needs its id and a value
        (UrgeButton, "dd:../../etc"),
        (UrgeButton, "f:" + URGE_ID + ":1²"),
        (UrgeButton, "send:" + URGE_ID),
        (NoContactButton, "delete"),
        (MoodButton, "2026-12-01:6"),
        (MoodButton, "2026-13-01:3"),
        (HeldButton, "yes"),
        (HeldButton, "maybe:12"),
        (HeldButton, "yes:-1"),
        (HeldButton, "no:1²"),
    ],
)
def test_forged_data_does_not_decode(kind: type, rest: str) -> None:
    assert kind.decode(rest) is None


@given(st.text(max_size=70))
def test_no_input_makes_a_decoder_raise(rest: str) -> None:
    for kind in ALL_CODECS:
        kind.decode(rest)
    decode_state(rest)
    for prefix in ("ws", "setup", "rec", "urge", "disc"):
        decode_state(f"{prefix}:{rest}")
