"""The composition root: the one place that builds the services, installs the features
bot/app.py lists into one Hub, and hands what they registered to PTB (the handlers in
their numbered groups, crisis first) and to the update processor (its early hooks).

It names no feature: what a feature adds, it adds in its own `install`, its own services
too (built from the shared ones in its package's `build.py`). Nothing under bot/features or
bot/framework imports this module. Only this module and bot/runtime.py construct the
shared stores and services.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from telegram import BotCommand, Update
from telegram.ext import (
    Application,
    ApplicationBuilder,
    ApplicationHandlerStop,
    CommandHandler,
    ContextTypes,
    ExtBot,
    Job,
)

from bot.app import features as listed_features
from bot.config import ConfigError, Settings
from bot.content.loader import Content, content_dir
from bot.core.clock import Clock
from bot.core.languages import ENGLISH
from bot.features.checkins.delivery import concurrency_for, rate_for
from bot.features.crisis.memory import CrisisCache, CrisisCounter
from bot.features.crisis.screen import shared_screen
from bot.features.discretion.service import CoverCache
from bot.features.discretion.views import menu_entries
from bot.features.progress.chart import ChartRenderer
from bot.framework.busy import tell_busy
from bot.framework.context import AppData, Context, Services
from bot.framework.hub import GROUP_COMMANDS, Command, Feature, Hub
from bot.matching.crisis import CrisisMatch
from bot.matching.crisis_screen import CrisisScreen
from bot.matching.model_gate import MODEL_HEAD
from bot.people.languages import LanguageCache
from bot.people.ledger import MessageLedger
from bot.people.service import PeopleService
from bot.storage.backend import Backend
from bot.storage.keystore import KeyStore
from bot.storage.people import PeopleStore
from bot.transport.http import BotApiRequest
from bot.transport.intake import build_main_bot
from bot.transport.metrics import Metrics
from bot.transport.ordering import CrisisFirstUpdateProcessor
from bot.transport.send_policy import SendPolicy

StApp = Application[Any, Context, dict[Any, Any], dict[Any, Any], AppData, Any]


@dataclass
class Wired:
    """What was built and wired, for the lifecycle (runtime.py) and tests."""

    app: StApp
    services: Services
    hub: Hub
    features: Sequence[Feature]
    jobs: dict[str, Job[Any]]


def _final(callback: Command) -> Command:
    """A command is fully handled by its handler: later groups (the fallback) stay out."""

    async def run(update: Update, context: Context) -> None:
        await callback(update, context)
        raise ApplicationHandlerStop

    return run


def http_transport(timeout: float, *, pool: int) -> BotApiRequest:
    return BotApiRequest(
        connection_pool_size=pool,
        connect_timeout=timeout,
        read_timeout=timeout,
        write_timeout=timeout,
        pool_timeout=timeout,
    )


@dataclass(frozen=True)
class Foundation:
    """What the lifecycle (runtime.py) opens before anything is built."""

    settings: Settings
    content: Content
    db: Backend
    keys: KeyStore
    pseudonym_key: bytes
    clock: Clock
    # Made and warmed up by the lifecycle (a process to start and stop); None: one thread.
    chart: ChartRenderer | None = None


def build_services(
    base: Foundation, app: StApp, urgent_bot: ExtBot[Any], screen: CrisisScreen
) -> Services:
    """The shared services; each feature builds its own from these when it installs."""
    settings, db, clock = base.settings, base.db, base.clock
    people_store = PeopleStore(db)
    metrics = Metrics()
    ledger = MessageLedger(people_store, clock)
    # With other replicas, a person's settings may change elsewhere (change notices keep
    # this cache fresh, the TTL is the backstop); alone on SQLite, nothing changes behind it.
    crisis_cache = CrisisCache(ttl=CRISIS_CACHE_TTL if settings.on_postgres else None)
    cover = CoverCache()
    languages = LanguageCache()
    people = PeopleService(
        people_store,
        base.keys,
        base.pseudonym_key,
        clock,
        listeners=(crisis_cache, ledger, cover, languages),
    )
    return Services(
        settings=settings,
        content=base.content,
        db=db,
        keys=base.keys,
        clock=clock,
        people=people,
        ledger=ledger,
        languages=languages,
        cover=cover,
        crisis_cache=crisis_cache,
        crisis_screen=screen,
        crisis_counter=CrisisCounter(people_store, metrics),
        main_bot=app.bot,
        running=lambda: app.running,
        urgent_bot=urgent_bot,
        chart=base.chart or ChartRenderer("thread"),
        metrics=metrics,
        crisis_model=shared_screen(content_dir() / MODEL_HEAD) if settings.crisis_model else None,
    )


CRISIS_CACHE_TTL = 60.0  # seconds


def build_application(
    base: Foundation,
    *,
    throttle: bool = True,
    backoff: float = 0.5,
    features: Callable[[], Sequence[Feature]] = listed_features,
) -> Wired:
    """The application with `features` installed: bot/app.py's list (a test may add one of
    its own to show what a feature plugs into)."""
    settings, content = base.settings, base.content
    if settings.token is None:
        raise ConfigError("TELEGRAM_BOT_TOKEN is not set (try `python -m bot sandbox`)")
    rate = rate_for(settings.paid_broadcast)
    screen = CrisisScreen(content.detector.detect)
    processor = CrisisFirstUpdateProcessor(screen)
    # The bot parses each fetched update on its own (bot/transport/intake.py).
    main_bot = build_main_bot(
        settings.token,
        base_url=settings.api_url,
        # Enough connections for the daily prompts' sends in flight and, beside them, the
        # concurrent updates' replies.
        request=http_transport(settings.http_timeout, pool=concurrency_for(rate) + 48),
        get_updates_request=http_transport(settings.http_timeout, pool=1),
        rate_limiter=SendPolicy(
            throttle=throttle,
            base_delay=backoff,
            per_second=rate,
        ),
    )
    builder = (
        ApplicationBuilder()
        .bot(main_bot)
        .context_types(ContextTypes(context=Context, bot_data=AppData))
        .concurrent_updates(processor)
    )
    app: StApp = builder.build()
    urgent_bot: ExtBot[Any] = ExtBot(
        settings.token,
        base_url=settings.api_url or "https://api.telegram.org/bot",
        request=http_transport(settings.http_timeout, pool=8),
        # It never polls; without this PTB builds an httpx client for it at start, and
        # loading httpcore for that was a tenth of the time to the first poll (issue 25).
        get_updates_request=http_transport(settings.http_timeout, pool=1),
        # Per chat: one person's 429 pauses their replies only (issue 27, finding 2).
        rate_limiter=SendPolicy(throttle=False, base_delay=backoff, per_chat=True),
    )
    services = build_services(base, app, urgent_bot, screen)
    app.bot_data.services = services
    # Someone with a panic word armed stays in memory: its check reads memory only.
    cover = services.cover
    base.keys.cache.keep = lambda row_id: cover.armed(row_id) is not None or cover.in_cover(row_id)

    # Every feature, constructed once and installed into one Hub, in bot/app.py's order.
    installed: Sequence[Feature] = features()
    hub = Hub(app.bot_data.offers, services)
    for feature in installed:
        feature.install(hub)
    services.people.know_records(hub.records)
    wire_processor(processor, hub, app, services)
    # Polling: each fetched update screened as it arrives, then admitted to the handlers
    # as slots free (bot/transport/intake.py, admission.py); one shed under overload is
    # answered with a kind "send it again".
    main_bot.feed(processor, app.update_queue.put_nowait)
    processor.shed = functools.partial(tell_busy, application=app)
    for group, handler in hub.handlers:
        app.add_handler(handler, group)
    for name, callback in hub.commands:
        app.add_handler(CommandHandler(name, _final(callback)), GROUP_COMMANDS)
    if hub.error_handler is not None:
        app.add_error_handler(hub.error_handler)

    jobs: dict[str, Job[Any]] = {}
    if app.job_queue is not None:
        for job in hub.jobs:
            jobs[job.name] = app.job_queue.run_repeating(
                job.callback,
                interval=job.seconds,
                first=job.seconds,
                name=job.name,
                job_kwargs={
                    # A tick delayed by a busy loop still runs; missed ticks collapse into one.
                    "misfire_grace_time": int(job.seconds * 4),
                    "coalesce": True,
                    "max_instances": 1,
                },
            )
    return Wired(app, services, hub, installed, jobs)


def wire_processor(
    processor: CrisisFirstUpdateProcessor, hub: Hub, app: StApp, services: Services
) -> None:
    """The early hooks the features registered, bound to this application."""
    hooks = hub.early
    crisis, look, panic, might_panic = hooks.crisis, hooks.look, hooks.panic, hooks.might_panic
    worry = hooks.worry
    if crisis is not None:

        async def early_reply(update: Update, match: CrisisMatch | None, send: bool) -> None:
            await crisis(update, app, match, send)

        processor.early_reply = early_reply
    if look is not None:

        def early_look(update: Update) -> None:
            look(update, app)

        processor.early_look = early_look
        if worry is not None and services.crisis_model is not None:
            processor.model_worry = functools.partial(worry, services)
    if panic is not None:

        async def early_panic(update: Update) -> bool:
            return await panic(update, app)

        processor.early_panic = early_panic
    if might_panic is not None:
        processor.might_panic = functools.partial(might_panic, services)
    processor.meet = services.people.resolve


def menu_commands(services: Services, hub: Hub, language: str = ENGLISH) -> list[BotCommand]:
    texts = services.content.locales[language].texts
    names = [*hub.commands.names(), "sos", "help"]
    return [BotCommand(name, text) for name, text in menu_entries(texts, names, neutral=False)]


async def publish_profile(bot: ExtBot[Any], services: Services, hub: Hub) -> None:
    """The command menu and the bot's descriptions in every enabled language (Telegram
    shows each person the one for their app's language; English is the default for the
    rest). Concurrent: seven languages, three calls each, at start-up."""
    calls = []
    for code in services.content.locales.codes:
        texts = services.content.locales[code].texts
        tag = None if code == ENGLISH else code
        calls += [
            bot.set_my_commands(menu_commands(services, hub, code), language_code=tag),
            bot.set_my_description(texts("about.description"), language_code=tag),
            bot.set_my_short_description(texts("about.short_description"), language_code=tag),
        ]
    await asyncio.gather(*calls)
