"""The callback codecs and stored-state kinds the app's features register, read from a
Hub they were installed into: the same registry the running bot dispatches with."""

from __future__ import annotations

from functools import cache

from bot.app import features
from bot.core.callbacks import CallbackData
from bot.core.state import StoredState
from bot.framework.hub import Hub


@cache
def installed() -> Hub:
    hub = Hub()
    for feature in features():
        feature.install(hub)
    return hub


def decode_state(state: str) -> StoredState | None:
    """A stored state of any feature's kind (None: nothing pending, or not one)."""
    return installed().router.decode_state(state)


def codecs() -> list[type[CallbackData]]:
    return installed().router.codecs.kinds()
