"""Riding the wave's steps: logging an urge, the check-back, the due job."""

from __future__ import annotations

from datetime import timedelta

from bot.emulator import SentMessage
from bot.features.urge.handlers import JOB_NAME
from tests.helpers.bot import BotUnderTest, buttons_of

STRENGTH = "How strong is the pull"

CHECK_BACK = "How strong is the pull now"


async def run_due(bot: BotUnderTest) -> None:
    await bot.settle()
    runtime = bot.runtime
    assert runtime is not None and runtime.app is not None
    job = runtime.jobs[JOB_NAME]
    job.enabled = False  # the test decides when a pass runs
    await job.run(runtime.app)
    await bot.settle()


def pause_due_job(bot: BotUnderTest) -> None:
    assert bot.runtime is not None
    bot.runtime.jobs[JOB_NAME].enabled = False


async def press_and_read(
    bot: BotUnderTest, message: SentMessage, label: str, containing: str
) -> SentMessage:
    await bot.press(message, label)
    return await bot.next(containing=containing)


async def through_the_flow(bot: BotUnderTest, *, strength: str = "8") -> None:
    """/urge to "I'm all right for now": strength, a typed trigger, a held draft, the steps."""
    await bot.send("/urge")
    ask = await bot.next(containing=STRENGTH)
    assert [label for label, _ in buttons_of(ask)] == [str(n) for n in range(11)]
    trigger = await press_and_read(bot, ask, strength, "What set it off")
    assert "Loneliness" in [label for label, _ in buttons_of(trigger)]
    typed = await press_and_read(bot, trigger, "Something else", "In a few words")
    await bot.send("his birthday photo came up")
    offer = await bot.next(containing="I'll hold it")
    ask_draft = await press_and_read(bot, offer, "Write it here", "Write it here")
    assert ask_draft.text
    await bot.send("I miss you, can we talk")
    await bot.next(containing="I'm holding it, encrypted")
    step = await bot.next(containing="Urges come in waves")
    seen = 1
    while True:
        await bot.press(step, "Next")
        step = await bot.next()
        if "What would help" in (step.text or ""):
            break
        seen += 1
    assert seen >= 3
    menu = step
    await bot.press(menu, "My reasons")
    menu = await bot.next(containing="haven't written your reasons")
    await bot.press(menu, "I'm all right for now")
    done = await bot.next(containing="You came through this one")
    assert "I'll check back in 20 minutes" in (done.text or "")
    assert typed is not None


async def log_urge(bot: BotUnderTest, strength: str, later: str | None = None) -> None:
    await bot.send("/urge")
    ask = await bot.next(containing=STRENGTH)
    await press_and_read(bot, ask, strength, "What set it off")
    if later is not None:
        bot.clock.advance(timedelta(minutes=20))
        await run_due(bot)
        check = await bot.next(containing=CHECK_BACK)
        await bot.press(check, later)
        await bot.next(containing="Before:")
