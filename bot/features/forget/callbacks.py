"""/forget's confirmation (bot/core/callbacks.py)."""

from __future__ import annotations

from bot.core.callbacks import Choice


class ForgetButton(Choice, prefix="forget", pattern=r"yes|clear|no"):
    pass
