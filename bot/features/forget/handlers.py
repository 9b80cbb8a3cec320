"""/forget (delete everything, by destroying the person's key) and /clear (tidy the chat)."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import TelegramError

from bot.features.forget.callbacks import ForgetButton
from bot.features.forget.views import forget_buttons
from bot.framework.chat import (
    command_person,
    current_person,
    delete_quietly,
    pressed_message,
    replace_or_say,
    say,
)
from bot.framework.context import Context
from bot.framework.damaged import DamagedButton, on_damaged_button
from bot.framework.hub import Hub
from bot.people.service import Person, UnreadableDataError

log = logging.getLogger(__name__)


async def ask_to_forget(update: Update, context: Context, person: Person) -> None:
    """The one confirmation for deleting everything (/forget and the settings button)."""
    await say(
        context,
        person.chat_id,
        context.tx("forget.confirm") + "\n\n" + context.tx("discretion.forget_note"),
        person=person,
        buttons=forget_buttons(context.tx),
    )


async def forget(update: Update, context: Context) -> None:
    person = await command_person(update, context, missing="forget.nothing")
    if person is not None:
        await ask_to_forget(update, context, person)


async def clear(update: Update, context: Context) -> None:
    person = await command_person(update, context, missing="forget.nothing")
    if person is None:
        return
    ledger = context.services.ledger
    ids = await ledger.deletable(person.person_id)
    await delete_quietly(context, person.chat_id, ids)
    await ledger.forget(person.person_id, ids)
    done = await say(context, person.chat_id, context.tx("clear.done"), person=person)
    await context.offers.tidying.remove_soon(context, person, done)


async def on_button(update: Update, context: Context, data: ForgetButton) -> None:
    arg = data.value
    chat = update.effective_chat
    if chat is None:
        return
    tx = context.tx
    if arg == "no":
        await replace_or_say(context, update, tx("forget.cancelled"))
        return
    people = context.services.people
    try:
        person = await current_person(update, context)
        person_id = None if person is None else person.person_id
    except UnreadableDataError as exc:
        person_id = exc.person_id  # erasing needs no decryption
    if person_id is None:
        await replace_or_say(context, update, tx("forget.nothing"))
        return
    ids = await context.services.ledger.deletable(person_id) if arg == "clear" else []
    # Delete first: a failing Telegram must not be able to cancel the erasure.
    await people.forget(person_id)
    # The confirmation loses its buttons, so an old tap cannot erase a later fresh start.
    await replace_or_say(context, update, tx("forget.done"))
    context.offers.tidying.remove_unrecorded_soon(context, chat.id, pressed_message(update))
    if ids:
        try:
            await delete_quietly(context, chat.id, ids)
        except TelegramError as exc:
            log.warning("chat not cleared after forget: %s", type(exc).__name__)


async def offer_erasure(context: Context, chat_id: int) -> None:
    """Their data no longer opens: say so plainly, and offer the one thing that still works."""
    tx = context.tx
    buttons = [
        [(tx("unreadable.btn_erase"), ForgetButton("yes").encode())],
        [(tx("unreadable.btn_keep"), ForgetButton("no").encode())],
    ]
    await say(context, chat_id, tx("unreadable.offer"), buttons=buttons)


class ForgetFeature:
    """/forget (everything, by destroying the person's key) and /clear (tidy the chat)."""

    def install(self, hub: Hub) -> None:
        hub.command("clear", clear)
        hub.command("forget", forget)
        hub.router.on_callback(ForgetButton, on_button)
        hub.router.on_callback(DamagedButton, on_damaged_button)
        hub.offers.forgetting = self

    async def ask_to_forget(self, update: Update, context: Context, person: Person) -> None:
        await ask_to_forget(update, context, person)

    async def offer_erasure(self, context: Context, chat_id: int) -> None:
        await offer_erasure(context, chat_id)
