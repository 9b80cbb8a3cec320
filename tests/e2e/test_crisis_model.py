"""The learned crisis model through the real bot: what the rules miss still gets an answer,
inside a worksheet the text is held like any crisis text, calm answers are saved as before,
and the bot runs on the rules when the model cannot load."""

from __future__ import annotations

import gc
import logging

import pytest

from bench.bench_crisis import MODEL_ONLY
from bot.emulator import SentMessage
from bot.features.crisis import screen as crisis_screen
from bot.matching.crisis_model import CrisisModel
from tests.helpers.bot import USER, BotUnderTest, make_settings
from tests.helpers.crisis_model import CALM_CHECK, CALM_EMERGENCY, CALM_WITHDRAWN, CRISES
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


async def test_a_crisis_only_the_model_holds_is_read_ahead_of_a_fetched_backlog(
    model_bot: BotUnderTest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under a backlog the model's reading of a worrying message starts when it is fetched,
    not when its turn comes: at 200 updates/s a crisis only the model holds waited behind
    1,419 ordinary updates and its budget ran out (118 of 199 missed, docs/performance.md)."""
    bot = model_bot
    chats = [USER + 100 + i for i in range(8)]
    crisis_chat = chats[0]
    each = 40
    replies: list[tuple[int, str]] = []
    screen = bot.services.crisis_model
    assert screen is not None and screen.model is not None
    glanced_after: list[int] = []  # its chat's replies out when the model first saw the crisis

    class Watching(CrisisModel):
        def quick(self, text: str) -> float:
            if text == MODEL_ONLY and not glanced_after:
                glanced_after.append(sum(1 for chat, _ in replies if chat == crisis_chat))
            return super().quick(text)

    def on_event(message: SentMessage, event: str) -> None:
        if event == "sent":
            replies.append((message.chat_id, message.text or ""))

    shared = screen.model
    monkeypatch.setattr(screen, "model", Watching(shared.head, shared.encoder))
    bot.emu.add_listener(on_event)
    # Its own chat's backlog three times the others': the model's reading races that chat's
    # replies, and on a loaded machine a backlog as short as the others' was sometimes done
    # first (40 of 40 out before the answer, once in a run with a CPU hog beside the suite).
    for chat in chats:
        for i in range(each * 3 if chat == crisis_chat else each):
            await bot.send(f"note {i}: a quiet day, nothing much", user=chat)
    await bot.send(MODEL_ONLY, user=crisis_chat)  # last, behind its own chat's backlog
    await bot.next(crisis_chat, predicate=answered, timeout=120)
    await bot.settle(timeout=300)
    own = [text for chat, text in replies if chat == crisis_chat]
    at = next(i for i, text in enumerate(own) if CHECK in text or "112" in text or "911" in text)
    # The model first looked at it when it was fetched, with most of its chat's backlog still
    # to answer (in its turn, it would be after all 40), and its answer went out before that
    # backlog was done. How far ahead the answer is depends on the machine's load (the
    # model's reading races the chat's replies), so that bound is the backlog itself.
    assert glanced_after and glanced_after[0] < each // 2, (glanced_after, at)
    assert at < each * 3, (at, len(own))


async def test_the_cheap_view_is_computed_once_per_message(
    model_bot: BotUnderTest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The n-gram logit taken when a message is fetched (is it worrying enough to be read at
    once?) is also its place in the model's queue: it was computed twice for every private
    text, tens of microseconds each on the event loop."""
    bot = model_bot
    screen = bot.services.crisis_model
    assert screen is not None and screen.model is not None
    glanced: list[str] = []

    class Counting(CrisisModel):
        def quick(self, text: str) -> float:
            glanced.append(text)
            return super().quick(text)

    shared = screen.model
    calm = "the weather was lovely and we walked in the park"
    # One message read when fetched, one read in its turn.
    assert shared.quick(MODEL_ONLY) > crisis_screen.WORRY_ABOVE >= shared.quick(calm)
    await bot.onboard()
    monkeypatch.setattr(screen, "model", Counting(shared.head, shared.encoder))
    await bot.send(MODEL_ONLY)
    await bot.next(predicate=answered)
    await bot.send(calm)
    await bot.settle()
    assert not [m for m in bot.unread() if answered(m)]  # the calm one was read: no reply
    assert screen.read >= 2
    assert glanced == [MODEL_ONLY, calm]


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


async def test_a_calm_text_the_rules_alarm_on_goes_one_step_down(model_bot: BotUnderTest) -> None:
    """The model's second opinion on the rules' reply: a scout troop's first-aid evening
    gets the safety check, not the emergency reply; a crime drama about stalking gets no
    check, nor does a class's film about a threat; a crisis keeps the emergency reply."""
    bot = model_bot
    detector = bot.services.content.detector
    assert (found := detector.detect(CALM_EMERGENCY)) is not None and found.certain
    assert (found := detector.detect(CALM_CHECK)) is not None and not found.certain
    await bot.onboard()
    await bot.send(CALM_EMERGENCY)
    reply = await bot.next(predicate=answered)
    assert CHECK in (reply.text or "")  # asked, not the emergency numbers
    await bot.send(CALM_CHECK)
    await bot.settle()
    assert not [m for m in bot.unread() if answered(m)]
    assert (found := detector.detect(CALM_WITHDRAWN)) is not None and found.certain
    await bot.send(CALM_WITHDRAWN)  # read as calm beyond doubt: the emergency reply withdrawn
    await bot.settle()
    assert not [m for m in bot.unread() if answered(m)]
    await bot.send(CRISES[0])
    reply = await bot.next(predicate=answered)
    assert CHECK not in (reply.text or "") and "999" in (reply.text or "")


async def test_the_loaded_model_is_out_of_the_collectors_sight(model_bot: BotUnderTest) -> None:
    # It loads after start-up froze the heap. Unfrozen, every full collection walked it:
    # pauses of 30-51 ms ahead of crisis replies, with the model on (docs/performance.md).
    runtime = model_bot.runtime
    assert runtime is not None and runtime._freezing is not None
    await runtime._freezing
    screen = model_bot.services.crisis_model
    assert screen is not None and screen.model is not None and gc.is_tracked(screen.model)
    assert not any(o is screen.model for g in range(3) for o in gc.get_objects(g))
