"""The one confirmation before everything is deleted."""

from __future__ import annotations

from bot.core.callbacks import ForgetButton
from bot.texts import Tx
from bot.views import Rows


def forget_buttons(tx: Tx) -> Rows:
    return [
        [(tx("forget.btn_yes"), ForgetButton("yes").encode())],
        [(tx("forget.btn_yes_clear"), ForgetButton("clear").encode())],
        [(tx("forget.btn_no"), ForgetButton("no").encode())],
    ]
