"""The one confirmation before everything is deleted."""

from __future__ import annotations

from bot.content.texts import Tx
from bot.core.buttons import Rows
from bot.features.forget.callbacks import ForgetButton


def forget_buttons(tx: Tx) -> Rows:
    return [
        [(tx("forget.btn_yes"), ForgetButton("yes").encode())],
        [(tx("forget.btn_yes_clear"), ForgetButton("clear").encode())],
        [(tx("forget.btn_no"), ForgetButton("no").encode())],
    ]
