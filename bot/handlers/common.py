"""Small helpers every handler module shares: who is writing, how to reply, keyboards."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Message, Update
from telegram.constants import ChatType
from telegram.error import BadRequest, Forbidden

from bot.context import Context, Services
from bot.services.people import Person

log = logging.getLogger(__name__)

Button = tuple[str, str]  # (label, callback data)
# Telegram allows 1-64 bytes of callback data per button.
# Source: https://core.telegram.org/bots/api#inlinekeyboardbutton
CALLBACK_DATA_LIMIT = 64


def keyboard(rows: Sequence[Sequence[Button]]) -> InlineKeyboardMarkup:
    for row in rows:
        for _, data in row:
            if len(data.encode()) > CALLBACK_DATA_LIMIT:
                raise ValueError("callback data over Telegram's 64-byte limit")
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(label, callback_data=data) for label, data in row] for row in rows]
    )


def is_private(update: Update) -> bool:
    chat = update.effective_chat
    return chat is not None and chat.type == ChatType.PRIVATE


async def current_person(update: Update, context: Context) -> Person | None:
    user = update.effective_user
    if user is None:
        return None
    return await context.services.people.load(user.id)


async def command_person(update: Update, context: Context, *, missing: str) -> Person | None:
    """The person behind a command, with the command's id noted for /clear; someone not yet
    known gets the text `missing` (a texts key) and None."""
    chat = update.effective_chat
    if chat is None:
        return None
    person = await current_person(update, context)
    if person is None:
        await say(context, chat.id, context.services.tx(missing))
        return None
    await remember(context.services, person, update.effective_message)
    return person


async def remember(services: Services, person: Person | None, message: Message | None) -> None:
    """Keep the id (never the text) of a message so /clear can delete it within 48 hours."""
    if person is None or message is None:
        return
    services.people.note_message(
        person.person_id, message.message_id, int(message.date.timestamp())
    )


async def say(
    context: Context,
    chat_id: int,
    text: str,
    *,
    person: Person | None = None,
    buttons: Sequence[Sequence[Button]] | None = None,
    protect: bool = False,
    silent: bool = False,
    bot: Bot | None = None,
) -> Message:
    message = await (bot or context.bot).send_message(
        chat_id,
        text,
        reply_markup=keyboard(buttons) if buttons else None,
        protect_content=protect,
        disable_notification=silent,
    )
    await remember(context.services, person, message)
    return message


async def replace_or_say(
    context: Context,
    update: Update,
    text: str,
    *,
    person: Person | None = None,
    buttons: Sequence[Sequence[Button]] | None = None,
) -> None:
    """Edit the message whose button was pressed (keeps the chat short), else send anew."""
    query = update.callback_query
    markup = keyboard(buttons) if buttons else None
    if query is not None and isinstance(query.message, Message):
        try:
            await query.message.edit_text(text, reply_markup=markup)
            return
        except BadRequest:
            pass  # too old to edit, or unchanged: a fresh message is fine
    chat = update.effective_chat
    if chat is not None:
        await say(context, chat.id, text, person=person, buttons=buttons)


async def delete_quietly(context: Context, chat_id: int, message_ids: Sequence[int]) -> int:
    """Delete what Telegram lets us; a refusal (too old, already gone) is not an error."""
    deleted = 0
    for start in range(0, len(message_ids), 100):
        chunk = list(message_ids[start : start + 100])
        try:
            if await context.bot.delete_messages(chat_id, chunk):
                deleted += len(chunk)
        except BadRequest:
            for message_id in chunk:
                try:
                    if await context.bot.delete_message(chat_id, message_id):
                        deleted += 1
                except BadRequest:
                    continue
        except Forbidden:
            break
    return deleted
