"""A worksheet's steps: begin, answer, what was saved."""

from __future__ import annotations

from collections.abc import Callable

from bot.content.worksheet_model import Worksheet
from bot.emulator import SentMessage
from bot.features.worksheets.service import WorksheetService
from bot.people.service import Person
from bot.storage.worksheets import WorksheetStore
from tests.helpers.bot import USER, BotUnderTest, buttons_of

WS = "bond_or_love"  # 14 questions in 4 sections


def labels(message: SentMessage) -> list[str]:
    return [label for label, _ in buttons_of(message)]


def has_button(label: str) -> Callable[[SentMessage], bool]:
    return lambda m: any(label in text for text in labels(m))


def sheet(bot: BotUnderTest, worksheet_id: str = WS) -> Worksheet:
    return bot.services.content.worksheets[worksheet_id]


async def person_of(bot: BotUnderTest) -> Person:
    person = await bot.services.people.load(USER)
    assert person is not None
    return person


def svc(bot: BotUnderTest) -> WorksheetService:
    return WorksheetService(
        WorksheetStore(bot.services.db),
        bot.services.content.worksheets,
        bot.services.clock,
        bot.services.keys,
    )


async def saved_answers(bot: BotUnderTest, worksheet_id: str = WS) -> dict[str, tuple[str, ...]]:
    answers = await svc(bot).answers(await person_of(bot), worksheet_id)
    return {qid: answer.parts for qid, answer in answers.items()}


async def begin(bot: BotUnderTest, worksheet_id: str = WS) -> SentMessage:
    """/worksheets, open one, Start: returns its first question."""
    await bot.send("/worksheets")
    listing = await bot.next(containing="Worksheets")
    await bot.press(listing, data=f"ws:open:{worksheet_id}")
    intro = await bot.next(predicate=has_button("Start"))
    assert sheet(bot, worksheet_id).title in (intro.text or "")
    await bot.press(intro, "Start")
    return await bot.next(containing="Question 1 of")


async def answer(bot: BotUnderTest, text: str) -> SentMessage:
    await bot.send(text)
    return await bot.next(containing="Saved")
