"""Crisis keywords: the first handler group, on every private message, caption and edit.

The reply goes out before anything touches storage. The country comes from memory; on a
cache miss storage gets LOOKUP_BUDGET seconds, then the international list is used. The
message is not consumed: a worksheet answer or journal reply that contains a crisis word is
still saved by the later groups, which see `context.crisis`.

Only a tier-1 (certain) match gets the emergency reply; a tier-2 one gets the "Are you safe
right now?" check of bot/handlers/safety_check.py, on the same path.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

from telegram import Message, Update
from telegram.ext import ApplicationHandlerStop

from bot.context import Context
from bot.handlers import safety_check
from bot.handlers.common import Button, delete_quietly, is_private, say
from bot.handlers.router import Router
from bot.handlers.setup import country_name
from bot.services.crisis import CrisisKind, CrisisMatch
from bot.services.crisis_reply import compose_full_list, compose_reply

log = logging.getLogger(__name__)

LOOKUP_BUDGET = 0.3  # seconds the reply may wait for a country not yet in memory


async def country_of(context: Context, user_id: int) -> str | None:
    people = context.services.people
    person_id = people.person_id(user_id)
    if person_id in people.country_cache:
        return people.country_cache[person_id]
    try:
        person = await asyncio.wait_for(people.load_by_id(person_id), LOOKUP_BUDGET)
    except Exception as exc:  # storage down or slow: the reply must still go out
        log.warning("crisis country lookup failed: %s", type(exc).__name__)
        return None
    return None if person is None else person.profile.country


def crisis_buttons(
    context: Context, country: str | None, trigger_id: int | None
) -> list[list[Button]]:
    tx = context.services.tx
    rows: list[list[Button]] = [[(tx("crisis.btn_more"), "crisis:more")]]
    if trigger_id is not None:
        rows.append([(tx("crisis.btn_clear"), f"crisis:clear:{trigger_id}")])
    if country is None:
        rows.append([(tx("crisis.btn_set_country"), "set:country")])
    rows.append([(tx("crisis.btn_ground"), "crisis:ground")])
    return rows


async def send_urgent(
    update: Update,
    context: Context,
    text: str,
    *,
    buttons: list[list[Button]] | None = None,
    trigger: Message | None = None,
) -> Message | None:
    """Send on the crisis path: own connection pool, no throttle, no storage before it.
    Respects the person's Silent setting (a phone that rings can be dangerous) and notes
    the ids (never the text) of both messages for /clear."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return None
    people = context.services.people
    person_id = people.person_id(user.id)
    sent = await say(
        context,
        chat.id,
        text,
        buttons=buttons,
        bot=context.services.urgent_bot,
        silent=people.silent_cache.get(person_id, False),
    )
    for message in (trigger, sent):
        if message is not None:
            people.note_message(person_id, message.message_id, int(message.date.timestamp()))
    return sent


async def send_crisis_reply(
    update: Update, context: Context, kind: CrisisKind, trigger: Message | None
) -> Message | None:
    user = update.effective_user
    if user is None:
        return None
    country = await country_of(context, user.id)
    content = context.services.content
    label = country_name(context, country) if country else None
    text = compose_reply(kind, content.helplines, country, context.services.tx, country_label=label)
    trigger_id = trigger.message_id if trigger is not None else None
    sent = await send_urgent(
        update,
        context,
        text,
        buttons=crisis_buttons(context, country, trigger_id),
        trigger=trigger,
    )
    log.info("crisis reply sent kind=%s update=%s", kind.value, update.update_id)
    if context.application.running:
        context.application.create_task(_count(context, kind), update=update)
    return sent


async def _count(context: Context, kind: CrisisKind) -> None:
    # Operator statistics only: a day and a kind, never a person or their words.
    try:
        day = context.services.clock().date().isoformat()
        await context.services.people.store.count_crisis(day, kind.value)
    except Exception as exc:
        log.warning("crisis count not stored: %s", type(exc).__name__)


EARLY_KEY = "steady.crisis.early"
Early = tuple[CrisisMatch, Message | None]


def _early(application: Any) -> dict[int, Early]:
    found: dict[int, Early] = application.bot_data.setdefault(EARLY_KEY, {})
    return found


async def reply_early(update: Update, application: Any) -> None:
    """Called by the update processor for a crisis message before it waits for anything;
    the crisis group below then finds the reply sent (keyed by update id)."""
    if not is_private(update):
        return
    context = Context.from_update(update, application)
    message = update.effective_message
    text = (message.text or message.caption or "") if message is not None else ""
    command = text.split(maxsplit=1)[0].split("@")[0] if text.startswith("/") else ""
    if command in ("/sos", "/help"):
        await _sos(update, context, guide=command == "/help")
        _early(application)[update.update_id] = (CrisisMatch(CrisisKind.GENERAL, frozenset()), None)
        return
    match = context.services.content.detector.detect(text) if text else None
    if match is None or command:
        return
    sent = await respond(update, context, match, message)
    _early(application)[update.update_id] = (match, sent)


async def on_message(update: Update, context: Context) -> None:
    message = update.effective_message
    if message is None or not is_private(update):
        return
    early = _early(context.application).pop(update.update_id, None)
    if early is not None:
        context.crisis, context.crisis_reply = early
        return
    text = message.text or message.caption
    if not text or text.startswith("/"):
        return  # commands have their own handlers (/sos and /help show the same lines)
    match = context.services.content.detector.detect(text)
    if match is None:
        return
    context.crisis = match
    try:
        context.crisis_reply = await respond(update, context, match, message)
    except Exception as exc:
        # Whatever Telegram said, what they wrote must still be saved by the later groups.
        log.warning("crisis reply not sent: %s", type(exc).__name__)


async def respond(
    update: Update, context: Context, match: CrisisMatch, trigger: Message | None
) -> Message | None:
    """The emergency reply when the match is certain, the safety check when it is not."""
    if match.certain:
        return await send_crisis_reply(update, context, match.kind, trigger)
    return await safety_check.send_check(update, context, match, trigger)


async def _sos(update: Update, context: Context, *, guide: bool) -> None:
    await send_crisis_reply(update, context, CrisisKind.GENERAL, update.effective_message)
    if guide:
        await send_urgent(update, context, context.services.tx("guide.text"))


async def on_sos(update: Update, context: Context) -> None:
    if not is_private(update):
        return
    if _early(context.application).pop(update.update_id, None) is None:
        await _sos(update, context, guide=False)
    raise ApplicationHandlerStop


async def on_help(update: Update, context: Context) -> None:
    if not is_private(update):
        return
    if _early(context.application).pop(update.update_id, None) is None:
        await _sos(update, context, guide=True)
    raise ApplicationHandlerStop


async def on_button(update: Update, context: Context, arg: str) -> None:
    query = update.callback_query
    chat = update.effective_chat
    user = update.effective_user
    if query is None or chat is None or user is None:
        return
    action, _, rest = arg.partition(":")
    tx = context.services.tx
    if action == "more":
        country = await country_of(context, user.id)
        text = compose_full_list(context.services.content.helplines, country, tx)
        await send_urgent(
            update, context, text, buttons=[[(tx("crisis.btn_ground"), "crisis:ground")]]
        )
    elif action == "clear":
        ids = [query.message.message_id] if query.message is not None else []
        if re.fullmatch(r"[0-9]{1,12}", rest):  # not isdigit(): it accepts "²"
            ids.append(int(rest))
        await delete_quietly(context, chat.id, ids)
    elif action == "ground":
        await send_urgent(update, context, tx("crisis.grounding"))


def register(router: Router) -> None:
    router.on_callback("crisis", on_button)
    safety_check.register(router)
