"""[Keep as my answer] [Don't keep]: the person's choice about held words (text that
triggered the crisis path inside a worksheet answer or a journal reply).

The rule (what is dropped, held or kept quietly) is bot/features/crisis/held.py; the
worksheet flow holds answers (bot/features/worksheets/flow.py), `journal_reply` below holds
journal replies. This module puts the choice under the crisis reply or the check (or on its
own line when that message cannot be edited), files a kept text where it was written for,
and lets an edit of a held message update what is held.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence

from telegram import InlineKeyboardMarkup, Message, Update
from telegram.error import BadRequest

from bot.features.crisis.callbacks import HeldButton
from bot.features.crisis.handlers.safety_check import ensure_reply
from bot.features.crisis.held import Held, HeldDecision, HeldTexts, decide, hold, replace_text, take
from bot.framework.chat import (
    Button,
    current_person,
    delete_quietly,
    keyboard,
    pressed_message,
    tell,
)
from bot.framework.context import Context
from bot.framework.hub import Hub
from bot.people.service import Person

log = logging.getLogger(__name__)


def keep_row(context: Context, message_id: int, *, journal: bool) -> list[Button]:
    tx = context.tx
    key = "crisis_held.btn_keep_journal" if journal else "crisis_held.btn_keep_answer"
    return [
        (tx(key), HeldButton(True, message_id).encode()),
        (tx("crisis_held.btn_drop"), HeldButton(False, message_id).encode()),
    ]


async def add_under_reply(
    context: Context, person: Person, rows: Sequence[list[Button]], fallback: str
) -> None:
    """Add `rows` under the crisis reply or the check, keeping its own buttons; if there is
    none (it failed) or it cannot be edited, send them on their own under `fallback`."""
    reply = context.crisis_reply
    if reply is not None:
        kept = list(reply.reply_markup.inline_keyboard) if reply.reply_markup else []
        added = [tuple(row) for row in keyboard(list(rows)).inline_keyboard]
        try:
            await context.bot.edit_message_reply_markup(
                person.chat_id, reply.message_id, reply_markup=InlineKeyboardMarkup(kept + added)
            )
            return
        except BadRequest:
            pass  # the reply is gone: offer the buttons on their own
    await tell(context, person, fallback, list(rows))


async def journal_reply(
    update: Update, context: Context, person: Person, prompt_id: str | None, text: str
) -> bool:
    """The journal's hook for a reply that triggered the crisis path: True when it is
    handled here (only a crisis word: not kept; longer: held, the choice offered), False
    when the journal should save it as usual."""
    message = update.message
    if context.crisis is None or message is None:
        return False
    detector = context.services.content.detector
    decision = decide(context.crisis, text, detector.covers)
    await ensure_reply(update, context)  # the journal has no quiet line
    if decision is HeldDecision.DISCARD:
        log.info("journal reply not kept: only a crisis word")
        return True
    if decision is not HeldDecision.ASK:
        return False
    hold(person.profile, Held(message.message_id, text, prompt_id=prompt_id, journal=True))
    await context.services.people.save(person)
    context.note_saved(update.update_id)
    log.info("journal reply held for the person's choice")
    if person.profile.discreet:  # sealed now: the words leave the chat, as entries do
        await delete_quietly(context, person.chat_id, [message.message_id])
    row = keep_row(context, message.message_id, journal=True)
    await add_under_reply(context, person, [row], context.tx("crisis_held.choose"))
    return True


async def drop_from_reply(message: Message | None, prefix: str) -> None:
    """Once one of the rows `add_under_reply` added is used, the crisis reply (or the
    check) keeps every button but those whose callback data starts with `prefix`."""
    if message is None or message.reply_markup is None:
        return
    rows = [
        row
        for row in message.reply_markup.inline_keyboard
        if not any(str(b.callback_data).startswith(prefix + ":") for b in row)
    ]
    with contextlib.suppress(BadRequest):
        await message.edit_reply_markup(reply_markup=InlineKeyboardMarkup(rows) if rows else None)


class HeldWordsFeature:
    def install(self, hub: Hub) -> None:
        hub.profile_record(HeldTexts)
        hub.router.on_callback(HeldButton, self.on_button)
        hub.router.on_edit(self.on_edit)

    async def on_button(self, update: Update, context: Context, data: HeldButton) -> None:
        person = await current_person(update, context)
        if person is None:
            return
        tx = context.tx
        await drop_from_reply(pressed_message(update), HeldButton.PREFIX)
        held = take(person.profile, data.message_id)
        if held is None:
            await tell(context, person, tx("crisis_held.gone"))
            return
        key = "crisis_held.dropped"
        if data.keep:
            # Filed first, then let go of: a failure between leaves it held, never lost.
            key = await self._file(context, person, held)
        await context.services.people.save(person)
        log.info("held text %s", "kept" if data.keep else "not kept")
        await tell(context, person, tx(key))

    async def _file(self, context: Context, person: Person, held: Held) -> str:
        if held.journal:
            await context.offers.journal.add(person, held.prompt_id, held.message_id, held.text)
            return "crisis_held.kept_journal"
        worksheet = await context.offers.worksheets.keep_held(person, held)
        return "crisis_held.kept_answer" if worksheet is not None else "crisis_held.gone"

    async def on_edit(self, update: Update, context: Context, person: Person, text: str) -> bool:
        message = update.edited_message
        if message is None or not text.strip():
            return False
        if not replace_text(person.profile, message.message_id, text.strip()):
            return False
        await context.services.people.save(person)
        return True
