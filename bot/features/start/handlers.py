"""/start, /guide, the private-chat guard, free-text routing, the fallback, and errors."""

from __future__ import annotations

import contextlib
import logging
import re

from telegram import Message, Update
from telegram.error import BadRequest, Forbidden
from telegram.ext import ApplicationHandlerStop

from bot.content.texts import guide_text
from bot.core.callbacks import KeepButton
from bot.core.errors import is_disk_full
from bot.core.state import ONBOARDING, SetupState, WorksheetState, decode_state
from bot.core.telegram_text import DEEP_LINK_LIMIT
from bot.features.conversation.views import menu_buttons
from bot.features.crisis.capture import Held, hold
from bot.features.discretion.service import OFFER_LIFETIME, CoverHolds
from bot.features.forget import handlers as privacy
from bot.framework.chat import current_person, is_private, remember, say
from bot.framework.context import Context
from bot.framework.hub import Hub
from bot.framework.offers import Onboarding
from bot.framework.router import Router
from bot.people.service import Person, UnreadableDataError

log = logging.getLogger(__name__)

# Deep-link payloads are at most 64 characters of A-Z, a-z, 0-9, _ and -.
# Source: https://core.telegram.org/bots/features#deep-linking
_PAYLOAD = re.compile(rf"[A-Za-z0-9_-]{{1,{DEEP_LINK_LIMIT}}}")


class BasicsFeature:
    """/start, /settings, /guide, and the entry points app.py wires into the numbered groups
    (the private-chat guard, buttons and free text by route, edits, the fallback)."""

    def __init__(self, setup: Onboarding) -> None:
        self.setup = setup
        self.hub = Hub()  # replaced by the app's hub in install()

    @property
    def router(self) -> Router:
        return self.hub.router

    def install(self, hub: Hub) -> None:
        self.hub = hub
        hub.command("start", self.start)
        hub.command("settings", self.settings)
        hub.command("guide", self.guide)

    async def start(self, update: Update, context: Context) -> None:
        user, chat = update.effective_user, update.effective_chat
        if user is None or chat is None:
            return
        services = context.services
        payload = context.args[0] if context.args else ""
        if not _PAYLOAD.fullmatch(payload):
            payload = ""  # junk is ignored, never echoed
        person = await current_person(update, context)
        if person is None:
            person = await services.people.create(
                user.id, chat.id, SetupState("country", ONBOARDING).encode()
            )
            await remember(services, person, update.effective_message)
            await self._keep_for_later(context, person, payload)
            await say(context, chat.id, context.tx("start.welcome"), person=person)
            await self.setup.begin(update, context, person)
            return
        await remember(services, person, update.effective_message)
        if not person.active or person.chat_id != chat.id:
            await services.people.update_chat(person, chat.id)
            await self.hub.schedule_changed(context, person)
        if not person.profile.onboarded:
            await self._keep_for_later(context, person, payload)
            await say(context, chat.id, context.tx("start.resume_setup"), person=person)
            await self.setup.resume(update, context, person)
            return
        route = self.router.start_payload(payload) if payload else None
        if route is not None:
            await route(update, context, person, payload)
            return
        await say(context, chat.id, context.tx("start.welcome_back"), person=person)

    async def _keep_for_later(self, context: Context, person: Person, payload: str) -> None:
        """A deep link opened before onboarding ended: it opens once onboarding is done."""
        if payload and self.router.start_payload(payload) is not None:
            person.profile.pending_worksheet = payload
            await context.services.people.save(person)

    async def guide(self, update: Update, context: Context) -> None:
        chat = update.effective_chat
        if chat is not None:
            person = await current_person(update, context)
            await remember(context.services, person, update.effective_message)
            await say(context, chat.id, guide_text(context.tx), person=person)

    async def settings(self, update: Update, context: Context) -> None:
        person = await current_person(update, context)
        if person is None:
            await self._not_started(update, context)
            return
        await remember(context.services, person, update.effective_message)
        if not person.profile.onboarded:
            await self.start(update, context)  # finish setting up first; it resumes there
            return
        await self.setup.show_settings(update, context, person)

    async def _not_started(self, update: Update, context: Context) -> None:
        chat = update.effective_chat
        if chat is not None:
            await say(context, chat.id, context.tx("start.not_started"))

    async def private_only(self, update: Update, context: Context) -> None:
        """Group chats: one line in answer to a command, nothing stored, nothing else run."""
        if is_private(update):
            return
        message = update.effective_message
        chat = update.effective_chat
        if update.callback_query is not None:
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
                await self._not_started(update, context)
            return
        await remember(context.services, person, message)
        if not person.active:
            # They came back by writing rather than /start: sends may resume.
            await context.services.people.update_chat(person, chat.id)
            await self.hub.schedule_changed(context, person)
        text = message.text.strip()
        replying = message.reply_to_message is not None and bool(text)
        if not replying and text and isinstance(decode_state(person.state), WorksheetState):
            # A check-in sent after the worksheet's question is the latest thing asked: the
            # first free text answers it (the journal), and the question still waits.
            replying = await context.services.journal.answers(person, None) is not None
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
        waiting = person.profile.active_worksheet in context.services.content.worksheets
        key = "fallback.worksheet_waiting" if waiting else "fallback.text"
        commands: list[str] = context.services.content.texts.data.get("menu_commands", [])
        known = {name for name, _ in self.hub.commands}
        keep = [
            (tx("crisis_capture.btn_keep_journal"), KeepButton(True, message.message_id).encode()),
            (tx("crisis_capture.btn_drop"), KeepButton(False, message.message_id).encode()),
        ]
        rows = [
            keep,
            *menu_buttons(tx, [c for c in commands if c in known], worksheet_waiting=waiting),
        ]
        offer = await say(context, person.chat_id, tx(key), person=person, buttons=rows)
        if person.profile.discreet:
            for message_id in (message.message_id, offer.message_id):
                await context.services.discretion.remove_later(
                    person.person_id, message_id, OFFER_LIFETIME
                )

    async def on_callback(self, update: Update, context: Context) -> None:
        query = update.callback_query
        if query is None:
            return
        found = self.router.callback_route(query.data or "")
        if found is None:
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


async def on_error(update: object, context: Context) -> None:
    """Log the kind of failure (never the update: it holds the person's words), then help."""
    error = context.error
    chat = update.effective_chat if isinstance(update, Update) else None
    in_cover = chat is not None and context.services.cover.chat_in_cover(chat.id)
    if isinstance(error, CoverHolds) or in_cover:
        # The chat is in cover: an apology would be a tell-tale under the decoy.
        if isinstance(error, CoverHolds):
            log.info("a reply was held back by the cover")
        else:
            log.error("handler failed in cover: %s", type(error).__name__)
        raise ApplicationHandlerStop
    update_id = update.update_id if isinstance(update, Update) else None
    full = error is not None and is_disk_full(error)
    if full:  # the operator's one line; what the person sent is not kept
        log.error("no space left to store (update %s): free some disk", update_id)
    else:
        log.error("handler failed: %s (update %s)", type(error).__name__, update_id)
    if not isinstance(update, Update) or update.effective_user is None:
        return
    if isinstance(error, UnreadableDataError) and update.effective_chat and is_private(update):
        await privacy.offer_erasure(context, update.effective_chat.id)
        raise ApplicationHandlerStop
    if isinstance(error, Forbidden):
        try:
            people = context.services.people
            await people.set_active(people.person_id(update.effective_user.id), False)
        except Exception as exc:
            log.warning("could not mark blocked person inactive: %s", type(exc).__name__)
        raise ApplicationHandlerStop
    chat = update.effective_chat
    if chat is None or not is_private(update):
        raise ApplicationHandlerStop
    if context.was_saved(update.update_id):
        key = "errors.saved_anyway"
    else:
        key = "errors.disk_full" if full else "errors.generic"
    try:
        await context.bot.send_message(chat.id, context.tx(key))
    except Exception as exc:
        log.warning("could not send the error reply: %s", type(exc).__name__)
    # One apology is the whole answer: the fallback group must not add "unknown command".
    raise ApplicationHandlerStop
