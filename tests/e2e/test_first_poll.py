"""What waits for the first getUpdates and what does not (issue 25): the crisis model is
loaded after it, in its worker, and the collector that `python -m bot` keeps off until
then is on again once the bot polls."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from bot.emulator import BotApiEmulator
from bot.features.crisis import screen as crisis_screen
from bot.matching.crisis_model import CrisisModel
from tests.helpers.bot import BotUnderTest, make_settings


async def test_the_crisis_model_is_loaded_after_the_first_poll(
    emulator: BotApiEmulator, tmp_path: Path, clock, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(crisis_screen, "_loaded", None)
    monkeypatch.setattr(crisis_screen, "_failed", False)
    monkeypatch.setattr(crisis_screen, "_screen", None)
    polled_before: list[bool] = []

    def load(head: Path) -> CrisisModel:
        polled_before.append(any(method == "getUpdates" for method, _ in emulator.calls))
        raise OSError("not this time")  # the rules alone: cheap for a test

    monkeypatch.setattr(crisis_screen, "load_model", load)
    settings = make_settings(tmp_path / "data", emulator.base_url, crisis_model=True)
    bot = BotUnderTest(emulator, settings, clock)
    await bot.start()
    try:
        screen = bot.services.crisis_model
        assert screen is not None
        assert not await screen.loaded()
        assert polled_before == [True]  # asked once, and only once the bot polled
    finally:
        await bot.stop()


async def test_the_collector_is_on_again_once_the_bot_polls(
    emulator: BotApiEmulator, tmp_path: Path, clock
) -> None:  # type: ignore[no-untyped-def]
    bot = BotUnderTest(emulator, make_settings(tmp_path / "data", emulator.base_url), clock)
    gc.disable()  # as `python -m bot` starts
    try:
        await bot.start()
        assert gc.isenabled()
    finally:
        gc.enable()
        await bot.stop()
