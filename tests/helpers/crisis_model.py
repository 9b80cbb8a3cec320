"""The bot as it runs in production, rules and the learned crisis model, for the tests of
the model's path (the rest of the suite runs rules only: tests/helpers/bot.py)."""

from __future__ import annotations

import pytest

from bot.features.crisis.handlers import crisis as crisis_handlers
from tests.helpers.bot import BotUnderTest, make_settings

# Ours, written for the second opinion's tests (not from any evaluation set): what the
# shipped rules send the emergency reply or the check to, and the shipped model reads as calm.
CALM_EMERGENCY = "my aunt's stories about a man who threatened to kill his brother go on forever"
# ... and one it reads as calm beyond doubt (P(crisis) below EMERGENCY_WITHDRAWN_BELOW).
CALM_WITHDRAWN = (
    "our scout troop learned the recovery position and what to do if someone overdoses "
    "on a camping trip"
)
CALM_CHECK = "the crime drama last night was about a man stalking his ex, well acted but heavy"
CRISES = (
    "he's outside my door right now and he has a knife, please help",
    "I took all of my pills an hour ago and I feel really strange now",
    "my husband raped me last night and I don't know what to do",
    "my boyfriend hit my son so hard that he has a bruise all over his face",
)
# Crises the shipped model reads as calm whole (P(crisis) 0.03-0.04), told after the day's
# news or as a sentence of their own in the middle of it.
DILUTED = (
    "busy day at the office, cooked pasta, folded the laundry, then she came home and she is "
    "holding a knife",
    "Le chauffagiste est venu ce matin pour la chaudière. AU SECOURS. On a mangé chez ma "
    "tante ce midi.",
)
# Calm texts whose last clause, read alone, the shipped model finds worrying (it has lost
# what made the text calm), though the rules find nothing in it.
CALM_LAST_CLAUSE = (
    "nursing school today was all about overdoses and how to treat them, hope i can help people",
    "my little brother asked what rape means after the news, how do i help him understand",
)


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
    wait, screen.second_wait = screen.second_wait, 60.0
    try:
        yield under_test
    finally:
        screen.budget, screen.second_wait = budget, wait
        await under_test.stop()
