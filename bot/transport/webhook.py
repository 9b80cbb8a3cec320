"""Webhook mode: Telegram (through a reverse proxy) posts each update to a replica.

PTB's own `run_webhook` answers 200 as soon as an update is queued in memory, and drops
the queue on shutdown: with several replicas, updates and each chat's order would be lost.
Here the route answers only when the update has been handled:

1. the secret header is checked in constant time (anything else: 403);
2. a crisis message gets its reply at once, before anything touches storage;
   an update that fails anywhere after parsing is answered 200 all the same (logged by id
   and type): a 500 makes Telegram redeliver it for a day, in front of everyone else's;
3. an update id already handled (Telegram redelivers; another replica may have had it)
   is answered 200 with nothing done twice; its crisis reply is never held back;
4. the update runs through the crisis-first processor (each chat in order, the per-person
   lock across replicas), and only then is its id recorded and 200 returned. A replica
   that dies mid-update never answered, so Telegram delivers it again.

`GET /healthz` says whether this replica can serve; `GET /metrics` is Prometheus text, only
for a request bearing `BOT_METRICS_TOKEN` (`Authorization: Bearer ...`), and not served at all
without one: it shares the port the reverse proxy forwards to, and its counts (updates,
crisis replies by kind, the morning's queue) are the operator's business alone.
"""

from __future__ import annotations

import hmac
import logging
import time
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from telegram import Update
from telegram.ext import Application

from bot.core.clock import Clock
from bot.storage.updates import UpdateStore
from bot.transport.intake import update_id_of, update_kind
from bot.transport.lean_update import parse_update
from bot.transport.metrics import Metrics
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
        metrics_token: str | None = None,
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
        self._metrics_token = None if metrics_token is None else f"Bearer {metrics_token}".encode()
        self._clock = clock
        self._runner: web.AppRunner | None = None
        self.port = listen[1]
        self.serving = False

    def application(self) -> web.Application:
        web_app = web.Application(client_max_size=MAX_BODY)
        web_app.router.add_post(self._path, self._update)
        web_app.router.add_get("/healthz", self._health)
        if self._metrics_token is not None:  # else a 404, like any path not served
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
        given = request.headers.get("Authorization", "").encode()
        if self._metrics_token is None or not hmac.compare_digest(given, self._metrics_token):
            return web.Response(status=401, headers={"WWW-Authenticate": "Bearer"})
        page = self._metrics.render()
        return web.Response(body=page, headers={"Content-Type": CONTENT_TYPE_LATEST})

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
            # The common shape parsed lean, as polling does (issue 25); `{}` without an id.
            update = parse_update(raw, self._app.bot)
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
        try:
            outcome = await self._handle(update, update_id)
        except Exception as exc:
            # Never a 500 for one update: Telegram would redeliver it again and again, and
            # the next person's crisis message would wait behind it (issue 27, finding 7).
            # What could be done was done; its id and type are all that is logged.
            self._metrics.updates.labels(outcome="failed").inc()
            log.warning(
                "update %d could not be handled: type %s (%s)",
                update_id,
                update_kind(raw),
                type(exc).__name__,
            )
            return web.Response(status=200)
        self._metrics.updates.labels(outcome=outcome).inc()
        if outcome == "handled":
            self._metrics.update_seconds.observe(time.perf_counter() - started)
        return web.Response(status=200)

    async def _handle(self, update: Update, update_id: int) -> str:
        processor = self._processor
        # The crisis reply (or the panic word's decoy) starts before storage is asked
        # whether this update was seen: a redelivered crisis message is answered again.
        processor.screen(update)
        if await self._already_handled(update_id):
            await processor.settle_early(update_id)
            return "duplicate"
        await processor.process_update(update, self._app.process_update(update))
        try:
            await self._seen.mark(update_id, int(self._clock().timestamp()))
        except Exception as exc:
            # Handled, but a redelivery would be handled again: answers are keyed by
            # message id and claims by day, so little repeats; say so and go on.
            log.warning(
                "update %d handled but not recorded as seen: %s", update_id, type(exc).__name__
            )
        return "handled"

    async def _already_handled(self, update_id: int) -> bool:
        try:
            return await self._seen.seen(update_id)
        except Exception as exc:
            # Storage down: handle it (the handlers say what they can without storage).
            log.warning("seen updates unreadable: %s", type(exc).__name__)
            return False
