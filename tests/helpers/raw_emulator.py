"""The emulator on its own, for tests of the emulator itself: a hand-moved clock, one known
user, and a plain PTB `Bot` talking to it (no Steady bot). Test modules import these
fixtures by name, so within such a module `clock`, `emu` and `bot` mean these ones."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from telegram import Bot

from bot.emulator import BotApiEmulator

TOKEN = "123456:TEST-token_abc"
BOT_ID = 123456
USER = 1001
START = 1_700_000_000.0
TWO_DAYS = 48 * 3600


class FakeClock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def emu(clock: FakeClock) -> AsyncIterator[BotApiEmulator]:
    emulator = BotApiEmulator(clock=clock)
    await emulator.start()
    try:
        yield emulator
    finally:
        await emulator.stop()
    assert emulator.internal_errors == []


@pytest.fixture
async def bot(emu: BotApiEmulator) -> AsyncIterator[Bot]:
    emu.add_user(USER)
    async with Bot(TOKEN, base_url=emu.base_url) as client:
        yield client
