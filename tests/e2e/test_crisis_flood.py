"""One chat's flood cannot delay anyone else's crisis reply (issue 27, finding 2): the
crisis sender keeps each chat in its own lane, a 429 pauses only the chat it names, and a
chat's repeated crisis words coalesce instead of queueing in front of everyone."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.emulator import SentMessage
from tests.helpers.bot import USER, BotUnderTest

FLOODER = USER + 77
FLOOD = 60


def crisis_replies(bot: BotUnderTest, chat: int) -> list[SentMessage]:
    return [m for m in bot.emu.messages_to(chat) if "999" in (m.text or "")]


async def flood_control_reported(caplog: pytest.LogCaptureFixture, timeout: float = 20) -> None:
    """Wait until the bot says it got a 429 (its send policy logs each one)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not any("flood control" in r.getMessage() for r in caplog.records):
        if loop.time() > deadline:
            raise TimeoutError("no 429 reached the bot")
        await asyncio.sleep(0.01)  # polling what the bot reports, bounded by the deadline


async def test_one_chats_429_pauses_only_that_chat(
    bot: BotUnderTest, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="bot.send_policy")
    # Telegram's per-chat flood control: every reply to the flooding chat is refused with
    # a long retry_after, for as long as the test runs.
    bot.emu.inject_fault("sendMessage", "429", times=10_000, chat_id=FLOODER, retry_after=60)
    for _ in range(FLOOD):
        await bot.send("help", user=FLOODER)
    await flood_control_reported(caplog)
    await bot.send("I want to die")
    # Today's main paused the whole crisis sender for the flooder's 60 s: this waited.
    reply = await bot.next(USER, containing="999", timeout=20)
    assert reply.text
    # The flooder's chat is still inside its retry_after: nothing reached it.
    assert crisis_replies(bot, FLOODER) == []
    bot.emu.clear_faults()


async def test_a_chats_repeated_crisis_words_coalesce_behind_that_chat(
    bot: BotUnderTest,
) -> None:
    for _ in range(FLOOD * 3):
        await bot.send("help", user=FLOODER)
    await bot.send("I want to die")
    await bot.next(USER, containing="999", timeout=20)
    # Another person's reply came before the flood's tenth (main answered every one of
    # the 180, in arrival order, on one pool: this one came after most of them).
    assert len(crisis_replies(bot, FLOODER)) < 10
    await bot.settle(timeout=60)
    flood = crisis_replies(bot, FLOODER)
    # Coalesced: a few replies answer the whole burst (each a full crisis reply).
    assert 1 <= len(flood) <= 3 * 2
