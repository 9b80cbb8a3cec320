"""The daily check-ins' steps: the dispatcher's pass, a prompt arriving, the journal's
entries."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.emulator import SentMessage
from bot.features.checkins.delivery import Dispatcher, PassReport
from bot.features.checkins.handlers import JOB_NAME
from bot.features.checkins.journal import JournalService
from bot.people.service import Person
from tests.helpers.bot import USER, BotUnderTest

HINT = "Your words are kept"  # in every prompt message, nowhere else


def utc(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0
) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC)


def daily(bot: BotUnderTest) -> Dispatcher:
    tick = bot.runtime.jobs.get(JOB_NAME) if bot.runtime is not None else None
    if tick is not None:
        tick.enabled = False  # the test decides when a pass runs
    return bot.dispatcher


def journal(bot: BotUnderTest) -> JournalService:
    return bot.offers.journal


async def run(bot: BotUnderTest) -> PassReport:
    await bot.settle()
    report = await daily(bot).run_once()
    await bot.settle()
    return report


async def join(
    bot: BotUnderTest,
    user: int = USER,
    *,
    country: str = "GB",
    zone: str | None = None,
    time: str = "07:30",
    discreet: bool = False,
) -> None:
    """Onboard through the real flow, typing the time as a person would."""
    daily(bot)
    await bot.send("/start", user=user)
    ask = await bot.next(user, containing="Which country")
    await bot.press(ask, data=f"cty:{country}", user=user)
    if zone is not None:
        zones = await bot.next(user, containing="Which time zone")
        await bot.press(zones, data=f"tz:{zone}", user=user)
    await bot.next(user, containing="check-in once a day")
    await bot.send(time, user=user)
    safety = await bot.next(user, containing="Could someone else read")
    if discreet:
        await bot.press(safety, data="safe:yes", user=user)
        advice = await bot.next(user, containing="passcode")
        await bot.press(advice, data="safe:discreet", user=user)
    else:
        await bot.press(safety, data="safe:no", user=user)
    await bot.next(user, containing="All set")
    await bot.settle()


async def person(bot: BotUnderTest, user: int = USER) -> Person:
    found = await bot.services.people.load(user)
    assert found is not None
    return found


def prompts_to(bot: BotUnderTest, user: int = USER) -> list[SentMessage]:
    # A neutral prompt shows only its header until "Show" is tapped.
    return [
        m
        for m in bot.emu.messages_to(user)
        if HINT in (m.text or "") or (m.text or "").startswith("Your daily check-in")
    ]


async def prompt_arrives(bot: BotUnderTest, user: int = USER) -> SentMessage:
    await join(bot, user)
    bot.clock.set(utc(2026, 12, 1, 7, 30))
    await run(bot)
    bot.skip_all(user)
    return prompts_to(bot, user)[-1]


async def entries(bot: BotUnderTest, user: int = USER) -> list[str]:
    page = await journal(bot).page(await person(bot, user), 0, 100)
    return [e.text for e in page.entries]
