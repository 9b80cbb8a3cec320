"""The bot's features, in install order: the one list a new feature is added to.

Each feature is its own package under bot/features; everything it adds (handlers in their
groups, commands, buttons and their codecs, stored states, text routes, jobs, early hooks,
its own services, what it offers other features) it adds in its own `install`.
bot/wiring.py builds the shared services and installs these.
Within a handler group the first feature to match runs, so the order matters where two
features share a group (the urge's idle-text route before the check-ins', say).
"""

from __future__ import annotations

from bot.features.checkins.handlers import DailyFeature
from bot.features.conversation.handlers import ConversationFeature
from bot.features.crisis.handlers.crisis import CrisisFeature
from bot.features.crisis.handlers.held import HeldWordsFeature
from bot.features.discretion.handlers import DiscretionFeature
from bot.features.export.handlers import ExportFeature
from bot.features.forget.handlers import ForgetFeature
from bot.features.progress.handlers import ProgressFeature
from bot.features.record.handlers.record import RecordFeature
from bot.features.setup.handlers import SetupFeature
from bot.features.start.handlers.commands import StartFeature
from bot.features.tidy.handlers import TidyFeature
from bot.features.urge.handlers import UrgeFeature
from bot.features.worksheets.handlers.worksheets import WorksheetsFeature
from bot.framework.hub import Feature


def features() -> list[Feature]:
    return [
        StartFeature(),
        SetupFeature(),
        CrisisFeature(),
        HeldWordsFeature(),
        DiscretionFeature(),
        TidyFeature(),
        ForgetFeature(),
        WorksheetsFeature(),
        # Before the check-ins: its idle-text route (the pull-back offer) goes first.
        UrgeFeature(),
        DailyFeature(),
        # After the features whose writing it gathers (their services are offered by then).
        ExportFeature(),
        RecordFeature(),
        ProgressFeature(),
        ConversationFeature(),
    ]
