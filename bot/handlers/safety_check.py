"""The tier-2 crisis path: "Are you safe right now?" when a message may be a crisis.

A tier-2 match (plain distress, past-tense danger, a weak or guessed match) gets this short
check instead of the emergency reply: asking is kinder than alarming, and one press opens
the same help. Like the emergency reply it goes out on the crisis path (own connection
pool, no storage first), and like it, it leaves the conversation where it was:

- [I need help now]  the emergency reply for the kind that was found
- [I'm safe]         a short acknowledgement; no state changes, the person carries on
- [Talk it through]  the grounding steps the emergency reply offers too

Neither the check nor its answers list commands or explain storage.
"""

from __future__ import annotations

import logging

from telegram import Message, Update

from bot.context import Context
from bot.core.callbacks import CheckButton
from bot.core.hub import Hub
from bot.handlers.common import Button
from bot.handlers.crisis_send import send_crisis_reply, send_grounding, send_urgent
from bot.services.crisis import CrisisKind, CrisisMatch

log = logging.getLogger(__name__)


def check_buttons(context: Context, kind: CrisisKind) -> list[list[Button]]:
    tx = context.tx
    return [
        [(tx("safety_check.btn_help"), CheckButton("help", kind.value).encode())],
        [(tx("safety_check.btn_safe"), CheckButton("ok").encode())],
        [(tx("safety_check.btn_talk"), CheckButton("talk").encode())],
    ]


async def send_check(
    update: Update, context: Context, match: CrisisMatch, trigger: Message | None
) -> Message | None:
    sent = await send_urgent(
        update,
        context,
        context.tx("safety_check.ask"),
        buttons=check_buttons(context, match.kind),
        trigger=trigger,
    )
    log.info("safety check sent kind=%s update=%s", match.kind.value, update.update_id)
    return sent


def _kind(value: str) -> CrisisKind:
    try:
        return CrisisKind(value)
    except ValueError:  # forged or from an older build: the general lines still help
        return CrisisKind.GENERAL


async def on_button(update: Update, context: Context, data: CheckButton) -> None:
    if update.callback_query is None or update.effective_user is None:
        return
    if data.action == "help":
        await send_crisis_reply(update, context, _kind(data.kind), None)
    elif data.action == "ok":
        await send_urgent(update, context, context.tx("safety_check.safe_ack"))
    elif data.action == "talk":
        await send_grounding(update, context, "1")


def install(hub: Hub) -> None:
    hub.router.on_callback(CheckButton, on_button)
