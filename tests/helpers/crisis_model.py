"""The bot as it runs in production, rules and the learned crisis model, for the tests of
the model's path (the rest of the suite runs rules only: tests/helpers/bot.py)."""

from __future__ import annotations

import pytest

from bot.features.crisis.handlers import crisis as crisis_handlers
from tests.helpers.bot import BotUnderTest, make_settings


@pytest.fixture
async def model_bot(emulator, tmp_path, clock, monkeypatch):  # type: ignore[no-untyped-def]
    """The bot as it runs in production: rules and the learned model."""
    monkeypatch.setattr(crisis_handlers, "IN_ORDER_WAIT", 60.0)
    settings = make_settings(tmp_path / "data", emulator.base_url, crisis_model=True)
    under_test = BotUnderTest(emulator, settings, clock)
    await under_test.start()
    screen = under_test.services.crisis_model
    assert screen is not None
    assert await screen.loaded()  # in its worker, after the first poll
    budget, screen.budget = screen.budget, 60.0  # a loaded test machine is not the bot's
    try:
        yield under_test
    finally:
        screen.budget = budget
        await under_test.stop()
