"""/start, /settings, /guide and the error handler; the update router beside them
(`routing.py`) takes buttons, free text and edits to the feature that asked."""

from __future__ import annotations

import logging
import re

from telegram import Update
from telegram.error import Forbidden
from telegram.ext import (
    ApplicationHandlerStop,
)

from bot.content.texts import guide_text
from bot.core.errors import is_disk_full
from bot.core.telegram_text import DEEP_LINK_LIMIT
from bot.features.discretion.service import CoverHolds
from bot.features.setup.state import ONBOARDING, SetupState
from bot.features.start.handlers.routing import UpdateRouter, not_started
from bot.features.worksheets.prefs import WorksheetPrefs
from bot.framework.chat import current_person, is_private, remember, say
from bot.framework.context import Context
from bot.framework.hub import Hooks, Hub
from bot.framework.router import Router
from bot.people.service import Person, UnreadableDataError

log = logging.getLogger(__name__)

# Deep-link payloads are at most 64 characters of A-Z, a-z, 0-9, _ and -.
# Source: https://core.telegram.org/bots/features#deep-linking
_PAYLOAD = re.compile(rf"[A-Za-z0-9_-]{{1,{DEEP_LINK_LIMIT}}}")


class StartFeature:
    """/start, /settings, /guide, the error handler, and the `UpdateRouter`: the entry
    points in the numbered groups that take each button, text and edit where it belongs."""

    hooks: Hooks  # given at install

    def __init__(self) -> None:
        self.routing = UpdateRouter()

    @property
    def router(self) -> Router:
        return self.routing.router

    def install(self, hub: Hub) -> None:
        self.hooks = hub.hooks
        hub.command("start", self.start)
        hub.command("settings", self.settings)
        hub.command("guide", self.guide)
        self.routing.install(hub)
        hub.on_error(on_error)

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
            await context.offers.onboarding.begin(update, context, person)
            return
        await remember(services, person, update.effective_message)
        if not person.active or person.chat_id != chat.id:
            await services.people.update_chat(person, chat.id)
            await self.hooks.schedule_changed(context, person)
        if not person.profile.onboarded:
            await self._keep_for_later(context, person, payload)
            await say(context, chat.id, context.tx("start.resume_setup"), person=person)
            await context.offers.onboarding.resume(update, context, person)
            return
        route = self.router.start_payload(payload) if payload else None
        if route is not None:
            await route(update, context, person, payload)
            return
        await say(context, chat.id, context.tx("start.welcome_back"), person=person)

    async def _keep_for_later(self, context: Context, person: Person, payload: str) -> None:
        """A deep link opened before onboarding ended: it opens once onboarding is done."""
        if payload and self.router.start_payload(payload) is not None:
            person.profile.part(WorksheetPrefs).pending_worksheet = payload
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
            await not_started(update, context)
            return
        await remember(context.services, person, update.effective_message)
        if not person.profile.onboarded:
            await self.start(update, context)  # finish setting up first; it resumes there
            return
        await context.offers.onboarding.show_settings(update, context, person)


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
        await context.offers.forgetting.offer_erasure(context, update.effective_chat.id)
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
