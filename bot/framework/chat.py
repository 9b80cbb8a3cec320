"""Small helpers every handler module shares: who is writing, how to reply, keyboards."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from telegram import (
    Bot,
    Chat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    MessageEntity,
    Update,
    User,
)
from telegram._utils.datetime import extract_tzinfo_from_defaults, from_timestamp
from telegram.constants import ChatType
from telegram.error import BadRequest, Forbidden, TelegramError

from bot.content.places import name_in
from bot.core.buttons import Button
from bot.core.languages import ENGLISH
from bot.core.rich_text import Rich
from bot.core.telegram_text import BULK_DELETE_LIMIT, CALLBACK_DATA_LIMIT
from bot.features.discretion.service import CoverHolds
from bot.framework.context import Context, Services
from bot.framework.place_names import country_label
from bot.geo import lookup as geo
from bot.people.service import Person
from bot.transport.send_outcome import post_send

log = logging.getLogger(__name__)

__all__ = ["Button"]  # re-exported: handlers build rows of (label, callback data)


def _check_data(rows: Sequence[Sequence[Button]]) -> None:
    for row in rows:
        for _, data in row:
            if len(data.encode()) > CALLBACK_DATA_LIMIT:
                raise ValueError(f"callback data over Telegram's {CALLBACK_DATA_LIMIT}-byte limit")


def keyboard(rows: Sequence[Sequence[Button]]) -> InlineKeyboardMarkup:
    _check_data(rows)
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(label, callback_data=data) for label, data in row] for row in rows]
    )


def keyboard_json(rows: Sequence[Sequence[Button]]) -> dict[str, Any]:
    """`keyboard`, in the Bot API's JSON form (for `say_id`: no PTB objects built)."""
    _check_data(rows)
    return {
        "inline_keyboard": [
            [{"text": label, "callback_data": data} for label, data in row] for row in rows
        ]
    }


def is_private(update: Update) -> bool:
    chat = update.effective_chat
    return chat is not None and chat.type == ChatType.PRIVATE


async def current_person(update: Update, context: Context) -> Person | None:
    user = update.effective_user
    if user is None:
        return None
    person = await context.services.people.load(user.id)
    if person is not None:
        context.bind(person)
    return person


async def command_person(update: Update, context: Context, *, missing: str) -> Person | None:
    """The person behind a command, with the command's id noted for /clear; someone not yet
    known gets the text `missing` (a texts key) and None."""
    chat = update.effective_chat
    if chat is None:
        return None
    person = await current_person(update, context)
    if person is None:
        await say(context, chat.id, context.tx(missing))
        return None
    await remember(context.services, person, update.effective_message)
    return person


def country_name(context: Context, code: str) -> str:
    """A country in the person's language (CLDR); in English, our helplines' name for it
    when we have one ("United Kingdom"), else IANA's."""
    if context.language != ENGLISH:
        return name_in(code, context.services.content.helplines, context.language)
    return country_label(context.services.content.helplines, geo.country_names(), code)


async def private_command_person(update: Update, context: Context) -> Person | None:
    """As `command_person`; in discreet mode the command itself leaves the chat too (it
    says what they were doing)."""
    person = await command_person(update, context, missing="start.not_started")
    message = update.effective_message
    if person is not None and person.profile.discreet and message is not None:
        await delete_and_forget(context, person, [message.message_id])
    return person


async def remember(
    services: Services,
    person: Person | None,
    message: Message | None,
    *,
    quotes: str | None = None,
) -> None:
    """Keep the id (never the text) of a message so /clear can delete it within 48 hours;
    `quotes`: the worksheet whose answers it shows (deleting those deletes it too)."""
    if person is None or message is None:
        return
    _note(services, person, message.message_id, int(message.date.timestamp()), quotes)


def _note(
    services: Services, person: Person, message_id: int, date: int, quotes: str | None
) -> None:
    """The one place a sent message's id goes into the ledger (`remember`, `say_id`)."""
    services.ledger.note(person.person_id, message_id, date, quotes=quotes)


def hold_if_cover(context: Context, chat_id: int) -> None:
    """The one check every send makes just before it goes (`say`, and the few sends of a
    file or photo that cannot go through it): a chat in the panic cover gets nothing but
    the decoy. Raised, not returned, so no caller can forget to look; the error handler
    and the jobs take it quietly. tests/unit/transport/test_send_path.py holds every send to it."""
    if context.services.cover.chat_in_cover(chat_id):
        raise CoverHolds


async def say(
    context: Context,
    chat_id: int,
    text: str | Rich,
    *,
    person: Person | None = None,
    buttons: Sequence[Sequence[Button]] | None = None,
    protect: bool = False,
    silent: bool = False,
    bot: Bot | None = None,
    quotes: str | None = None,
) -> Message:
    if bot is None:  # only the urgent bot (decoy, crisis lines) speaks in cover
        hold_if_cover(context, chat_id)
    rich = text if isinstance(text, Rich) else Rich(text)
    message = await (bot or context.bot).send_message(
        chat_id,
        rich.text,
        entities=_entities(rich),
        reply_markup=keyboard(buttons) if buttons else None,
        protect_content=protect,
        disable_notification=silent,
    )
    await remember(context.services, person, message, quotes=quotes)
    return message


async def say_id(
    context: Context,
    chat_id: int,
    text: str | Rich,
    *,
    person: Person | None = None,
    buttons: Sequence[Sequence[Button]] | None = None,
    protect: bool = False,
    silent: bool = False,
    quotes: str | None = None,
) -> int:
    """`say`, for a caller that needs only the sent message's id: the same cover check,
    the same send policy and the same note for /clear, but the request is built as JSON
    and Telegram's answer is read for the id and date alone, never parsed into a PTB
    `Message` (with its keyboard, the larger part of an ordinary update's send: issue 25).
    The main bot only: the urgent bot's replies go through `say_urgent`."""
    hold_if_cover(context, chat_id)
    rich = text if isinstance(text, Rich) else Rich(text)
    params = _message_params(chat_id, rich, buttons, protect=protect, silent=silent)
    sent = await post_send(context.bot, "sendMessage", params)
    if sent is None:  # a bot without the JSON transport (http.py): PTB's own send
        message = await say(
            context,
            chat_id,
            rich,
            person=person,
            buttons=buttons,
            protect=protect,
            silent=silent,
            quotes=quotes,
        )
        return message.message_id
    message_id, date = sent
    if person is not None:
        _note(context.services, person, message_id, date, quotes)
    return message_id


def _entities(rich: Rich) -> list[MessageEntity] | None:
    """The text's formatting as PTB's entities (None for plain text), as `say` sends them."""
    return [MessageEntity(s.kind, s.offset, s.length) for s in rich.spans] or None


def _message_params(
    chat_id: int,
    rich: Rich,
    buttons: Sequence[Sequence[Button]] | None,
    *,
    protect: bool,
    silent: bool,
) -> dict[str, Any]:
    """A sendMessage's parameters in the Bot API's JSON form, as PTB would send them."""
    params: dict[str, Any] = {"chat_id": chat_id, "text": rich.text}
    if rich.spans:
        params["entities"] = [
            {"type": s.kind, "offset": s.offset, "length": s.length} for s in rich.spans
        ]
    if buttons:
        params["reply_markup"] = keyboard_json(buttons)
    # As PTB sends them: both always present (PTB leaves out only what is None).
    params["protect_content"] = protect
    params["disable_notification"] = silent
    return params


async def say_urgent(
    context: Context,
    chat: Chat,
    text: str | Rich,
    *,
    buttons: Sequence[Sequence[Button]] | None = None,
    silent: bool = False,
) -> Message:
    """`say` on the crisis bot (`Services.urgent_bot`, which speaks in cover too): the same
    request, built as JSON, through that bot's own send policy, and the `Message` made from
    what was sent with Telegram's id and date instead of parsed from the echo. PTB's send
    path was about a millisecond of CPU per crisis reply (issue 25). What the crisis path
    reads of its reply later is its id and keyboard (to add rows under it): both ours."""
    bot = context.services.urgent_bot
    rich = text if isinstance(text, Rich) else Rich(text)
    params = _message_params(chat.id, rich, buttons, protect=False, silent=silent)
    sent = await post_send(bot, "sendMessage", params)
    if sent is None:  # a bot without the JSON transport (http.py): PTB's own send
        return await say(context, chat.id, rich, buttons=buttons, silent=silent, bot=bot)
    message_id, date = sent
    when = from_timestamp(date, tzinfo=extract_tzinfo_from_defaults(bot))
    if when is None:  # only for no date at all, which sent_of never answers
        raise TelegramError("Invalid server response")
    message = Message(
        message_id,
        when,
        chat,
        from_user=_me(bot),
        text=rich.text,
        entities=_entities(rich),
        reply_markup=keyboard(buttons) if buttons else None,
    )
    message.set_bot(bot)
    return message


def _me(bot: Bot) -> User | None:
    try:
        return bot.bot
    except RuntimeError:  # not initialised (getMe not asked yet): the echo's sender unknown
        return None


@dataclass(frozen=True, slots=True)
class Sent:
    """What `tell` answers: the sent message's id, all its callers read of it."""

    message_id: int


async def tell(
    context: Context,
    person: Person,
    text: str | Rich,
    buttons: Sequence[Sequence[Button]] | None = None,
    *,
    protect: bool = False,
    quotes: str | None = None,
) -> Sent:
    """`say` to a known person (their chat, their id noted for /clear), sent as `say_id`
    sends: Telegram's answer is read for the id alone."""
    return Sent(
        await say_id(
            context,
            person.chat_id,
            text,
            person=person,
            buttons=buttons,
            protect=protect,
            quotes=quotes,
        )
    )


async def release(context: Context, person: Person, pressed: Message | None) -> None:
    """A message whose button moved things on: deleted in discreet mode, else unbuttoned."""
    if pressed is None:
        return
    if person.profile.discreet:
        await delete_and_forget(context, person, [pressed.message_id])
    else:
        await strip_buttons(pressed)


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


async def strip_buttons(message: Message | None) -> None:
    """Take the buttons off a message, so it cannot be pressed twice."""
    if message is None or message.reply_markup is None:
        return
    # Already without buttons, gone, or too old to edit: harmless, buttons check anyway.
    with contextlib.suppress(BadRequest):
        await message.edit_reply_markup(reply_markup=None)


def pressed_message(update: Update) -> Message | None:
    query = update.callback_query
    return query.message if query is not None and isinstance(query.message, Message) else None


async def delete_and_forget(context: Context, person: Person, ids: Sequence[int]) -> None:
    """Delete messages from the person's chat, and their ids from the ledger."""
    wanted = sorted({i for i in ids if i})
    if not wanted:
        return
    await delete_quietly(context, person.chat_id, wanted)
    # Ids still waiting in the batch may be stored after this; /clear deleting a message
    # that is already gone is a quiet no-op, so they need no chasing.
    await context.services.ledger.forget(person.person_id, wanted)


async def delete_quietly(
    context: Context, chat_id: int, message_ids: Sequence[int], *, bot: Bot | None = None
) -> int:
    """Delete what Telegram lets us; a refusal (too old, already gone) is not an error.
    A failure to reach Telegram still raises, as before."""
    deleted, _, failed = await _delete(bot or context.bot, chat_id, message_ids)
    if failed is not None:
        raise failed
    return deleted


async def delete_all(
    context: Context, chat_id: int, message_ids: Sequence[int], *, bot: Bot | None = None
) -> list[int]:
    """Delete every message Telegram still lets us; return the ids that could not be
    deleted for now (Telegram unreachable or busy past the send policy's retries), for
    the caller to try again. Never raises for a refusal or a network failure."""
    _, later, _ = await _delete(bot or context.bot, chat_id, message_ids, keep_going=True)
    return later


async def _delete(
    sender: Bot, chat_id: int, message_ids: Sequence[int], *, keep_going: bool = False
) -> tuple[int, list[int], TelegramError | None]:
    """Batches of up to 100. Telegram's deleteMessages refuses a whole batch when one id in
    it cannot be deleted (too old, already gone), so a refused batch is halved until the
    refused ids stand alone: k bad ids among n cost about k * log2(n) extra calls, not n.
    An id refused on its own is past deleting and dropped."""
    deleted, later = 0, list[int]()
    pending = [  # a stack, oldest messages on top
        list(message_ids[i : i + BULK_DELETE_LIMIT])
        for i in range(0, len(message_ids), BULK_DELETE_LIMIT)
    ][::-1]
    while pending:
        chunk = pending.pop()
        try:
            if len(chunk) == 1:
                done = await sender.delete_message(chat_id, chunk[0])
            else:
                done = await sender.delete_messages(chat_id, chunk)
            if done:
                deleted += len(chunk)
        except BadRequest:
            if len(chunk) > 1:
                half = len(chunk) // 2
                pending += [chunk[half:], chunk[:half]]
        except Forbidden:
            break  # the person blocked the bot: nothing can be deleted any more
        except TelegramError as exc:
            if not keep_going:
                return deleted, later, exc
            later += chunk
    return deleted, later, None
