"""The emulator's webhook mode: Telegram posting updates to the bot's replicas.

As Telegram does: each update is POSTed with the secret header; a chat has at most one
update in flight (its next waits for the answer); updates of different chats go out side by
side, up to `max_connections`; a non-2xx answer or a failed connection is retried with
backoff until a replica takes it. The emulator also plays the load balancer in front of
several replicas (`targets`, taken in turn), and on request misbehaves the ways Telegram
may: `reorder` (updates of different chats leave out of arrival order) and `duplicate`
(every update is delivered twice, the second time to the next replica).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from bot.emulator.state import UpdateQueue, WebhookConfig

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"  # noqa: S105 - a header name
RETRY_FIRST = 0.05
RETRY_MOST = 1.0


def chat_of(update: dict[str, Any]) -> int | None:
    for kind, payload in update.items():
        if kind == "update_id" or not isinstance(payload, dict):
            continue
        chat = payload.get("chat") or (payload.get("message") or {}).get("chat")
        if isinstance(chat, dict) and isinstance(chat.get("id"), int):
            return int(chat["id"])
        sender = payload.get("from")
        if isinstance(sender, dict) and isinstance(sender.get("id"), int):
            return int(sender["id"])
    return None


@dataclass
class DeliveryLog:
    """What the pusher did: for tests (which replica got what, how often it retried)."""

    posts: list[tuple[int, str, int]] = field(default_factory=list)  # (update id, url, status)
    retries: int = 0


class WebhookPusher:
    def __init__(
        self,
        queue: UpdateQueue,
        config: WebhookConfig,
        *,
        targets: Sequence[str] | None = None,
        reorder: bool = False,
        duplicate: bool = False,
        seed: int = 0,
    ) -> None:
        self._queue = queue
        self._config = config
        self._targets = itertools.cycle(list(targets) if targets else [config.url])
        self._reorder = reorder
        self._duplicate = duplicate
        self._random = random.Random(seed)  # noqa: S311 - a test double's shuffle
        self._busy: set[int] = set()  # chats with an update in flight
        self._in_flight: set[int] = set()  # update ids
        self._tasks: set[asyncio.Task[None]] = set()
        self._runner: asyncio.Task[None] | None = None
        self._session: aiohttp.ClientSession | None = None
        self.log = DeliveryLog()

    def start(self) -> None:
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30))
        self._runner = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._runner
            self._runner = None
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def _run(self) -> None:
        while True:
            waiting = [u for u in self._queue.take(10_000) if u["update_id"] not in self._in_flight]
            if self._reorder:
                self._random.shuffle(waiting)
            started_chats: set[int] = set()
            for update in waiting:
                if len(self._in_flight) >= self._config.max_connections:
                    break
                chat = chat_of(update)
                key = chat if chat is not None else -int(update["update_id"])
                # One at a time per chat, and in arrival order: a chat's later update never
                # leaves before its earlier one, even when reordering across chats.
                if key in self._busy or key in started_chats:
                    started_chats.add(key)
                    continue
                if self._reorder and self._earlier_pending(update, key):
                    continue
                started_chats.add(key)
                self._busy.add(key)
                self._in_flight.add(int(update["update_id"]))
                task = asyncio.create_task(self._deliver(update, key))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            await self._queue.changed.wait(1.0)

    def _earlier_pending(self, update: dict[str, Any], key: int) -> bool:
        for other in self._queue.take(10_000):
            if other["update_id"] >= update["update_id"]:
                return False
            if chat_of(other) == key:
                return True
        return False

    async def _deliver(self, update: dict[str, Any], key: int) -> None:
        try:
            await self._post_until_taken(update)
            if self._duplicate:
                await self._post_until_taken(update)
        finally:
            self._queue.remove(int(update["update_id"]))
            self._in_flight.discard(int(update["update_id"]))
            self._busy.discard(key)
            self._queue.changed.notify()

    async def _post_until_taken(self, update: dict[str, Any]) -> None:
        assert self._session is not None
        headers = {"Content-Type": "application/json"}
        if self._config.secret is not None:
            headers[SECRET_HEADER] = self._config.secret
        delay = RETRY_FIRST
        while True:
            url = next(self._targets)
            status = 0
            with contextlib.suppress(aiohttp.ClientError, TimeoutError, OSError):
                async with self._session.post(url, json=update, headers=headers) as response:
                    status = response.status
            self.log.posts.append((int(update["update_id"]), url, status))
            if 200 <= status < 300:
                return
            self.log.retries += 1
            # Telegram backs off too; a replica restarting gets time to come back.
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_MOST)
