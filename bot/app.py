"""The one place that builds the PTB Application and wires every handler, crisis first."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
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
    MessageHandler,
    TypeHandler,
    filters,
)

from bot.context import SERVICES_KEY, Context, Services
from bot.handlers import basics, crisis, privacy
from bot.handlers.basics import Basics
from bot.handlers.router import Router
from bot.handlers.setup import Setup
from bot.http import AiohttpRequest
from bot.intake import build_intake_bot
from bot.ordering import CrisisFirstUpdateProcessor
from bot.services.send_policy import SendPolicy

# Handler groups, lowest first. PTB runs at most one handler per group for each update.
GROUP_CRISIS = -10
GROUP_PRIVATE_ONLY = -5
GROUP_COMMANDS = 0
GROUP_BUTTONS = 10
GROUP_TEXT = 20
GROUP_FALLBACK = 99

StApp = Application[Any, Context, dict[Any, Any], dict[Any, Any], dict[Any, Any], Any]
Callback = Callable[[Update, Context], Coroutine[Any, Any, None]]


def _final(callback: Callback) -> Callback:
    """A command is fully handled by its handler: later groups (the fallback) stay out."""

    async def run(update: Update, context: Context) -> None:
        await callback(update, context)
        raise ApplicationHandlerStop

    return run


class Features:
    """What app.py wired, for the code that needs it later (jobs, tests)."""

    def __init__(self) -> None:
        self.router = Router()
        self.setup = Setup()
        self.basics = Basics(self.router, self.setup)
        # (command, callback); the menu description is texts "commands.<command>".
        self.commands: list[tuple[str, Callback]] = []


def http_transport(timeout: float, *, pool: int) -> AiohttpRequest:
    return AiohttpRequest(
        connection_pool_size=pool,
        connect_timeout=timeout,
        read_timeout=timeout,
        write_timeout=timeout,
        pool_timeout=timeout,
    )


def build_application(
    services: Services,
    *,
    throttle: bool = True,
    backoff: float = 0.5,
    connect_features: Callable[[StApp, Features], None] | None = None,
) -> tuple[StApp, Features]:
    settings = services.settings
    assert settings.token is not None
    processor = CrisisFirstUpdateProcessor(
        lambda text: services.content.detector.detect(text) is not None
    )
    # The bot parses each fetched update on its own (bot/intake.py).
    intake_bot = build_intake_bot(
        settings.token,
        base_url=settings.api_url,
        # Enough connections for the concurrent updates' and the daily prompts' sends.
        request=http_transport(settings.http_timeout, pool=64),
        get_updates_request=http_transport(settings.http_timeout, pool=1),
        rate_limiter=SendPolicy(throttle=throttle, base_delay=backoff),
    )
    builder = (
        ApplicationBuilder()
        .bot(intake_bot)
        .context_types(ContextTypes(context=Context))
        .concurrent_updates(processor)
    )
    app: StApp = builder.build()
    app.bot_data[SERVICES_KEY] = services

    async def early_reply(update: Update) -> None:
        await crisis.reply_early(update, app)

    processor.early_reply = early_reply
    services.urgent_bot = ExtBot(
        settings.token,
        base_url=settings.api_url or "https://api.telegram.org/bot",
        request=http_transport(settings.http_timeout, pool=8),
        rate_limiter=SendPolicy(throttle=False, base_delay=backoff),
    )

    features = Features()
    features.setup.register(features.router)
    crisis.register(features.router)
    privacy.register(features.router)
    b = features.basics
    features.commands += [
        ("start", b.start),
        ("settings", b.settings),
        ("guide", b.guide),
        ("clear", privacy.clear),
        ("forget", privacy.forget),
    ]
    if connect_features is not None:
        connect_features(app, features)

    # -10: crisis words, before anything can wait on storage or a conversation.
    app.add_handler(CommandHandler("sos", crisis.on_sos), GROUP_CRISIS)
    app.add_handler(CommandHandler("help", crisis.on_help), GROUP_CRISIS)
    app.add_handler(MessageHandler(filters.UpdateType.MESSAGES, crisis.on_message), GROUP_CRISIS)
    # -5: group chats get one line and nothing else.
    app.add_handler(TypeHandler(Update, b.private_only), GROUP_PRIVATE_ONLY)
    for name, callback in features.commands:
        app.add_handler(CommandHandler(name, _final(callback)), GROUP_COMMANDS)
    app.add_handler(CallbackQueryHandler(b.on_callback), GROUP_BUTTONS)
    router = features.router

    async def edits(update: Update, context: Context) -> None:
        await basics.on_edit(update, context, router)

    app.add_handler(
        MessageHandler(filters.UpdateType.MESSAGE & filters.TEXT & ~filters.COMMAND, b.on_text),
        GROUP_TEXT,
    )
    app.add_handler(MessageHandler(filters.UpdateType.EDITED_MESSAGE, edits), GROUP_TEXT)
    app.add_handler(
        MessageHandler(filters.UpdateType.MESSAGE & (filters.COMMAND | ~filters.TEXT), b.on_other),
        GROUP_FALLBACK,
    )
    app.add_error_handler(basics.on_error)
    return app, features


def menu_commands(services: Services, features: Features) -> list[BotCommand]:
    names = [name for name, _ in features.commands] + ["sos", "help"]
    order = services.content.texts.data.get("command_menu", names)
    return [
        BotCommand(name, services.tx(f"commands.{name}"))
        for name in order
        if name in names and services.content.texts.has(f"commands.{name}")
    ]
