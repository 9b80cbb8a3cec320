"""Webhook mode: Telegram (through a reverse proxy) posts each update to a replica.

PTB's own `run_webhook` answers 200 as soon as an update is queued in memory, and drops
the queue on shutdown: with several replicas, updates and each chat's order would be lost.
Here the route answers only when the update has been handled:

1. the secret header is checked in constant time (anything else: 403);
2. a crisis message gets its reply at once, before anything touches storage;
3. an update id already handled (Telegram redelivers; another replica may have had it)
   is answered 200 with nothing done twice; its crisis reply is never held back;
4. the update runs through the crisis-first processor (each chat in order, the per-person
   lock across replicas), and only then is its id recorded and 200 returned. A replica
   that dies mid-update never answered, so Telegram delivers it again.

`GET /healthz` says whether this replica can serve; `GET /metrics` is Prometheus text.
"""

from __future__ import annotations

import hmac
import logging
import time
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web
from telegram import Update
from telegram.ext import Application

from bot.core.clock import Clock
from bot.storage.updates import UpdateStore
from bot.transport.intake import update_id_of, update_kind
from bot.transport.metrics import CONTENT_TYPE, Metrics
from bot.transport.ordering import CrisisFirstUpdateProcessor

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"  # noqa: S105 - a header name
SEEN_FOR = 24 * 3600  # Telegram keeps an undelivered update for 24 hours
MAX_BODY = 1024 * 1024  # Telegram's updates are far smaller; anything bigger is not one


def webhook_path(url: str) -> str:
    return urlsplit(url).path or "/"


class WebhookServer:
    def __init__(
        self,
        app: Application[Any, Any, Any, Any, Any, Any],
        *,
        url: str,
        listen: tuple[str, int],
        secret: str,
        seen: UpdateStore,
        metrics: Metrics,
        clock: Clock,
    ) -> None:
        processor = app.update_processor
        if not isinstance(processor, CrisisFirstUpdateProcessor):
            raise TypeError("webhook mode needs the crisis-first update processor")
        self._app = app
        self._processor = processor
        self._path = webhook_path(url)
        self._listen = listen
        self._secret = secret.encode()
        self._seen = seen
        self._metrics = metrics
        self._clock = clock
        self._runner: web.AppRunner | None = None
        self.port = listen[1]
        self.serving = False

    def application(self) -> web.Application:
        web_app = web.Application(client_max_size=MAX_BODY)
        web_app.router.add_post(self._path, self._update)
        web_app.router.add_get("/healthz", self._health)
        web_app.router.add_get("/metrics", self._metrics_page)
        return web_app

    async def start(self) -> None:
        # access_log=None: the access log would print paths and addresses; nobody's business.
        runner = web.AppRunner(self.application(), access_log=None, shutdown_timeout=10.0)
        await runner.setup()
        try:
            await web.TCPSite(runner, self._listen[0], self._listen[1]).start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        self.port = int(runner.addresses[0][1])
        self.serving = True
        log.info("webhook serving on %s:%d", self._listen[0], self.port)

    async def stop(self) -> None:
        """Stop taking updates; those in flight finish (aiohttp waits for their handlers),
        and anything refused meanwhile is redelivered by Telegram to another replica."""
        self.serving = False
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def prune(self) -> None:
        await self._seen.prune(int(self._clock().timestamp()) - SEEN_FOR)

    # --- routes ----------------------------------------------------------------------

    async def _health(self, request: web.Request) -> web.Response:
        ok = self.serving and self._app.running
        return web.Response(status=200 if ok else 503, text="ok\n" if ok else "stopping\n")

    async def _metrics_page(self, request: web.Request) -> web.Response:
        return web.Response(body=self._metrics.render(), headers={"Content-Type": CONTENT_TYPE})

    async def _update(self, request: web.Request) -> web.Response:
        started = time.perf_counter()
        given = request.headers.get(SECRET_HEADER, "").encode()
        if not hmac.compare_digest(given, self._secret):
            self._metrics.updates.labels(outcome="rejected").inc()
            return web.Response(status=403)
        if not self.serving:
            return web.Response(status=503)  # shutting down: Telegram retries elsewhere
        try:
            raw = await request.json()
        except ValueError:
            self._metrics.updates.labels(outcome="unparsable").inc()
            return web.Response(status=400)
        update_id = update_id_of(raw)
        try:
            update = Update.de_json(raw if update_id is not None else {}, self._app.bot)
        except Exception as exc:
            # As in polling (bot/transport/intake.py): skipped, logged by id and type only, and
            # answered 200 so Telegram does not offer it again for a day.
            self._metrics.updates.labels(outcome="unparsable").inc()
            log.warning(
                "skipped an update that could not be parsed: id %s, type %s (%s)",
                update_id,
                update_kind(raw),
                type(exc).__name__,
            )
            return web.Response(status=200)
        if update is None or update_id is None:
            return web.Response(status=200)
        processor = self._processor
        if processor.is_urgent(update) and processor.early_reply is not None:
            try:
                await processor.early_reply(update)
                processor.replied_early.add(update_id)
            except Exception as exc:  # the crisis group tries again in order
                log.warning("early crisis reply failed: %s", type(exc).__name__)
        if await self._already_handled(update_id):
            processor.replied_early.discard(update_id)
            self._metrics.updates.labels(outcome="duplicate").inc()
            return web.Response(status=200)
        await processor.process_update(update, self._app.process_update(update))
        try:
            await self._seen.mark(update_id, int(self._clock().timestamp()))
        except Exception as exc:
            # Handled, but a redelivery would be handled again: answers are keyed by
            # message id and claims by day, so little repeats; say so and go on.
            log.warning(
                "update %d handled but not recorded as seen: %s", update_id, type(exc).__name__
            )
        self._metrics.updates.labels(outcome="handled").inc()
        self._metrics.update_seconds.observe(time.perf_counter() - started)
        return web.Response(status=200)

    async def _already_handled(self, update_id: int) -> bool:
        try:
            return await self._seen.seen(update_id)
        except Exception as exc:
            # Storage down: handle it (the handlers say what they can without storage).
            log.warning("seen updates unreadable: %s", type(exc).__name__)
            return False
