"""The composition root: the one place that builds the services, installs the features
bot/app.py lists into one Hub, and hands what they registered to PTB (the handlers in
their numbered groups, crisis first) and to the update processor (its early hooks).

It names no feature: what a feature adds, it adds in its own `install`. Nothing under
bot/features or bot/framework imports this module. Only this module and bot/runtime.py
construct stores and services.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Sequence
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
from bot.features.checkins.delivery import GRACE, Dispatcher, PassReport, concurrency_for, rate_for
from bot.features.checkins.handlers import make_sender
from bot.features.checkins.journal import JournalService
from bot.features.crisis.memory import CrisisCache, CrisisCounter
from bot.features.crisis.screen import shared_screen
from bot.features.discretion.service import CoverCache, DiscretionService
from bot.features.discretion.views import menu_entries
from bot.features.export.exporter import Exporter
from bot.features.progress.chart import ChartRenderer
from bot.features.record.flow import RecordFlow
from bot.features.record.service import RecordService
from bot.features.setup.flow import SetupFlow
from bot.features.urge import export_parts as urge_export
from bot.features.urge.service import UrgeService
from bot.features.worksheets.flow import WorksheetFlow
from bot.features.worksheets.service import WorksheetService
from bot.framework.context import AppData, Context, Services
from bot.framework.hub import GROUP_COMMANDS, Command, Feature, Hub
from bot.matching.crisis import CrisisMatch
from bot.matching.crisis_model import MODEL_HEAD
from bot.matching.crisis_screen import CrisisScreen
from bot.people.languages import LanguageCache
from bot.people.ledger import MessageLedger
from bot.people.service import PeopleService
from bot.storage.backend import Backend
from bot.storage.deliveries import DeliveryStore
from bot.storage.discretion import DiscretionStore
from bot.storage.journal import JournalStore
from bot.storage.keystore import KeyStore
from bot.storage.people import PeopleStore
from bot.storage.record import RecordStore
from bot.storage.urge import UrgeStore
from bot.storage.worksheets import WorksheetStore
from bot.transport.http import AiohttpRequest
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


def http_transport(timeout: float, *, pool: int) -> AiohttpRequest:
    return AiohttpRequest(
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
    settings, content, db, keys, clock = (
        base.settings,
        base.content,
        base.db,
        base.keys,
        base.clock,
    )
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
        keys,
        base.pseudonym_key,
        clock,
        listeners=(crisis_cache, ledger, cover, languages),
    )
    worksheet_data = WorksheetService(WorksheetStore(db), content.worksheets, clock, keys)
    deliveries = DeliveryStore(db)
    journal = JournalService(JournalStore(db), deliveries, clock, keys)
    urges = UrgeService(UrgeStore(db), worksheet_data, people, clock)
    discretion = DiscretionService(people, DiscretionStore(db), cover, content.decoys, clock)
    # A panic word set or changed on another replica is armed here too (change notices).
    people.refreshed.append(discretion.remember)
    record = RecordService(RecordStore(db), people, clock)
    rate = rate_for(settings.paid_broadcast)
    dispatcher = Dispatcher(
        people=people,
        store=deliveries,
        prompts=content.prompts,
        clock=clock,
        sender=make_sender(
            app.bot,
            content.locales,
            urges.checkin_day_by_id,
            paid_broadcast=settings.paid_broadcast,
        ),
        is_running=lambda: app.running,
        in_cover=cover.in_cover,
        # Paid broadcasts allow Telegram's higher rate: two replicas may send at once.
        leadership=db.leadership("dispatcher", slots=2 if settings.paid_broadcast else 1),
        send_rate=rate,
        concurrency=concurrency_for(rate),
        observe=lambda report: observe_pass(metrics, report),
    )
    return Services(
        settings=settings,
        content=content,
        db=db,
        keys=keys,
        clock=clock,
        people=people,
        ledger=ledger,
        crisis_cache=crisis_cache,
        crisis_screen=screen,
        crisis_counter=CrisisCounter(people_store, metrics),
        setup=SetupFlow(
            people,
            clock,
            languages=content.locales.codes,
            featured=content.texts.data["featured_countries"],
            aliases=content.texts.data["country_aliases"],
            find_place=content.places.find,
        ),
        worksheet_flow=WorksheetFlow(worksheet_data, people, ledger),
        journal=journal,
        dispatcher=dispatcher,
        record=record,
        record_flow=RecordFlow(record),
        exporter=Exporter(
            worksheet_data,
            journal,
            clock,
            sources=(functools.partial(urge_export.export_parts, urges),),
        ),
        urges=urges,
        chart=base.chart or ChartRenderer("thread"),
        discretion=discretion,
        cover=cover,
        languages=languages,
        crisis_model=shared_screen(content_dir() / MODEL_HEAD) if settings.crisis_model else None,
        urgent_bot=urgent_bot,
        metrics=metrics,
    )


CRISIS_CACHE_TTL = 60.0  # seconds


def observe_pass(metrics: Metrics, report: PassReport) -> None:
    metrics.dispatcher_leader.set(0 if report.standby else 1)
    if report.standby:
        return
    metrics.due_depth.set(report.backlog)
    metrics.due_drain_seconds.set(report.drain_seconds)
    metrics.due_overrun.set(1 if report.drain_seconds > GRACE.total_seconds() else 0)
    for outcome, count in (
        ("sent", report.sent),
        ("skipped", report.skipped),
        ("failed", report.failed),
        ("blocked", report.blocked),
        ("unknown", report.unknown),
    ):
        if count:
            metrics.prompts.labels(outcome=outcome).inc(count)


def build_application(base: Foundation, *, throttle: bool = True, backoff: float = 0.5) -> Wired:
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
    features: Sequence[Feature] = listed_features()
    hub = Hub(app.bot_data.offers)
    for feature in features:
        feature.install(hub)
    services.people.know_records(hub.records)
    wire_processor(processor, hub, app, services)
    # Polling: each fetched update screened before the batch is parsed (bot/intake.py).
    main_bot.screen_with(processor.screen_raw, processor.screen)
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
    return Wired(app, services, hub, features, jobs)


def wire_processor(
    processor: CrisisFirstUpdateProcessor, hub: Hub, app: StApp, services: Services
) -> None:
    """The early hooks the features registered, bound to this application."""
    hooks = hub.early
    crisis, look, panic, might_panic = hooks.crisis, hooks.look, hooks.panic, hooks.might_panic
    if crisis is not None:

        async def early_reply(update: Update, match: CrisisMatch | None, send: bool) -> None:
            await crisis(update, app, match, send)

        processor.early_reply = early_reply
    if look is not None:

        def early_look(update: Update) -> None:
            look(update, app)

        processor.early_look = early_look
    if panic is not None:

        async def early_panic(update: Update) -> bool:
            return await panic(update, app)

        processor.early_panic = early_panic
    if might_panic is not None:
        processor.might_panic = functools.partial(might_panic, services)
    processor.meet = services.people.resolve


def menu_commands(services: Services, hub: Hub, language: str = ENGLISH) -> list[BotCommand]:
    texts = services.content.locales[language].texts
    names = [name for name, _ in hub.commands] + ["sos", "help"]
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
