"""How updates are scheduled: crisis messages first, other chats side by side, each chat in
order.

- PTB's default handles one update at a time, so a crisis message could wait behind
  hundreds of other people's answers. We run updates from different chats concurrently.
- Full concurrency would let two quick messages from one person race (the second part of
  an answer overtaking the first), so each chat has a lock: arrival order within a
  conversation, no head-of-line blocking across people.
- PTB takes every fetched update off its queue at once and parks it on a concurrency
  semaphore, so under load that semaphore's queue is where updates wait. PTB's own
  semaphore (in its final `process_update`) is therefore left wide open. A crisis message
  (the same cheap check the crisis handler makes) gets its reply sent here, before any
  lock or limit; the rest of it (a worksheet answer, say) then waits for its chat's turn
  like any message. A modest limit keeps the event loop responsive.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor

log = logging.getLogger(__name__)

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
        # Per chat, the updates in arrival order; the first one runs.
        self._turns: dict[int, deque[asyncio.Future[None]]] = {}
        # Set by app.py: sends the crisis reply for an urgent update before anything waits.
        self.early_reply: Callable[[Update], Awaitable[None]] | None = None
        # Set by app.py: starts the crisis model's reading of a message (a task, off the
        # event loop) before the message waits for anything; its reply follows the rules'.
        self.early_look: Callable[[Update], None] | None = None
        # Set by app.py: the panic word's wipe and decoy, from memory; True if it was one.
        self.early_panic: Callable[[Update], Awaitable[bool]] | None = None
        # Webhook mode: update ids whose early reply the route already sent (before it
        # looked the update id up), so it is not sent twice.
        self.replied_early: set[int] = set()
        # Webhook mode on PostgreSQL: held around an update's handling, after the crisis
        # reply, so two replicas never change one person's state at once.
        self.chat_guard: Callable[[int], AbstractAsyncContextManager[None]] | None = None

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
        chat = update.effective_chat if isinstance(update, Update) else None
        if chat is None:
            async with self._slots:
                await coroutine
            return
        # The place in the chat's queue is taken before the first await: PTB starts update
        # tasks in arrival order, so places follow arrival even if the reply below is slow.
        turn = self._take_turn(chat.id)
        try:
            panic = False
            if self.early_panic is not None and isinstance(update, Update):
                # Before any lock or slot, like the crisis reply: the screen is being watched.
                try:
                    panic = await self.early_panic(update)
                except Exception as exc:  # the panic group tries again in order
                    log.warning("early panic path failed: %s", type(exc).__name__)
            # A panic word is never a crisis word (validated when chosen); its update takes
            # no slot either.
            urgent = panic or self.is_urgent(update)
            if not panic and self.early_look is not None and isinstance(update, Update):
                try:
                    self.early_look(update)
                except Exception as exc:  # the rules still answer
                    log.warning("crisis model not started: %s", type(exc).__name__)
            replied = isinstance(update, Update) and self._replied(update.update_id)
            if (
                not panic
                and urgent
                and not replied
                and self.early_reply is not None
                and isinstance(update, Update)
            ):
                # The reply goes out now, ahead of everything, even the person's own previous
                # update (which may be waiting out a 429). What the message means otherwise
                # (a worksheet answer, a journal entry) is handled below in the chat's order,
                # so it is filed against the question the person was looking at.
                try:
                    await self.early_reply(update)
                except Exception as exc:  # the crisis group tries again in order
                    log.warning("early crisis reply failed: %s", type(exc).__name__)
            await turn
            guard = self.chat_guard(chat.id) if self.chat_guard is not None else nullcontext()
            # The chat's turn first, then a slot: a burst from one chat waits without
            # holding slots others need. A crisis message takes none: it must not queue.
            async with guard:
                if urgent:
                    await coroutine
                else:
                    async with self._slots:
                        await coroutine
        finally:
            self._end_turn(chat.id, turn)

    def _replied(self, update_id: int) -> bool:
        if update_id in self.replied_early:
            self.replied_early.discard(update_id)
            return True
        return False

    def _take_turn(self, chat_id: int) -> asyncio.Future[None]:
        queue = self._turns.setdefault(chat_id, deque())
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue.append(turn)
        if len(queue) == 1:
            turn.set_result(None)
        return turn

    def _end_turn(self, chat_id: int, turn: asyncio.Future[None]) -> None:
        queue = self._turns[chat_id]
        was_first = queue[0] is turn
        queue.remove(turn)
        if not queue:
            del self._turns[chat_id]  # idle chats leave no trace
        elif was_first and not queue[0].done():
            # A cancelled waiter's future is done already; its own cleanup passes the turn on.
            queue[0].set_result(None)

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None
