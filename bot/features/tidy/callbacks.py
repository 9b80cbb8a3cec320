"""The buttons on a message that can leave the chat (bot/core/callbacks.py)."""

from __future__ import annotations

from bot.core.callbacks import Choice


class TidyButton(Choice, prefix="tidy", pattern=r"keep|remove|hide"):
    """[Keep it], [Remove this file from the chat] and [Hide], on the message itself."""
