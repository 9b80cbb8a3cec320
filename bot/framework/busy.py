"""The one reply to an update the bot had no room for (overload: the admission queue of
bot/transport/ordering.py was full): the person is told, kindly, that it was not taken in
and to send it again, so nothing they wrote is dropped without a word."""

from __future__ import annotations

import contextlib

from telegram import Update
from telegram.constants import ChatType

from bot.features.discretion.service import CoverHolds
from bot.framework.chat import current_person, say
from bot.framework.context import Context
from bot.framework.hub import AnyApplication


async def tell_busy(update: Update, application: AnyApplication) -> None:
    chat = update.effective_chat
    if chat is None or chat.type != ChatType.PRIVATE:
        return
    context = Context.from_update(update, application)
    # Their language, and the notice's id kept for /clear (one indexed read at most).
    person = await current_person(update, context)
    with contextlib.suppress(CoverHolds):  # in the panic cover only the decoy speaks
        await say(context, chat.id, context.tx("errors.busy"), person=person)
