"""Feature modules beyond the foundation; each adds its commands, routes and jobs."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.handlers import daily, worksheets

if TYPE_CHECKING:
    from bot.app import Features, StApp

FEATURES: list[Callable[[StApp, Features], None]] = [worksheets.connect, daily.connect]
