"""/record: write down what happened, step by step; read it back; export it for an
advocate; delete it; and the look-back offer when someone doubts themselves.

The rules (steps, timestamps that never overwrite, what is offered when) are written down
in bot/features/record/service.py and bot/features/record/flow.py, which decide; this module sends
what they decide. Writing an entry step by step is bot/features/record/handlers/steps.py; files and
the export are bot/features/record/handlers/files.py.
"""

from __future__ import annotations

import logging

from telegram import Message, Update
from telegram.error import BadRequest
from telegram.ext import MessageHandler, filters

from bot.core.buttons import Rows
from bot.features.export.render import zone_of
from bot.features.record import views
from bot.features.record.build import build
from bot.features.record.callbacks import RecordButton
from bot.features.record.flow import RecordFlow
from bot.features.record.handlers.files import on_media, send_files, send_record_export
from bot.features.record.handlers.steps import STEP_BUTTONS, EntrySteps
from bot.features.record.prefs import RecordPrefs
from bot.features.record.service import AMEND, FullEntry, RecordService, should_offer
from bot.features.record.state import RecordState, record_state
from bot.features.urge.prefs import UrgePrefs
from bot.framework.chat import (
    current_person,
    delete_and_forget,
    keyboard,
    pressed_message,
    private_command_person,
    release,
    replace_or_say,
    strip_buttons,
    tell,
)
from bot.framework.context import Context
from bot.framework.hub import GROUP_AFTER_TEXT, GROUP_TEXT, Hub
from bot.people.service import Person

log = logging.getLogger(__name__)

FILES = filters.PHOTO | filters.Document.ALL | filters.VOICE | filters.AUDIO | filters.VIDEO


class RecordFeature:
    # Built at install: the record's service and the rules of writing an entry.
    record: RecordService
    flow: RecordFlow

    def __init__(self) -> None:
        self.steps = EntrySteps()

    def install(self, hub: Hub) -> None:
        hub.profile_record(RecordPrefs)
        built = build(hub.services)
        self.record, self.flow = built.record, built.flow
        self.steps.use(built.record, built.flow)
        hub.command("record", self.command)
        hub.router.on_callback(RecordButton, self.on_button)
        hub.router.on_state(RecordState, self.steps.on_text, own_words=True)
        hub.router.on_edit(self.on_edit)
        hub.hooks.settings_rows.append(self.settings_rows)
        # Files sent while an entry is being written; others fall through to the fallback.
        hub.handle(GROUP_TEXT, MessageHandler(filters.UpdateType.MESSAGE & FILES, self.on_media))
        # After a text was handled: the look-back offer (never beside a crisis reply).
        hub.handle(
            GROUP_AFTER_TEXT,
            MessageHandler(
                filters.UpdateType.MESSAGE & filters.TEXT & ~filters.COMMAND, self.after_text
            ),
        )
        hub.offers.record_export = self

    async def send_record_export(self, context: Context, person: Person, *, pdf: bool) -> bool:
        return await send_record_export(self.record, context, person, pdf=pdf)

    # --- /record ------------------------------------------------------------------------

    async def command(self, update: Update, context: Context) -> None:
        person = await private_command_person(update, context)
        if person is None:
            return
        if context.args and context.args[0].lower() == "list":
            await self.show_list(context, person, 0)
            return
        await self.show_menu(context, person)

    async def show_menu(self, context: Context, person: Person) -> None:
        record = self.record
        unfinished = await record.unfinished(person)
        text, rows = views.menu_view(
            context.tx,
            neutral=person.profile.neutral_wording,
            count=await record.count(person),
            unfinished=unfinished.entry_id if unfinished else None,
        )
        await tell(context, person, text, rows)

    async def show_list(
        self, context: Context, person: Person, offset: int, pressed: Message | None = None
    ) -> None:
        page = await self.record.page(person, offset, views.PAGE_SIZE)
        text, rows = views.list_view(context.tx, page, zone_of(person), context.formats)
        if pressed is not None:
            try:
                await pressed.edit_text(text, reply_markup=keyboard(rows))
                return
            except BadRequest:
                pass  # too old to edit: send it anew
        await tell(context, person, text, rows, protect=True)

    async def show_entry(self, context: Context, person: Person, entry: FullEntry) -> None:
        rich, rows = views.entry_view(context.tx, entry, zone_of(person), context.formats)
        await tell(context, person, rich, rows, protect=True)

    async def on_edit(self, update: Update, context: Context, person: Person, text: str) -> bool:
        message = update.edited_message
        if message is None or not text.strip():
            return False
        return await self.record.edited(person, message.message_id, text.strip())

    async def on_media(self, update: Update, context: Context) -> None:
        await on_media(self.record, update, context)

    # --- the look-back offer ------------------------------------------------------------

    async def after_text(self, update: Update, context: Context) -> None:
        """After any plain text was handled (a journal reply, a worksheet answer, a message
        on its own): if it sounds like self-doubt or the pull back, offer one of their own
        entries. Never beside a crisis reply, never while writing an entry, once a day."""
        message = update.message
        if message is None or message.text is None or context.crisis is not None:
            return
        signals = context.phrase_signals(message.text)
        if not signals:
            return
        person = await current_person(update, context)
        if person is None or not person.profile.onboarded:
            return
        record = self.record
        writing = record_state(person.state) is not None
        if not should_offer(
            signals,
            enabled=person.profile.part(RecordPrefs).record_offers,
            offered_on=person.profile.part(RecordPrefs).record_offered_on,
            today=record.today(person).isoformat(),
            crisis=False,
            writing=writing,
            has_entries=await record.has_finished(person),
            urge_offers=person.profile.part(UrgePrefs).urge_offers,
        ):
            return
        entry = await record.pick_for_offer(person)
        if entry is None:
            return
        text, rows = views.offer_view(
            context.tx,
            entry,
            neutral=person.profile.neutral_wording,
            zone=zone_of(person),
            language=context.formats,
        )
        await record.note_offered(person)
        await tell(context, person, text, rows)
        log.info("record look-back offered")

    async def settings_rows(self, context: Context, person: Person) -> Rows:
        if not await self.record.count(person):
            return []
        return [
            views.settings_row(
                context.tx,
                neutral=person.profile.neutral_wording,
                enabled=person.profile.part(RecordPrefs).record_offers,
            )
        ]

    # --- buttons ------------------------------------------------------------------------

    async def on_button(self, update: Update, context: Context, data: RecordButton) -> None:
        person = await current_person(update, context)
        if person is None:
            return
        pressed = pressed_message(update)
        record, tx = self.record, context.tx
        action, entry_id, n = data.action, data.entry_id, data.number
        if action == "hide":
            if pressed is not None:
                await delete_and_forget(context, person, [pressed.message_id])
        elif action == "menu":
            await self.show_menu(context, person)
        elif action in STEP_BUTTONS:
            await self.steps.on_step_button(context, person, data, pressed)
        elif action in ("open", "look"):
            entry = await record.read(person, entry_id)
            if entry is None:
                await replace_or_say(context, update, tx("record.gone"), person=person)
                return
            if action == "look":
                await strip_buttons(pressed)
            await self.show_entry(context, person, entry)
        elif action == "list":
            await self.show_list(context, person, n, pressed if n else None)
        elif action == "later":
            await release(context, person, pressed)
        elif action in ("nolook", "offon", "offoff"):
            await record.set_offers(person, action == "offon")
            if action == "nolook":
                await replace_or_say(context, update, tx("record.offers_off"), person=person)
            else:
                await context.offers.onboarding.show_settings(update, context, person)
        else:
            await self._manage(update, context, person, data, pressed)

    async def _manage(
        self,
        update: Update,
        context: Context,
        person: Person,
        data: RecordButton,
        pressed: Message | None,
    ) -> None:
        """Amendments, files, deleting, exporting."""
        record, tx = self.record, context.tx
        action, entry_id, n = data.action, data.entry_id, data.number
        if action == "amend":
            if not await record.exists(person, entry_id):
                return
            await self.steps.leave_step(context, person)
            await record.move(person, RecordState(entry_id, AMEND))
            await tell(context, person, *views.amend_view(tx, entry_id))
        elif action == "amdone":
            entry = await self.flow.amend_done(person, entry_id)
            await release(context, person, pressed)
            if entry is not None:
                await self.show_entry(context, person, entry)
        elif action == "files":
            await send_files(self.record, context, person, entry_id)
        elif action in ("rmf", "keepf"):
            if action == "rmf" and n in await record.message_ids(person, entry_id):
                await delete_and_forget(context, person, [n])
            key = "record.file_removed" if action == "rmf" else "record.file_kept"
            await replace_or_say(context, update, tx(key), person=person)
        elif action == "del":
            if await record.exists(person, entry_id):
                await tell(context, person, *views.delete_view(tx, entry_id))
        elif action == "delok":
            ids = await record.delete(person, entry_id)
            await delete_and_forget(context, person, ids)
            await replace_or_say(context, update, tx("record.deleted"), person=person)
        elif action == "delall":
            count = await record.count(person)
            if count:
                await tell(context, person, *views.delete_all_view(tx, count))
        elif action == "delallok":
            ids = await record.delete_all(person)
            await delete_and_forget(context, person, ids)
            await replace_or_say(context, update, tx("record.deleted_all"), person=person)
        elif action == "delno":
            await replace_or_say(context, update, tx("record.kept"), person=person)
        elif action in ("exp", "pdf"):
            await send_record_export(self.record, context, person, pdf=action == "pdf")
        elif action == "rmx" and pressed is not None:
            await delete_and_forget(context, person, [pressed.message_id])
