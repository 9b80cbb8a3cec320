"""The crisis detector as the early path uses it: short texts at once, long ones off the
event loop, each chat in turn (issue 27, finding 2).

Detection costs microseconds on a chat-length message and 5-36 ms on a 4,096-character
one. On the event loop, a flood of long texts from one chat stalls every other reply,
the crisis replies included. So:

- a text up to `INLINE_CHARS` is read where it is asked for (no thread hop for the case
  that matters most: "help", "he is outside");
- a longer one goes to one worker thread, through a queue per chat taken in turn (round
  robin), so one chat's thousand long texts cost anyone else at most the one text being
  read when theirs arrives, never the chat's whole backlog;
- the answer for each of the last few long texts is kept (by the text itself, in memory
  only, `REMEMBERED` of them) so the early path, the crisis group and the cover's check
  read a long text once between them, and a chat that sends the same long text again and
  again is read once;
- the answer for each recent update is kept by its update id (`note`, `match_for`): the
  processor's screen, the early reply, the cover's check and the crisis group use the one
  match computed for the message, and none of them reads it again.

A thread, not a process: the detector is built from content at start, and a process would
need its own copy (memory, start-up time) and a copy of every text. A thread shares the
GIL with the loop, so a busy worker makes each of the loop's turns up to the interpreter's
switch interval (5 ms) slower; it never blocks it, which is what the flood did.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor

from bot.core.recent import Recent
from bot.matching.crisis import CrisisMatch

log = logging.getLogger(__name__)

INLINE_CHARS = 512  # a chat-length message: read inline (measured well under a millisecond)
REMEMBERED = 64  # long texts whose answer is kept, newest first
# Updates whose answer is kept: an update is screened when fetched and handled soon after.
UPDATES_REMEMBERED = 4096

Detect = Callable[[str], CrisisMatch | None]
_Job = tuple[str, "asyncio.Future[CrisisMatch | None]"]


class CrisisScreen:
    def __init__(self, detect: Detect) -> None:
        self._detect = detect
        self._pool: ThreadPoolExecutor | None = None
        self._queues: OrderedDict[Hashable, deque[_Job]] = OrderedDict()
        self._pending: dict[str, asyncio.Future[CrisisMatch | None]] = {}
        self._known: OrderedDict[str, CrisisMatch | None] = OrderedDict()
        self._worker: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._by_update: Recent[int, CrisisMatch | None] = Recent(UPDATES_REMEMBERED)

    def note(self, update_id: int, found: CrisisMatch | None) -> None:
        """This update's text was read: its answer is kept for whoever asks next."""
        self._by_update[update_id] = found

    def noted(self, update_id: int) -> CrisisMatch | bool | None:
        """The answer already computed for this update: a match or None; False if none was."""
        if update_id not in self._by_update:
            return False
        return self._by_update.get(update_id)

    async def match_for(
        self, update_id: int, text: str, chat: Hashable = None
    ) -> CrisisMatch | None:
        """This update's match, computed once whoever asks first."""
        found = self.noted(update_id)
        if found is not False:
            return found if isinstance(found, CrisisMatch) else None
        match = await self.detect(text, chat)
        self.note(update_id, match)
        return match

    def quick(self, text: str) -> CrisisMatch | bool | None:
        """The answer without waiting, when there is one: a match or None for a short or
        already-read text; False when the text has to wait for the worker."""
        if len(text) <= INLINE_CHARS:
            return self._detect(text)
        if text in self._known:
            return self._known[text]
        return False

    async def detect(self, text: str, chat: Hashable = None) -> CrisisMatch | None:
        """The detector's answer; a long text waits its chat's turn at the worker."""
        found = self.quick(text)
        if found is not False:
            return found if isinstance(found, CrisisMatch) else None
        pending = self._pending.get(text)
        if pending is None:
            pending = asyncio.get_running_loop().create_future()
            self._pending[text] = pending
            self._queues.setdefault(chat, deque()).append((text, pending))
            self._start()
        return await asyncio.shield(pending)

    def _start(self) -> None:
        self._wake.set()
        if self._worker is None or self._worker.done():
            self._pool = self._pool or ThreadPoolExecutor(1, thread_name_prefix="crisis-screen")
            self._worker = asyncio.get_running_loop().create_task(self._work())

    def _next_job(self) -> _Job | None:
        while self._queues:
            chat, queue = next(iter(self._queues.items()))
            job = queue.popleft()
            if queue:
                self._queues.move_to_end(chat)  # the next chat goes first next time
            else:
                del self._queues[chat]
            return job
        return None

    async def _work(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            job = self._next_job()
            if job is None:
                self._wake.clear()
                await self._wake.wait()
                continue
            text, future = job
            try:
                found = await loop.run_in_executor(self._pool, self._detect, text)
            except Exception as exc:  # the detector never raises; if it did, say "unsure"
                log.warning("crisis screen failed on a long text: %s", type(exc).__name__)
                found = None
            self._pending.pop(text, None)
            self._known[text] = found
            while len(self._known) > REMEMBERED:
                self._known.popitem(last=False)
            if not future.done():
                future.set_result(found)

    async def close(self) -> None:
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await worker
        for future in self._pending.values():
            if not future.done():
                future.cancel()
        self._pending.clear()
        self._queues.clear()
        self._known.clear()
        self._by_update = Recent(UPDATES_REMEMBERED)
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
