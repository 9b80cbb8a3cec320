"""The callback codecs and stored-state kinds the app's features register, read from a
Hub they were installed into: the same registry the running bot dispatches with. No bot
runs here, so the shared services each feature builds its own from are stand-ins (only
what the features register is read; nothing is sent; e2e tests read a running bot's own hub)."""

from __future__ import annotations

from functools import cache
from typing import cast
from unittest.mock import MagicMock

from bot.app import features
from bot.core.callbacks import CallbackData
from bot.core.state import StoredState
from bot.framework.context import Services
from bot.framework.hub import Hub
from bot.transport.http import BotApiRequest


@cache
def installed() -> Hub:
    shared = MagicMock()
    # The check-ins' JSON send asks for the bot's own transport when it is built.
    shared.main_bot.request = BotApiRequest()
    hub = Hub(services=cast(Services, shared))
    for feature in features():
        feature.install(hub)
    return hub


def decode_state(state: str) -> StoredState | None:
    """A stored state of any feature's kind (None: nothing pending, or not one)."""
    return installed().router.decode_state(state)


def codecs() -> list[type[CallbackData]]:
    return installed().router.codecs.kinds()
