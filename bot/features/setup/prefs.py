"""The settings panel's own fields in the sealed profile (bot/people/profile.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from bot.people.profile import Record


@dataclass
class SetupPrefs(Record):
    KEY: ClassVar[str] = "setup"

    shared_device: bool | None = None  # answer to "could someone else read this chat?"
    # The /settings panel (or its question) on screen: edited in place, or replaced, never
    # piled up (0: none).
    settings_message: int = 0
