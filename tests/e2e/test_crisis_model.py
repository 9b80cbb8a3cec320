"""The learned crisis model through the real bot: what the rules miss still gets an answer,
inside a worksheet the text is held like any crisis text, calm answers are saved as before,
and the bot runs on the rules when the model cannot load."""

from __future__ import annotations

import logging

import pytest

from bench.bench_crisis import MODEL_ONLY
from bot.features.crisis import screen as crisis_screen
from tests.helpers.bot import BotUnderTest, make_settings
from tests.helpers.worksheets import answer, begin, has_button, labels, saved_answers, sheet

CHECK = "Are you safe right now?"


def answered(message: object) -> bool:
    text = getattr(message, "text", "") or ""
    return CHECK in text or "Clear this from the chat" in labels(message)  # type: ignore[arg-type]


async def test_a_crisis_the_rules_miss_gets_an_answer(model_bot: BotUnderTest) -> None:
    bot = model_bot
    assert bot.services.content.detector.detect(MODEL_ONLY) is None  # no rule holds it
    await bot.onboard(country="ES")
    await bot.send(MODEL_ONLY)
    screen = bot.services.crisis_model
    assert screen is not None
    try:
        reply = await bot.next(predicate=answered)  # the check, or the emergency reply
    except TimeoutError as exc:
        # Twice under the full suite no reply came in 60 s; the model's state says where.
        raise TimeoutError(f"{exc}\ncrisis model: {screen.state()}") from None
    assert "112" in (reply.text or "") or CHECK in (reply.text or "")
    assert MODEL_ONLY not in (reply.text or "")  # never echo what the person wrote


async def test_a_number_a_time_or_a_greeting_is_not_read_by_the_model(
    model_bot: BotUnderTest,
) -> None:
    """A button's number, a strength, a time, a greeting: too few words for the model to
    read (it once answered a lone "7", "07:30" and "hi" with the crisis reply)."""
    bot = model_bot
    await bot.onboard()
    for text in ("7", "07:30", "20h30", "8/10", "🙂", "hi", "hola"):
        await bot.send(text)
    await bot.settle()
    assert not [m for m in bot.unread() if answered(m)]


async def test_inside_a_worksheet_the_text_is_held_and_calm_answers_are_saved(
    model_bot: BotUnderTest,
) -> None:
    bot = model_bot
    await bot.onboard()
    await begin(bot)
    await answer(bot, "I would like to feel calmer in the mornings")
    await bot.send(MODEL_ONLY)
    reply = await bot.next(predicate=has_button("Keep as my answer"))
    assert answered(reply)
    await bot.press(reply, "Don't keep")
    await bot.next(containing="Not kept")
    first = sheet(bot).questions[0].id
    assert await saved_answers(bot) == {first: ("I would like to feel calmer in the mornings",)}


async def test_without_the_model_the_rules_still_answer(
    emulator, tmp_path, clock, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(crisis_screen, "_loaded", None)
    monkeypatch.setattr(crisis_screen, "_failed", False)
    monkeypatch.setattr(crisis_screen, "_screen", None)

    def broken(head: object) -> object:
        raise OSError("no model here")

    monkeypatch.setattr(crisis_screen, "load_model", broken)
    settings = make_settings(tmp_path / "data", emulator.base_url, crisis_model=True)
    bot = BotUnderTest(emulator, settings, clock)
    with caplog.at_level(logging.INFO, logger="bot.features.crisis.screen"):
        await bot.start()
        screen = bot.services.crisis_model
        assert screen is not None
        assert not await screen.loaded()  # tried after the first poll, in its worker
    try:
        assert screen.failed
        assert [r for r in caplog.records if "crisis model not loaded" in r.getMessage()]
        await bot.onboard()
        await bot.send("help")
        await bot.next(containing="999")
        await bot.send(MODEL_ONLY)  # nothing holds it now: no reply, no error
        await bot.settle()
        assert not [m for m in bot.unread() if answered(m)]
    finally:
        await bot.stop()
