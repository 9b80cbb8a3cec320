"""No update can stop the bot: a poison update is skipped by id and type, the offset moves
past it, another person's crisis message behind it is answered, and the log stays small
and free of the payload (through the same handler and filter production uses)."""

from __future__ import annotations

import io
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from bot.emulator import BotApiEmulator
from bot.logs import log_handler
from bot.transport.intake import ALLOWED_UPDATES, MainBot
from tests.helpers.bot import USER, BotUnderTest
from tests.helpers.reporting import report

OTHER = 2002
CANARY = "CANARY-poison-otter-5521"


@contextmanager
def production_log(level: int = logging.DEBUG) -> Iterator[io.StringIO]:
    buffer = io.StringIO()
    handler = log_handler(buffer)
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(level)
    try:
        yield buffer
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)


def poison(emu: BotApiEmulator, user: int, text: str) -> dict[str, Any]:
    """A message this PTB cannot parse: an entity without the offset and length it requires
    (what Bot API drift looks like from the client's side)."""
    payload = {
        "message_id": 900 + user % 97,
        "from": {"id": user, "is_bot": False, "first_name": "Test"},
        "chat": {"id": user, "type": "private", "first_name": "Test"},
        "date": 1_764_493_200,
        "text": text,
        "entities": [{"type": "bold"}],
    }
    return emu.deliver_raw("message", payload)


def main_bot(bot: BotUnderTest) -> MainBot:
    assert bot.runtime is not None and bot.runtime.app is not None
    app_bot = bot.runtime.app.bot
    assert isinstance(app_bot, MainBot)
    return app_bot


async def test_poison_update_is_skipped_and_the_crisis_behind_it_answered(
    bot: BotUnderTest, emulator: BotApiEmulator
) -> None:
    with production_log() as log:
        bad = poison(emulator, USER, f"I want to die {CANARY}")
        started = time.perf_counter()
        await bot.send("I want to die", user=OTHER)
        await bot.next(OTHER, containing="help is possible")
        latency = time.perf_counter() - started
        # A poison update last in its batch: the next poll must ask from past it.
        tail = poison(emulator, USER, f"second {CANARY}")
        await bot.settle()
        await bot.send("/sos", user=OTHER)
        await bot.next(OTHER)
        await bot.settle()
    text = log.getvalue()
    assert main_bot(bot).skipped_updates == 2
    assert emulator.pending_updates() == 0
    for update in (bad, tail):
        assert f"id {update['update_id']}, type message (TypeError)" in text
    assert CANARY not in text
    assert "I want to die" not in text
    assert "entities" not in text
    assert len(text) < 20_000, len(text)
    report(
        f"poison update: crisis reply behind it in {latency * 1000:.0f} ms; "
        f"log {len(text)} bytes at DEBUG, {text.count(chr(10))} lines"
    )


async def test_only_the_handled_update_types_are_subscribed(
    bot: BotUnderTest, emulator: BotApiEmulator
) -> None:
    await bot.send("/sos")
    await bot.next()
    await bot.settle()
    asked = [p.get("allowed_updates") for m, p in emulator.calls if m == "getUpdates"]
    assert asked and all(a == list(ALLOWED_UPDATES) for a in asked), asked
    # A kind the bot did not ask for is never delivered (Telegram drops it too).
    emulator.deliver_raw("poll", {"id": "1"})
    assert emulator.pending_updates() == 0
    assert main_bot(bot).skipped_updates == 0
