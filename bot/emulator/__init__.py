"""A local Telegram Bot API server for end-to-end tests and the sandbox."""

from bot.emulator.emulator import WAIT_SECONDS, BotApiEmulator
from bot.emulator.faults import FaultKind
from bot.emulator.state import MessageEvent, MessageListener, SentDocument, SentMessage

__all__ = [
    "WAIT_SECONDS",
    "BotApiEmulator",
    "FaultKind",
    "MessageEvent",
    "MessageListener",
    "SentDocument",
    "SentMessage",
]
