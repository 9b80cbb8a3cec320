"""How updates are scheduled: crisis messages first, other chats side by side, each chat in
order.

- PTB's default handles one update at a time, so a crisis message could wait behind
  hundreds of other people's answers. We run updates from different chats concurrently.
- Full concurrency would let two quick messages from one person race (the second part of
  an answer overtaking the first), so each chat has a lock: arrival order within a
  conversation, no head-of-line blocking across people. Crisis messages skip it.
- PTB takes every fetched update off its queue at once and parks it on a concurrency
  semaphore, so under load that semaphore's queue is where updates wait. PTB's own
  semaphore (in its final `process_update`) is therefore left wide open, and ours, in
  `do_process_update`, is skipped by a crisis message (the same cheap check the crisis
  handler makes). A modest limit keeps the event loop responsive enough for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor

MAX_CONCURRENT_UPDATES = 32
# PTB's semaphore must never be the one updates queue on (see above).
_UNBOUNDED = 1_000_000


class CrisisFirstUpdateProcessor(BaseUpdateProcessor):
    def __init__(
        self,
        is_crisis: Callable[[str], bool],
        max_concurrent_updates: int = MAX_CONCURRENT_UPDATES,
    ) -> None:
        super().__init__(_UNBOUNDED)
        self._slots = asyncio.Semaphore(max_concurrent_updates)
        self._is_crisis = is_crisis
        self._locks: dict[int, asyncio.Lock] = {}
        self._waiting: dict[int, int] = {}

    def is_urgent(self, update: object) -> bool:
        if not isinstance(update, Update):
            return False
        message = update.message or update.edited_message
        if message is None or message.chat.type != "private":
            return False
        text = message.text or message.caption
        if not text:
            return False
        return text.startswith(("/sos", "/help")) or self._is_crisis(text)

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        if self.is_urgent(update):
            # Not even the person's own previous update (which may be waiting out a 429)
            # holds the reply back. Answer parts are ordered by message id, not by arrival,
            # so a crisis message overtaking an earlier part loses nothing.
            await coroutine
            return
        chat = update.effective_chat if isinstance(update, Update) else None
        if chat is None:
            async with self._slots:
                await coroutine
            return
        key = chat.id
        lock = self._locks.setdefault(key, asyncio.Lock())
        self._waiting[key] = self._waiting.get(key, 0) + 1
        try:
            # The chat's turn first, then a slot: a burst from one chat waits on its own
            # lock without holding slots that other people need.
            async with lock, self._slots:
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
