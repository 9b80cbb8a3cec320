"""Adding a feature touches its own package and one line in bot/app.py's list: here a toy
feature, defined only in this test and added to that list, brings a command, a button
codec, a stored state and a service of its own, and works end to end through the emulator
with nothing else changed. A second one that claims another feature's prefix stops the
start-up (docs/architecture.md, "Adding a feature")."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Self

import pytest
from telegram import Update

from bot.app import features
from bot.core.callbacks import Choice
from bot.core.clock import Clock, ManualClock
from bot.core.prefixes import PrefixClash
from bot.core.state import StoredState
from bot.emulator import BotApiEmulator
from bot.framework.chat import current_person, private_command_person, tell
from bot.framework.context import Context
from bot.framework.hub import Feature, Hub
from bot.people.service import Person
from tests.helpers.bot import BotUnderTest, buttons_of, make_settings


class BreatheButton(Choice, prefix="brth", pattern=r"again"):
    pass


@dataclass(frozen=True)
class BreatheState(StoredState):
    """Waiting for how many breaths they took."""

    PREFIX: ClassVar[str] = "brth"
    round: int

    def encode(self) -> str:
        return f"{self.PREFIX}:{self.round}"

    @classmethod
    def decode(cls, rest: str) -> Self | None:
        return cls(int(rest)) if rest.isascii() and rest.isdigit() and len(rest) < 4 else None


class Breaths:
    """The toy's service: how many breaths each person counted, in memory."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self.counted: dict[str, list[int]] = {}

    def count(self, person: Person, breaths: int) -> int:
        self.counted.setdefault(person.person_id, []).append(breaths)
        return sum(self.counted[person.person_id])


class BreatheFeature:
    breaths: Breaths  # built at install, from the shared services

    def install(self, hub: Hub) -> None:
        self.breaths = Breaths(hub.services.clock)
        hub.command("breathe", self.breathe)
        hub.router.on_callback(BreatheButton, self.again)
        hub.router.on_state(BreatheState, self.counted)

    async def breathe(self, update: Update, context: Context) -> None:
        person = await private_command_person(update, context)
        if person is not None:
            await self._ask(context, person, 1)

    async def again(self, update: Update, context: Context, data: BreatheButton) -> None:
        person = await current_person(update, context)
        if person is not None:
            await self._ask(context, person, 2)

    async def counted(self, update: Update, context: Context, person: Person, text: str) -> None:
        state = BreatheState.read(person.state)
        if state is None or not text.strip().isdigit():
            return
        total = self.breaths.count(person, int(text))
        await context.services.people.set_state(person, "")
        again = [[("Again", BreatheButton("again").encode())]]
        await tell(context, person, f"Round {state.round}: {total} breaths so far.", again)

    async def _ask(self, context: Context, person: Person, round_: int) -> None:
        await context.services.people.set_state(person, BreatheState(round_).encode())
        await tell(context, person, "Breathe in for four, out for six. How many breaths?")


class ClashingFeature:
    """A feature whose buttons would answer to the check-ins' prefix."""

    def install(self, hub: Hub) -> None:
        hub.router.on_callback(DailyLookalike, self.pressed)

    async def pressed(self, update: Update, context: Context, data: DailyLookalike) -> None:
        del update, context, data


class DailyLookalike(Choice, prefix="dly", pattern=r"x"):
    pass


def with_extra(extra: Feature) -> list[Feature]:
    return [*features(), extra]  # the one line a new feature adds to bot/app.py


@pytest.fixture
async def toy(
    emulator: BotApiEmulator, tmp_path: Path, clock: ManualClock
) -> AsyncIterator[tuple[BotUnderTest, BreatheFeature]]:
    feature = BreatheFeature()
    under_test = BotUnderTest(emulator, make_settings(tmp_path / "data", emulator.base_url), clock)
    under_test.features = lambda: with_extra(feature)
    await under_test.start()
    try:
        yield under_test, feature
    finally:
        await under_test.stop()
        assert not emulator.internal_errors, emulator.internal_errors


async def test_a_feature_from_its_own_package_and_one_line_works_end_to_end(
    toy: tuple[BotUnderTest, BreatheFeature],
) -> None:
    bot, feature = toy
    await bot.onboard()
    await bot.send("/breathe")
    await bot.next(containing="How many breaths?")
    await bot.send("4")  # typed while its state waits: its route, not the menu's
    counted = await bot.next(containing="Round 1: 4 breaths so far.")
    person = await bot.services.people.load(counted.chat_id)
    assert person is not None and person.state == ""
    await bot.press(counted, "Again")
    await bot.next(containing="How many breaths?")
    await bot.send("6")
    await bot.next(containing="Round 2: 10 breaths so far.")
    assert list(feature.breaths.counted.values()) == [[4, 6]]
    assert [label for label, _ in buttons_of(counted)] == ["Again"]


async def test_a_prefix_another_feature_has_stops_the_start(
    emulator: BotApiEmulator, tmp_path: Path, clock: ManualClock
) -> None:
    under_test = BotUnderTest(emulator, make_settings(tmp_path / "data", emulator.base_url), clock)
    extra: Sequence[Feature] = [ClashingFeature()]
    under_test.features = lambda: [*features(), *extra]
    try:
        with pytest.raises(PrefixClash, match="'dly' registered twice"):
            await under_test.start()
    finally:
        await under_test.stop()
