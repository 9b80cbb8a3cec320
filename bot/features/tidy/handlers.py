"""Nothing left lying in the chat (issue 13): buttons that take a message out ([Remove this
file from the chat], [Keep it], [Hide]), messages that remove themselves after a while (an
export in discreet mode, the confirmation of /clear or of a deletion), and the sweep that
removes them when due. The due times are stored, so a restart leaves nothing behind.
"""

from __future__ import annotations

import logging
from typing import Any

from telegram import Message, Update
from telegram.error import TelegramError

from bot.core.buttons import Rows
from bot.features.discretion.service import CONFIRMATION_LIFETIME, EXPORT_LIFETIME
from bot.features.tidy.callbacks import TidyButton
from bot.framework.chat import delete_quietly, keyboard
from bot.framework.context import Context
from bot.framework.hub import Hub
from bot.people.service import Person

log = logging.getLogger(__name__)

SWEEP_SECONDS = 30.0  # how often messages due to remove themselves are looked for


class TidyFeature:
    def install(self, hub: Hub) -> None:
        hub.router.on_callback(TidyButton, self.on_button)
        hub.every("self_removal_sweep", SWEEP_SECONDS, self.sweep)
        hub.offers.tidying = self

    # --- Tidying (bot/framework/offers.py): the module's functions, offered ------------

    async def remove_soon(self, context: Context, person: Person, message: Message | None) -> None:
        await remove_soon(context, person, message)

    def remove_unrecorded_soon(
        self, context: Context, chat_id: int, message: Message | None
    ) -> None:
        remove_unrecorded_soon(context, chat_id, message)

    async def remove_later(self, context: Context, person: Person, message: Message) -> None:
        await remove_later(context, person, message)

    def hide_row(self, context: Context) -> Rows:
        return hide_row(context)

    def export_buttons(self, context: Context, person: Person) -> Rows:
        return export_buttons(context, person)

    def export_caption(self, context: Context, person: Person, caption: str) -> str:
        return export_caption(context, person, caption)

    async def on_button(self, update: Update, context: Context, data: TidyButton) -> None:
        value = data.value
        query = update.callback_query
        user = update.effective_user
        if query is None or user is None or not isinstance(query.message, Message):
            return
        services = context.services
        person_id = services.people.person_id(user.id)
        message_id = query.message.message_id
        if value == "keep":
            await services.discretion.keep(person_id, message_id)
            remove = TidyButton("remove").encode()
            rows = [[(context.tx("discretion.btn_remove_file"), remove)]]
            try:
                await query.message.edit_reply_markup(reply_markup=keyboard(rows))
            except TelegramError as exc:
                log.debug("keep: buttons unchanged: %s", type(exc).__name__)
            return
        await delete_quietly(context, query.message.chat.id, [message_id])
        await services.discretion.keep(person_id, message_id)
        await services.ledger.forget(person_id, [message_id])

    async def sweep(self, context: Context) -> None:
        """Messages due to remove themselves (an export in discreet mode), restarts or not."""
        services = context.services
        try:
            due = await services.discretion.due_removals()
        except Exception as exc:
            log.warning("self-removal sweep failed: %s", type(exc).__name__)
            return
        for person_id, message_id in due:
            try:
                person = await services.people.load_by_id(person_id)
                if person is not None:
                    await delete_quietly(context, person.chat_id, [message_id])
                    await services.ledger.forget(person_id, [message_id])
                await services.discretion.keep(person_id, message_id)
            except Exception as exc:
                log.warning("self-removal failed: %s", type(exc).__name__)


def export_buttons(context: Context, person: Person) -> Rows:
    """The rows every export carries: remove it now, and in discreet mode keep it."""
    tx = context.tx
    rows: Rows = [[(tx("discretion.btn_remove_file"), TidyButton("remove").encode())]]
    if person.profile.discreet:
        rows.insert(0, [(tx("discretion.btn_keep_file"), TidyButton("keep").encode())])
    return rows


def export_caption(context: Context, person: Person, caption: str) -> str:
    """What the file's caption must also say: a copy may be on the phone already, and in
    discreet mode when the file leaves the chat by itself."""
    tx = context.tx
    text = caption + "\n\n" + tx("discretion.export_copy")
    if person.profile.discreet:
        text += " " + tx("discretion.export_leaves", minutes=EXPORT_LIFETIME // 60)
    return text


async def remove_later(context: Context, person: Person, message: Message) -> None:
    """In discreet mode an export goes by itself after a few minutes unless kept."""
    if person.profile.discreet:
        await context.services.discretion.remove_later(
            person.person_id, message.message_id, EXPORT_LIFETIME
        )


async def remove_soon(context: Context, person: Person, message: Message | None) -> None:
    """A confirmation ("Cleared", "Deleted") that goes by itself once read: it would say
    what was done to anyone who picks up the phone."""
    if message is not None:
        await context.services.discretion.remove_later(
            person.person_id, message.message_id, CONFIRMATION_LIFETIME
        )


def remove_unrecorded_soon(context: Context, chat_id: int, message: Message | None) -> None:
    """The same for a chat whose person is gone (after /forget): nothing stored remains to
    hold the due time, so memory holds it (a restart in that minute leaves it)."""
    queue = context.job_queue
    if message is None or queue is None:
        return
    message_id = message.message_id

    async def remove(job_context: Any) -> None:
        await delete_quietly(context, chat_id, [message_id])

    queue.run_once(remove, CONFIRMATION_LIFETIME, job_kwargs={"misfire_grace_time": 3600})


def hide_row(context: Context) -> Rows:
    """[Hide] on a message that shows the person's own words: deletes it at once."""
    return [[(context.tx("discretion.btn_hide"), TidyButton("hide").encode())]]
