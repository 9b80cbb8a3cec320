"""The menu's buttons and what "stop" offers (bot/core/callbacks.py)."""

from __future__ import annotations

from bot.core.callbacks import Choice


class MenuButton(Choice, prefix="menu", pattern=r"[a-z]{1,12}"):
    """`menu:<command>`: runs that command, as if it were sent (unknown names: nothing)."""


class StopButton(Choice, prefix="stop", pattern=r"end|keep|carry(?:country|timezone|time|safety)?"):
    """What "stop" offers beside pausing (which is a DailyButton): end check-ins, keep
    them; `carry` goes back to an unfinished onboarding step."""
