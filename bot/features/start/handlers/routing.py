"""The update router: the entry points in the numbered groups that take each update to
the feature that asked for it. Group chats get one line (-5); a button goes by its
callback data's prefix (10); free text by the person's stored state, else to the idle
routes, else the offer to keep it (20); an edit to the feature whose stored text it was."""

from __future__ import annotations

import contextlib

from telegram import Message, Update
from telegram.error import BadRequest
from telegram.ext import (
    ApplicationHandlerStop,
    CallbackQueryHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot.content.texts import Tx
from bot.core.buttons import Rows
from bot.features.conversation.views import menu_buttons
from bot.features.crisis.callbacks import HeldButton
from bot.features.crisis.held import Held, hold
from bot.features.discretion.service import OFFER_LIFETIME
from bot.features.worksheets.prefs import WorksheetPrefs
from bot.features.worksheets.state import worksheet_state
from bot.framework.chat import current_person, is_private, remember, say, say_id
from bot.framework.context import Context
from bot.framework.hub import GROUP_BUTTONS, GROUP_PRIVATE_ONLY, GROUP_TEXT, Commands, Hooks, Hub
from bot.framework.router import Router
from bot.people.service import Person

_MENUS_KEPT = 64


async def not_started(update: Update, context: Context) -> None:
    chat = update.effective_chat
    if chat is not None:
        await say(context, chat.id, context.tx("start.not_started"))


class UpdateRouter:
    # Given at install: the routes every feature registers, the commands, the hooks.
    router: Router
    commands: Commands
    hooks: Hooks
    # The keep offer's menu rows by translator and "a worksheet waits" (`_menu`).
    _menus: dict[tuple[Tx, bool], Rows] | None = None

    def install(self, hub: Hub) -> None:
        self.router, self.commands, self.hooks = hub.router, hub.commands, hub.hooks
        # Group chats get one line and nothing else.
        hub.handle(GROUP_PRIVATE_ONLY, TypeHandler(Update, self.private_only))
        hub.handle(GROUP_BUTTONS, CallbackQueryHandler(self.on_callback))
        hub.handle(
            GROUP_TEXT,
            MessageHandler(
                filters.UpdateType.MESSAGE & filters.TEXT & ~filters.COMMAND, self.on_text
            ),
        )
        hub.handle(GROUP_TEXT, MessageHandler(filters.UpdateType.EDITED_MESSAGE, self.on_edit))

    async def private_only(self, update: Update, context: Context) -> None:
        """Group chats: one line in answer to a command, nothing stored, nothing else run."""
        if is_private(update):
            return
        message = update.effective_message
        chat = update.effective_chat
        if update.callback_query is not None:
            with contextlib.suppress(BadRequest):  # "query is too old" after a backlog
                await update.callback_query.answer()
        elif message is not None and chat is not None and (message.text or "").startswith("/"):
            await say(context, chat.id, context.tx("groups.private_only"))
        raise ApplicationHandlerStop

    async def on_text(self, update: Update, context: Context) -> None:
        message = update.message
        chat = update.effective_chat
        if message is None or chat is None or message.text is None:
            return
        person = await current_person(update, context)
        if person is None:
            if context.crisis is None:
                await not_started(update, context)
            return
        await remember(context.services, person, message)
        if not person.active:
            # They came back by writing rather than /start: sends may resume.
            await context.services.people.update_chat(person, chat.id)
            await self.hooks.schedule_changed(context, person)
        text = message.text.strip()
        replying = message.reply_to_message is not None and bool(text)
        if not replying and text and worksheet_state(person.state) is not None:
            # A check-in sent after the worksheet's question is the latest thing asked: the
            # first free text answers it (the journal), and the question still waits.
            replying = await context.offers.journal.answers(person, None) is not None
        if replying:
            # An explicit reply (to a check-in) goes where it points, even mid-worksheet.
            for idle in self.router.idle:
                if await idle(update, context, person, text):
                    return
        crisis = context.crisis is not None
        route = self.router.state_route(person.state, crisis=crisis) if person.state else None
        if route is None and crisis and person.state:
            return  # a typed setting is not asked again right after the crisis reply
        if route is not None:
            if not text:
                await say(context, chat.id, context.tx("fallback.empty"), person=person)
                return
            await route(update, context, person, text)
            return
        if not replying:  # a reply has been offered to these already
            for idle in self.router.idle:
                if await idle(update, context, person, text):
                    return
        if context.crisis is None:
            await self._offer_to_keep(context, person, message, text)

    async def _offer_to_keep(
        self, context: Context, person: Person, message: Message, text: str
    ) -> None:
        """Words that answer nothing are never dropped: held (sealed with the profile) for
        [Keep in my journal] / [Don't keep], whether or not check-ins are on. In discreet
        mode the offer and the words leave the chat together after a while, as discreet
        messages do; the held text stays until the person chooses."""
        tx = context.tx
        hold(person.profile, Held(message.message_id, text, prompt_id=None, journal=True))
        await context.services.people.save(person)
        waiting = (
            person.profile.part(WorksheetPrefs).active_worksheet
            in context.services.content.worksheets
        )
        key = "fallback.worksheet_waiting" if waiting else "fallback.text"
        keep = [
            (tx("crisis_held.btn_keep_journal"), HeldButton(True, message.message_id).encode()),
            (tx("crisis_held.btn_drop"), HeldButton(False, message.message_id).encode()),
        ]
        rows = [keep, *self._menu(context, tx, waiting)]
        offer_id = await say_id(context, person.chat_id, tx(key), person=person, buttons=rows)
        if person.profile.discreet:
            for message_id in (message.message_id, offer_id):
                await context.offers.discretion.remove_later(
                    person.person_id, message_id, OFFER_LIFETIME
                )

    def _menu(self, context: Context, tx: Tx, waiting: bool) -> Rows:
        """The menu under the keep offer: the same for every update in one language (and
        the same content), so built once for each (issue 25: per-update allocations)."""
        menus = self._menus
        if menus is None:
            menus = self._menus = {}
        rows = menus.get((tx, waiting))
        if rows is None:
            if len(menus) >= _MENUS_KEPT:  # a translator per language and variant: few
                menus.clear()
            commands: list[str] = context.services.content.texts.data.get("menu_commands", [])
            known = set(self.commands.names())
            rows = menus[(tx, waiting)] = menu_buttons(
                tx, [c for c in commands if c in known], worksheet_waiting=waiting
            )
        return rows

    async def on_callback(self, update: Update, context: Context) -> None:
        query = update.callback_query
        if query is None:
            return
        found = self.router.callback_route(query.data or "")
        if found is None:
            with contextlib.suppress(BadRequest):  # "query is too old" after a backlog
                await query.answer(context.tx("fallback.stale_button"))
            return
        route, arg = found
        with contextlib.suppress(BadRequest):  # "query is too old" after a backlog:
            await query.answer()  # still do what was asked
        await route(update, context, arg)

    async def on_edit(self, update: Update, context: Context) -> None:
        """An edit updates a stored answer; other edits are ignored on purpose."""
        message = update.edited_message
        if message is None or message.text is None or not is_private(update):
            return
        person = await current_person(update, context)
        if person is None:
            return
        for route in self.router.edits:
            if await route(update, context, person, message.text):
                return
