"""The composition root: the one place that builds the services, constructs each feature,
installs it, and wires the PTB Application's handlers in numbered groups, crisis first.

Nothing under bot/features or bot/framework imports this module: features receive what they
need (the Hub to install into, the typed Services through the context), so wiring points
one way. Only this module and bot/runtime.py construct stores and services.
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
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    ExtBot,
    Job,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot.config import ConfigError, Settings
from bot.content.loader import Content, content_dir
from bot.core.clock import Clock
from bot.core.languages import ENGLISH
from bot.features.checkins.delivery import GRACE, Dispatcher, PassReport, concurrency_for, rate_for
from bot.features.checkins.handlers import DailyFeature, make_sender
from bot.features.checkins.journal import JournalService
from bot.features.conversation.handlers import ConversationFeature
from bot.features.crisis.handlers.crisis import CrisisFeature
from bot.features.crisis.handlers.keep import CrisisKeepFeature
from bot.features.crisis.memory import CrisisCache, CrisisCounter
from bot.features.crisis.screen import shared_screen
from bot.features.discretion.handlers import DiscretionFeature
from bot.features.discretion.service import CoverCache, DiscretionService
from bot.features.discretion.views import menu_entries
from bot.features.export.exporter import Exporter
from bot.features.forget.handlers import PrivacyFeature
from bot.features.progress.chart import ChartRenderer
from bot.features.progress.handlers import ProgressFeature
from bot.features.record.flow import RecordFlow
from bot.features.record.handlers.record import RecordFeature
from bot.features.record.service import RecordService
from bot.features.setup.flow import SetupFlow
from bot.features.setup.handlers import SetupFeature
from bot.features.start.handlers import BasicsFeature, on_error
from bot.features.tidy.handlers import TidyFeature
from bot.features.urge import export_parts as urge_export
from bot.features.urge.handlers import UrgeFeature
from bot.features.urge.service import UrgeService
from bot.features.worksheets.flow import WorksheetFlow
from bot.features.worksheets.handlers.worksheets import WorksheetsFeature
from bot.features.worksheets.service import WorksheetService
from bot.framework.context import SERVICES_KEY, Context, Services
from bot.framework.hub import Command, Feature, Hub
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
from bot.transport.intake import build_screened_bot
from bot.transport.metrics import Metrics
from bot.transport.ordering import CrisisFirstUpdateProcessor
from bot.transport.send_policy import SendPolicy

# Handler groups, lowest first. PTB runs at most one handler per group for each update.
GROUP_PANIC = -20
GROUP_CRISIS = -10
GROUP_PRIVATE_ONLY = -5
GROUP_COMMANDS = 0
GROUP_BUTTONS = 10
GROUP_WORDS = 15  # stop, cancel, menu, hi...: before free text goes to a step or the journal
GROUP_TEXT = 20
# After a text was handled: the record's look-back offer (never beside a crisis reply).
GROUP_AFTER_TEXT = 30
GROUP_FALLBACK = 99

RECORD_FILES = filters.PHOTO | filters.Document.ALL | filters.VOICE | filters.AUDIO | filters.VIDEO

StApp = Application[Any, Context, dict[Any, Any], dict[Any, Any], dict[Any, Any], Any]


@dataclass
class Wired:
    """What app.py built, for the lifecycle (runtime.py) and tests."""

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
        worksheets=WorksheetFlow(worksheet_data, people, ledger),
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
    intake_bot = build_screened_bot(
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
        .bot(intake_bot)
        .context_types(ContextTypes(context=Context))
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
    app.bot_data[SERVICES_KEY] = services

    # Every feature, constructed once and installed into one Hub.
    setup = SetupFeature()
    basics = BasicsFeature(setup)
    crisis = CrisisFeature()
    record = RecordFeature(settings_menu=setup)
    worksheets = WorksheetsFeature()
    conversation = ConversationFeature(setup, worksheets)
    discretion = DiscretionFeature(crisis)
    features: list[Feature] = [
        basics,
        setup,
        crisis,
        CrisisKeepFeature(),
        discretion,
        TidyFeature(),
        PrivacyFeature(),
        worksheets,
        # Before the check-ins: its idle-text route (the pull-back offer) goes first.
        UrgeFeature(),
        DailyFeature(settings_menu=setup),
        record,
        ProgressFeature(),
        conversation,
    ]
    hub = Hub()
    for feature in features:
        feature.install(hub)

    async def early_reply(update: Update, send: bool) -> None:
        await crisis.reply_early(update, app, send=send)

    processor.early_reply = early_reply

    def early_look(update: Update) -> None:
        crisis.look_early(update, app)

    processor.early_look = early_look

    async def early_panic(update: Update) -> bool:
        return await discretion.early(update, app)

    processor.early_panic = early_panic
    processor.might_panic = discretion.might_be_word(services)
    processor.meet = services.people.resolve
    # Someone with a panic word armed stays in memory: its check reads memory only.
    cover = services.cover
    base.keys.cache.keep = lambda row_id: cover.armed(row_id) is not None or cover.in_cover(row_id)
    # Polling: each fetched update screened before the batch is parsed (bot/intake.py).
    intake_bot.screen_with(processor.screen_raw, processor.screen)

    # -20: a panic word, and everything while in cover, from memory (docs/discretion.md).
    app.add_handler(TypeHandler(Update, discretion.guard), GROUP_PANIC)
    # -10: crisis words, before anything can wait on storage or a conversation.
    app.add_handler(CommandHandler("sos", crisis.on_sos), GROUP_CRISIS)
    app.add_handler(CommandHandler("help", crisis.on_help), GROUP_CRISIS)
    app.add_handler(MessageHandler(filters.UpdateType.MESSAGES, crisis.on_message), GROUP_CRISIS)
    # -5: group chats get one line and nothing else.
    app.add_handler(TypeHandler(Update, basics.private_only), GROUP_PRIVATE_ONLY)
    for name, callback in hub.commands:
        app.add_handler(CommandHandler(name, _final(callback)), GROUP_COMMANDS)
    app.add_handler(CallbackQueryHandler(basics.on_callback), GROUP_BUTTONS)
    app.add_handler(
        MessageHandler(
            filters.UpdateType.MESSAGE & filters.TEXT & ~filters.COMMAND, conversation.on_words
        ),
        GROUP_WORDS,
    )
    app.add_handler(
        MessageHandler(
            filters.UpdateType.MESSAGE & filters.TEXT & ~filters.COMMAND, basics.on_text
        ),
        GROUP_TEXT,
    )
    app.add_handler(MessageHandler(filters.UpdateType.EDITED_MESSAGE, basics.on_edit), GROUP_TEXT)
    # Files sent while a record entry is being written; others fall through to the fallback.
    app.add_handler(
        MessageHandler(filters.UpdateType.MESSAGE & RECORD_FILES, record.on_media), GROUP_TEXT
    )
    app.add_handler(
        MessageHandler(
            filters.UpdateType.MESSAGE & filters.TEXT & ~filters.COMMAND, record.after_text
        ),
        GROUP_AFTER_TEXT,
    )
    app.add_handler(
        MessageHandler(
            filters.UpdateType.MESSAGE & (filters.COMMAND | ~filters.TEXT), conversation.on_other
        ),
        GROUP_FALLBACK,
    )
    app.add_error_handler(on_error)

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
