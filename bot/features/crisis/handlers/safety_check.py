"""The tier-2 crisis path: "Are you safe right now?" when a message may be a crisis.

A tier-2 match (plain distress, past-tense danger, a weak or guessed match) gets this short
check instead of the emergency reply: asking is kinder than alarming, and one press opens
the same help. Like the emergency reply it goes out on the crisis path (own connection
pool, no storage first), and like it, it leaves the conversation where it was:

- [I need help now]  the emergency reply for the kind that was found
- [I'm safe]         a short acknowledgement; no state changes, the person carries on
- [Talk it through]  a choice: the grounding steps (which end, as after the emergency
                     reply, with back / my safety plan / support lines) or the safety plan

Neither the check nor its answers list commands or explain storage. Each check is counted
for the operator like the emergency replies: a day and a kind, never a person.
"""

from __future__ import annotations

import logging

from telegram import Message, Update

from bot.features.crisis.callbacks import CheckButton, CrisisButton
from bot.features.crisis.handlers.send import send_crisis_reply, send_urgent
from bot.framework.chat import Button
from bot.framework.context import Context
from bot.framework.hub import Hub
from bot.matching.crisis import CrisisKind, CrisisMatch

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
    if context.application.running:
        context.application.create_task(count_check(context, match.kind), update=update)
    return sent


async def count_check(context: Context, kind: CrisisKind) -> None:
    # Operator statistics only, after the check is out: a day and a kind, nothing else.
    try:
        day = context.services.clock().date().isoformat()
        await context.services.crisis_counter.count_check(day, kind.value)
    except Exception as exc:
        log.warning("safety check count not stored: %s", type(exc).__name__)


def talk_buttons(context: Context) -> list[list[Button]]:
    """Grounding (its last step offers the way back, the safety plan and the lines) or the
    safety plan straight away: the crisis reply's own buttons, reused."""
    tx = context.tx
    return [
        [(tx("safety_check.btn_ground"), CrisisButton("ground", "1").encode())],
        [(tx("crisis_help.btn_plan"), CrisisButton("plan").encode())],
    ]


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
        await send_urgent(
            update, context, context.tx("safety_check.talk"), buttons=talk_buttons(context)
        )


def install(hub: Hub) -> None:
    hub.router.on_callback(CheckButton, on_button)


async def ensure_reply(update: Update, context: Context) -> None:
    """The check held back for a safety-plan answer, sent after all (the text turned out
    not to be kept quietly)."""
    if not context.crisis_quiet or context.crisis is None:
        return
    context.crisis_quiet = False
    message = update.effective_message
    context.crisis_reply = await send_check(update, context, context.crisis, message)
