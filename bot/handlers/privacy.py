"""/forget (delete everything, by destroying the person's key) and /clear (tidy the chat)."""

from __future__ import annotations

from datetime import timedelta

from telegram import Update

from bot.context import Context
from bot.handlers.common import current_person, delete_quietly, remember, replace_or_say, say
from bot.handlers.router import Router

# Telegram lets a bot delete messages in a private chat for 48 hours.
# Source: https://core.telegram.org/bots/api#deletemessage
DELETE_WINDOW = timedelta(hours=48)


async def forget(update: Update, context: Context) -> None:
    chat = update.effective_chat
    if chat is None:
        return
    person = await current_person(update, context)
    tx = context.services.tx
    if person is None:
        await say(context, chat.id, tx("forget.nothing"))
        return
    await remember(context.services, person, update.effective_message)
    await say(
        context,
        chat.id,
        tx("forget.confirm"),
        person=person,
        buttons=[
            [(tx("forget.btn_yes"), "forget:yes")],
            [(tx("forget.btn_yes_clear"), "forget:clear")],
            [(tx("forget.btn_no"), "forget:no")],
        ],
    )


async def clear_chat(context: Context, person_id: str, chat_id: int) -> int:
    services = context.services
    await services.people.flush_message_ids()
    since = int((services.clock() - DELETE_WINDOW).timestamp())
    ids = await services.people.store.recent_messages(person_id, since)
    deleted = await delete_quietly(context, chat_id, ids)
    await services.people.store.forget_messages(person_id, ids)
    return deleted


async def clear(update: Update, context: Context) -> None:
    chat = update.effective_chat
    if chat is None:
        return
    person = await current_person(update, context)
    tx = context.services.tx
    if person is None:
        await say(context, chat.id, tx("forget.nothing"))
        return
    await remember(context.services, person, update.effective_message)
    await clear_chat(context, person.person_id, chat.id)
    await say(context, chat.id, tx("clear.done"), person=person)


async def on_button(update: Update, context: Context, arg: str) -> None:
    chat = update.effective_chat
    if chat is None:
        return
    tx = context.services.tx
    if arg == "no":
        await replace_or_say(context, update, tx("forget.cancelled"))
        return
    if arg not in ("yes", "clear"):
        return
    person = await current_person(update, context)
    if person is None:
        await replace_or_say(context, update, tx("forget.nothing"))
        return
    if arg == "clear":
        await clear_chat(context, person.person_id, chat.id)
    await context.services.people.forget(person.person_id)
    await say(context, chat.id, tx("forget.done"))


def register(router: Router) -> None:
    router.on_callback("forget", on_button)
