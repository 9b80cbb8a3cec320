"""The panic-word menu's buttons (bot/core/callbacks.py)."""

from __future__ import annotations

from bot.core.callbacks import Choice


class DiscretionButton(
    Choice,
    prefix="dsc",
    pattern=r"menu|panic|return|noreturn|off|erase:(?:on|off)|theme:[a-z]{1,12}",
):
    """The panic-word menu in /settings."""
