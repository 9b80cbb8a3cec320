"""Updates from different chats run side by side; updates from one chat run in order.

PTB's default processes one update at a time, so a crisis message could queue behind
hundreds of other people's answers. Full concurrency would let two quick messages from the
same person race (the second part of an answer overtaking the first). One lock per chat
gives both: no head-of-line blocking across people, arrival order within a conversation.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor

MAX_CONCURRENT_UPDATES = 256


class PerChatUpdateProcessor(BaseUpdateProcessor):
    def __init__(self, max_concurrent_updates: int = MAX_CONCURRENT_UPDATES) -> None:
        super().__init__(max_concurrent_updates)
        self._locks: dict[int, asyncio.Lock] = {}
        self._waiting: dict[int, int] = {}

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        chat = update.effective_chat if isinstance(update, Update) else None
        if chat is None:
            await coroutine
            return
        key = chat.id
        lock = self._locks.setdefault(key, asyncio.Lock())
        self._waiting[key] = self._waiting.get(key, 0) + 1
        try:
            async with lock:
                await coroutine
        finally:
            self._waiting[key] -= 1
            if self._waiting[key] == 0:
                # Forget idle chats so the table does not grow with every person ever seen.
                del self._waiting[key]
                del self._locks[key]

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None
