"""Start and stop the whole bot: storage, keys, content, the PTB Application, its jobs.

Lifecycle only: what is built and wired is bot/wiring.py's business.

`python -m bot`, the sandbox and the end-to-end tests all start the bot through `Runtime`,
so the tests exercise exactly what production runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from telegram.ext import Job

from bot.app import features as listed_features
from bot.config import ConfigError, Settings, ensure_data_dir
from bot.content.compiled import load_compiled
from bot.content.loader import Content
from bot.core.clock import Clock, system_clock
from bot.crypto import pseudonym
from bot.datalock import DataDirLock
from bot.features.crisis.screen import ModelScreen
from bot.features.progress.chart import ChartRenderer
from bot.framework.context import Services
from bot.framework.hub import Feature, Hub
from bot.keys import resolve_master_key
from bot.people.ledger import MessageLedger
from bot.storage.backend import Backend, Subscription
from bot.storage.engines import open_data_database
from bot.storage.identities import tidy_at_start
from bot.storage.keystore import KeyStore
from bot.storage.people import PERSON_CHANNEL, PeopleStore
from bot.storage.updates import UpdateStore
from bot.transport.intake import ALLOWED_UPDATES, MainBot
from bot.transport.ordering import CrisisFirstUpdateProcessor
from bot.transport.send_policy import SendPolicy
from bot.wiring import Foundation, StApp, build_application, publish_profile

if TYPE_CHECKING:  # aiohttp's server loads in webhook mode only: `_serve_webhook`
    from bot.transport.webhook import WebhookServer

log = logging.getLogger(__name__)
# How long a stop waits for a crisis model still loading (0.2-1.5 s as measured; past this
# the stop goes on, the load's log line may then find its stream closed).
MODEL_LOAD_WAIT = 5.0

FLUSH_INTERVAL = 1.0  # seconds between batched writes of message ids (for /clear)
PRUNE_EVERY = 60  # flushes between prunings of ids older than the delete window


@dataclass
class Storage:
    db: Backend
    keys: KeyStore

    async def close(self) -> None:
        await self.keys.close()
        await self.db.close()


async def open_storage(settings: Settings) -> Storage:
    master = resolve_master_key(settings)
    keys = await KeyStore.open(settings.key_target, master)
    try:
        db = await open_data_database(settings.data_target)
    except BaseException:
        await keys.close()
        raise
    try:
        await tidy_at_start(db, keys, PeopleStore(db))
    except BaseException:
        await db.close()
        await keys.close()
        raise
    return Storage(db, keys)


class Runtime:
    def __init__(
        self,
        settings: Settings,
        *,
        clock: Clock = system_clock,
        content: Content | None = None,
        throttle: bool = True,
        poll_interval: float = 0.0,
        backoff: float = 0.5,
        chart_mode: Literal["process", "thread"] = "process",
        features: Callable[[], Sequence[Feature]] = listed_features,
    ) -> None:
        if settings.token is None:
            raise ConfigError("TELEGRAM_BOT_TOKEN is not set (try `python -m bot sandbox`)")
        self.settings = settings
        self.clock = clock
        self._content = content
        self._throttle = throttle
        self._poll_interval = poll_interval
        self._backoff = backoff  # first retry delay after a 5xx or timeout; tests shorten it
        # /progress draws in a worker process (bot/features/progress/chart.py says why);
        # "thread" is for tests and hosts that cannot spare one.
        self._chart_mode = chart_mode
        self._features = features  # bot/app.py's list (a test may add one)
        self._chart: ChartRenderer | None = None
        self._warming: asyncio.Task[None] | None = None
        self._freezing: asyncio.Task[None] | None = None  # until the crisis model has loaded
        self.storage: Storage | None = None
        self.app: StApp | None = None
        self.services: Services | None = None
        # The scheduler's repeating jobs by name (tests pause the daily tick through this).
        self.jobs: dict[str, Job[Any]] = {}
        # The features bot/app.py lists, installed in order (docs/architecture.md's feature
        # table is checked against it).
        self.features: Sequence[Feature] = ()
        self.hub: Hub | None = None  # what they registered (their start and stop steps)
        self._flusher: asyncio.Task[None] | None = None
        self.webhook: WebhookServer | None = None
        self._subscription: Subscription | None = None
        self._lock = DataDirLock(settings.data_dir, "starting another")

    async def start(self) -> None:
        content = self._content or load_compiled(self.settings.content_cache)
        ensure_data_dir(self.settings.data_dir)
        self._lock.acquire()
        storage = await open_storage(self.settings)
        self.storage = storage
        if self._chart_mode == "process":
            # matplotlib's font list is cached beside the data (the image has no home).
            self._chart = ChartRenderer("process", cache_dir=self.settings.data_dir / "chart")
        else:
            self._chart = ChartRenderer("thread")
        pseudonym_key = await storage.keys.pseudonym_key()
        base = Foundation(
            self.settings,
            content,
            storage.db,
            storage.keys,
            pseudonym_key,
            self.clock,
            self._chart,
        )
        wired = build_application(
            base, throttle=self._throttle, backoff=self._backoff, features=self._features
        )
        app, services = wired.app, wired.services
        self.app, self.services, self.jobs = app, services, wired.jobs
        self.features, self.hub = wired.features, wired.hub
        await app.initialize()
        await services.urgent_bot.initialize()
        # What the features load before the first update is read (panic words, covers).
        for step in wired.hub.starting:
            await step()
        # Settings changed on another replica reach this one's crisis cache (PostgreSQL).
        self._subscription = storage.db.subscription(PERSON_CHANNEL, services.people.heard)
        await self._subscription.ensure()
        self._flusher = asyncio.create_task(self._flush_message_ids_forever(services.ledger))
        if self.settings.webhook_url is not None:
            await publish_profile(app.bot, services, wired.hub)
            self._warm_up_chart()
            await app.start()
            await self._serve_webhook(app, services, storage.db, pseudonym_key)
            self._load_crisis_model(services)
            _freeze_start_up_heap()
            log.info("bot started (webhook)")
            return
        if app.updater is None:
            raise RuntimeError("the PTB Application was built without an Updater")
        await app.updater.start_polling(
            poll_interval=self._poll_interval,
            allowed_updates=list(ALLOWED_UPDATES),
            drop_pending_updates=False,
        )
        await app.start()
        # After the first getUpdates is on its way (it goes out at this first wait), not
        # before it: the menu and descriptions, 21 calls, need not hold it up (issue 25).
        await publish_profile(app.bot, services, wired.hub)
        self._load_crisis_model(services)
        self._warm_up_chart()
        _freeze_start_up_heap()
        log.info("bot started")

    def _load_crisis_model(self, services: Services) -> None:
        # In the model's own worker, once the first getUpdates has gone out: numpy, the
        # encoder and the head were half a second of the first poll (issue 25). A message
        # before it is ready waits for the loading, then has its whole budget
        # (bot/features/crisis/screen.py).
        screen = services.crisis_model
        if screen is not None:
            screen.start()
            self._freezing = asyncio.create_task(self._freeze_when_loaded(screen))

    @staticmethod
    async def _freeze_when_loaded(screen: ModelScreen) -> None:
        """The model lives as long as the process, like what start-up built, but loads after
        the start-up heap was frozen: out of the collector's sight too, or every full
        collection walks it (gen-2 pauses of 30-51 ms with the model on, against 14-17 ms
        once frozen: docs/performance.md)."""
        if await screen.loaded():
            gc.freeze()

    def _warm_up_chart(self) -> None:
        # Beside the running bot, not before its first poll: spawning the worker and
        # loading matplotlib takes seconds of CPU on a busy host (a core the start shares),
        # and crisis replies must not wait for it.
        if self._chart_mode == "process" and self._chart is not None:
            self._warming = asyncio.create_task(self._warm_up(self._chart))

    async def _warm_up(self, chart: ChartRenderer) -> None:
        try:
            await chart.warm_up()
        except Exception as exc:  # the first /progress tries again
            log.warning("chart worker not warmed up: %s", type(exc).__name__)

    async def _serve_webhook(
        self, app: StApp, services: Services, db: Backend, pseudonym_key: bytes
    ) -> None:
        """Updates arrive by POST (bot/transport/webhook.py); `python -m bot webhook set` tells
        Telegram where. Each person's updates hold their lock across replicas."""
        # Here, not at the top: aiohttp's server (with its client, two TLS contexts built at
        # import) is a tenth of the first poll, and a polling bot never serves (issue 25).
        from bot.transport.webhook import WebhookServer  # noqa: PLC0415

        settings = self.settings
        if settings.webhook_url is None or settings.webhook_secret is None:
            raise ConfigError("webhook mode needs BOT_WEBHOOK_URL and BOT_WEBHOOK_SECRET")
        processor = app.update_processor
        if isinstance(processor, CrisisFirstUpdateProcessor):
            processor.chat_guard = lambda chat_id: db.person_lock(pseudonym(pseudonym_key, chat_id))
        server = WebhookServer(
            app,
            url=settings.webhook_url,
            listen=settings.webhook_listen,
            secret=settings.webhook_secret,
            seen=UpdateStore(db),
            metrics=services.metrics,
            clock=self.clock,
            metrics_token=settings.metrics_token,
        )
        await server.start()
        self.webhook = server

    async def _flush_message_ids_forever(self, ledger: MessageLedger) -> None:
        rounds = 0
        while True:
            await asyncio.sleep(FLUSH_INTERVAL)
            rounds += 1
            try:
                if self._subscription is not None:
                    await self._subscription.ensure()
                await ledger.flush()
                if rounds % PRUNE_EVERY == 0:
                    await ledger.prune()
                    if self.webhook is not None:
                        await self.webhook.prune()
            except Exception as exc:
                log.warning("message ids not stored yet: %s", type(exc).__name__)

    async def stop(self) -> None:
        # What start-up froze may become garbage now (a test starts many runtimes in one
        # process): back in the collector's sight.
        gc.unfreeze()
        try:
            await self._stop_serving()
        finally:
            # Whatever failed above, storage is closed (what waits in memory written: the
            # rollback anchors, bot/storage/anchor_writer.py) and the data dir let go.
            try:
                if self.storage is not None:
                    await self.storage.close()
                    self.storage = None
            finally:
                self._lock.release()

    async def _stop_serving(self) -> None:
        if self.webhook is not None:
            await self.webhook.stop()  # first: no new updates while the rest stops
            self.webhook = None
        if self._flusher is not None:
            self._flusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._flusher
            self._flusher = None
        app = self.app
        if app is not None:
            if app.updater is not None and app.updater.running:
                bot = app.bot
                if isinstance(bot, MainBot):
                    bot.stop_fetching()
                await app.updater.stop()
                processor = app.update_processor
                if isinstance(processor, CrisisFirstUpdateProcessor) and app.running:
                    # Everything fetched is confirmed at Telegram: handled before the stop.
                    await processor.drain()
            if app.running:
                if self.services is not None:
                    # A crisis reply waiting out one chat's 429 must not hold the stop.
                    policy = self.services.urgent_bot.rate_limiter
                    if isinstance(policy, SendPolicy):
                        policy.stop_waiting()
                await app.stop()
            await app.shutdown()
            # A start that failed in getMe (a refused token, Telegram unreachable) left the
            # Application uninitialised, and its shutdown does nothing: close the
            # transports here (a no-op when they are closed already).
            await app.bot.shutdown()
            self.app = None
            log.info("bot stopped")
        services = self.services
        if services is not None:
            await services.urgent_bot.shutdown()
            await services.crisis_screen.close()
            for step in reversed(self.hub.stopping if self.hub is not None else []):
                with contextlib.suppress(Exception):
                    await step()
            with contextlib.suppress(Exception):
                await services.ledger.flush()
        for task in (self._warming, self._freezing):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._warming = self._freezing = None
        screen = services.crisis_model if services is not None else None
        if screen is not None and screen.loading:
            # Its worker logs when the load ends: a stop soon after the first poll must not
            # close the process's log stream under it (a "Logging error" on the terminal).
            await asyncio.to_thread(screen.wait_loaded, MODEL_LOAD_WAIT)
        if self._chart is not None:
            self._chart.close()
            self._chart = None
        if self._subscription is not None:
            await self._subscription.close()
            self._subscription = None


def _freeze_start_up_heap() -> None:
    """What start-up built (content, the crisis detector's patterns, CLDR data, the time-zone
    index) lives as long as the process: moved out of the collector's sight, so a full
    collection no longer walks it. Each such walk stalled the event loop for tens of
    milliseconds, and a crisis reply behind it waited (docs/performance.md). No collection
    first: here it found under a hundred unreachable objects and took 0.14 s of CPU before
    the first poll (issue 25). `python -m bot` starts with the collector off (its collections
    during the imports and the content's unpickling were about 0.1 s of the first poll for
    the same few unreachable objects): it is on again from here."""
    gc.freeze()
    gc.enable()
