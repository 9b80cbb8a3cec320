"""/record: write down what happened, step by step; read it back; export it for an
advocate; delete it; and the look-back offer when someone doubts themselves.

The rules (steps, timestamps that never overwrite, what is offered when) are written down
in bot/services/record.py, which decides; this module sends what it decides.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging

from telegram import InlineKeyboardMarkup, Message, Update
from telegram.error import BadRequest

from bot.context import Context
from bot.core.callbacks import RecordButton
from bot.core.hub import Hub
from bot.core.languages import LANGUAGES
from bot.core.state import RECORD_PREFIX, RecordState, record_state
from bot.handlers.common import (
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
from bot.handlers.crisis_keep import add_under_reply
from bot.handlers.record_files import (
    DOWNLOAD_LIMIT_MB,
    on_media,
    send_files,
    send_record_export,
)
from bot.handlers.setup import SetupFeature
from bot.services.export import zone_of
from bot.services.people import Person
from bot.services.record import (
    AMEND,
    FILES,
    STEPS,
    WHEN,
    FullEntry,
    next_step,
    should_offer,
)
from bot.services.record_dates import MINUTE, happened_label, parse_when, written_label
from bot.views import Rows
from bot.views import record as views

log = logging.getLogger(__name__)


def _is_ours(data: str | None) -> bool:
    return bool(data) and str(data).startswith(f"{RecordButton.PREFIX}:")


class RecordFeature:
    def __init__(self, settings_menu: SetupFeature) -> None:
        self.settings_menu = settings_menu

    def install(self, hub: Hub) -> None:
        hub.command("record", self.command)
        hub.router.on_callback(RecordButton, self.on_button)
        hub.router.on_state(RECORD_PREFIX, self.on_text, capture=True)
        hub.router.on_edit(self.on_edit)
        hub.settings_rows.append(self.settings_rows)

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
        record = context.services.record
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
        page = await context.services.record.page(person, offset, views.PAGE_SIZE)
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

    # --- the steps ----------------------------------------------------------------------

    async def ask(
        self, context: Context, person: Person, entry_id: str, step: str | None, lead: str = ""
    ) -> None:
        """Show the question of `step` and make it what typed text answers; past the last
        step, the entry is finished."""
        record, tx = context.services.record, context.tx
        await self._leave_step(context, person)
        if step is None:
            await record.finish(person, entry_id)
            entry = await record.read(person, entry_id)
            when = ""
            if entry is not None:
                when = happened_label(entry, zone_of(person), context.formats)
            text = views.word(
                tx, person.profile.neutral_wording, "finished", when=when or tx("record.no_when")
            )
            rows: Rows = [[(tx("record.btn_read"), RecordButton("open", entry_id).encode())]]
            await tell(context, person, text, rows)
            return
        text, rows = views.question_view(
            tx, step, entry_id, neutral=person.profile.neutral_wording, limit_mb=DOWNLOAD_LIMIT_MB
        )
        if lead:
            text = f"{lead}\n\n{text}"
        sent = await tell(context, person, text, rows)
        await record.move(person, RecordState(entry_id, step, sent.message_id))

    async def _leave_step(self, context: Context, person: Person) -> None:
        """The step on screen is done: its question and "Saved" lose their buttons (discreet
        mode: they leave the chat)."""
        step = record_state(person.state)
        if step is None:
            return
        if person.profile.discreet:
            await delete_and_forget(context, person, step.message_ids())
            return
        for message_id in step.message_ids():
            with contextlib.suppress(BadRequest):
                await context.bot.edit_message_reply_markup(
                    person.chat_id, message_id, reply_markup=None
                )

    def _current(
        self, person: Person, entry_id: str, step: str | None = None
    ) -> RecordState | None:
        state = record_state(person.state)
        if state is None or state.entry_id != entry_id:
            return None
        if step is not None and state.step != step:
            return None
        return state

    async def _expired(self, context: Context, person: Person) -> None:
        await tell(context, person, context.tx("record.expired"))

    # --- typed answers ------------------------------------------------------------------

    async def on_text(self, update: Update, context: Context, person: Person, text: str) -> None:
        message = update.message
        state = record_state(person.state)
        if message is None or state is None:
            return
        record, tx = context.services.record, context.tx
        if not await record.exists(person, state.entry_id):
            await record.leave(person)
            await tell(context, person, tx("record.gone"))
            return
        if state.step == WHEN:
            typed = parse_when(
                text,
                (context.language, *LANGUAGES),
                record.today(person),
                country=person.profile.country,
            )
            if typed is None or typed.day > record.today(person):
                if context.crisis is not None:
                    # Their words matter more than the date: kept as what happened.
                    await record.add_text(person, state.entry_id, "what", message.message_id, text)
                    context.note_saved(update.update_id)
                    await self._offer_continue(context, person, state)
                    return
                key = "record.when_unclear" if typed is None else "record.when_future"
                await tell(context, person, tx(key))
                return
            local, precision = record.local_moment(person, typed.day, typed.time)
            if local > record.local_now(person):
                local, precision = record.local_now(person), MINUTE
            await self._set_when(context, person, state.entry_id, local, precision)
            return
        step = AMEND if state.step == AMEND else state.step
        count = await record.add_text(person, state.entry_id, step, message.message_id, text)
        context.note_saved(update.update_id)
        if person.profile.discreet:
            await delete_and_forget(context, person, [message.message_id])
        if context.crisis is not None:
            await self._offer_continue(context, person, state)
            return
        if step == AMEND:
            when = written_label(
                int(context.services.clock().timestamp()), zone_of(person), context.formats
            )
            await tell(context, person, tx("record.amend_saved", when=when),
                       views.amend_view(tx, state.entry_id)[1])  # fmt: skip
            return
        await self._acknowledge(context, person, state, count)

    async def _acknowledge(
        self, context: Context, person: Person, state: RecordState, count: int
    ) -> None:
        """ "Saved." under the answer with Next, or that same message edited with the count."""
        text, rows = views.saved_view(context.tx, state.step, state.entry_id, count)
        if state.saved_message:
            try:
                await context.bot.edit_message_text(
                    text, person.chat_id, state.saved_message, reply_markup=keyboard(rows)
                )
                return
            except BadRequest as exc:
                if "not modified" in str(exc).lower():
                    return
        sent = await tell(context, person, text, rows)
        await context.services.record.move(
            person, RecordState(state.entry_id, state.step, state.question_message, sent.message_id)
        )

    async def _offer_continue(self, context: Context, person: Person, state: RecordState) -> None:
        """Under the crisis reply: Continue (the next question waits for it), keeping the
        reply's own buttons."""
        ours = views.continue_row(context.tx, state.step if state.step in STEPS else WHEN,
                                  state.entry_id)  # fmt: skip
        await add_under_reply(context, person, [ours], context.tx("record.saved_crisis"))

    async def _set_when(
        self, context: Context, person: Person, entry_id: str, local: dt.datetime, precision: int
    ) -> None:
        record = context.services.record
        await record.set_when(person, entry_id, local, precision)
        entry = await record.read(person, entry_id)
        label = happened_label(entry, zone_of(person), context.formats) if entry else ""
        lead = context.tx("record.when_set", when=label) if label else ""
        await self.ask(context, person, entry_id, next_step(WHEN), lead=lead)

    async def on_edit(self, update: Update, context: Context, person: Person, text: str) -> bool:
        message = update.edited_message
        if message is None or not text.strip():
            return False
        return await context.services.record.edited(person, message.message_id, text.strip())

    async def on_media(self, update: Update, context: Context) -> None:
        await on_media(update, context)

    # --- the look-back offer ------------------------------------------------------------

    async def after_text(self, update: Update, context: Context) -> None:
        """After any plain text was handled (a journal reply, a worksheet answer, a message
        on its own): if it sounds like self-doubt or the pull back, offer one of their own
        entries. Never beside a crisis reply, never while writing an entry, once a day."""
        message = update.message
        if message is None or message.text is None or context.crisis is not None:
            return
        signals = context.services.content.phrases.detect(message.text)
        if not signals:
            return
        person = await current_person(update, context)
        if person is None or not person.profile.onboarded:
            return
        record = context.services.record
        writing = record_state(person.state) is not None
        if not should_offer(
            signals,
            enabled=person.profile.record_offers,
            offered_on=person.profile.record_offered_on,
            today=record.today(person).isoformat(),
            crisis=False,
            writing=writing,
            has_entries=await record.has_finished(person),
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
        if not await context.services.record.count(person):
            return []
        return [
            views.settings_row(
                context.tx,
                neutral=person.profile.neutral_wording,
                enabled=person.profile.record_offers,
            )
        ]

    # --- buttons ------------------------------------------------------------------------

    async def on_button(self, update: Update, context: Context, data: RecordButton) -> None:
        person = await current_person(update, context)
        if person is None:
            return
        pressed = pressed_message(update)
        record, tx = context.services.record, context.tx
        action, entry_id, n = data.action, data.entry_id, data.number
        if action == "hide":
            if pressed is not None:
                await delete_and_forget(context, person, [pressed.message_id])
        elif action == "menu":
            await self.show_menu(context, person)
        elif action == "new":
            await release(context, person, pressed)
            await self.ask(context, person, await record.begin(person), WHEN)
        elif action == "resume":
            await release(context, person, pressed)
            await self._resume(context, person, entry_id)
        elif action == "pause":
            await self._leave_step(context, person)
            await record.leave(person)
            await tell(context, person, tx("record.paused"))
        elif action in ("now", "today", "days", "day", "hour"):
            await self._when_button(context, person, action, entry_id, n, pressed)
        elif action in ("skip", "next", "cont"):
            if action == "cont" and pressed is not None:
                await _drop_our_buttons(pressed)
            state = self._current(person, entry_id)
            if state is None or not 0 <= n < len(STEPS) or state.step != STEPS[n]:
                await self._expired(context, person)
                return
            await self.ask(context, person, entry_id, next_step(STEPS[n]))
        elif action == "done":
            if self._current(person, entry_id, FILES) is None:
                await self._expired(context, person)
                return
            await self.ask(context, person, entry_id, None)
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
                await self.settings_menu.show_settings(update, context, person)
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
        record, tx = context.services.record, context.tx
        action, entry_id, n = data.action, data.entry_id, data.number
        if action == "amend":
            if not await record.exists(person, entry_id):
                return
            await self._leave_step(context, person)
            await record.move(person, RecordState(entry_id, AMEND))
            await tell(context, person, *views.amend_view(tx, entry_id))
        elif action == "amdone":
            if self._current(person, entry_id, AMEND) is not None:
                await record.leave(person)
            await release(context, person, pressed)
            entry = await record.read(person, entry_id)
            if entry is not None:
                await self.show_entry(context, person, entry)
        elif action == "files":
            await send_files(context, person, entry_id)
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
            await send_record_export(context, person, pdf=action == "pdf")
        elif action == "rmx" and pressed is not None:
            await delete_and_forget(context, person, [pressed.message_id])

    async def _resume(self, context: Context, person: Person, entry_id: str) -> None:
        record = context.services.record
        entry = await record.read(person, entry_id)
        if entry is None or entry.finished_at is not None:
            await self._expired(context, person)
            return
        step = record.resume_step(person, entry)
        await self.ask(context, person, entry_id, step, lead=context.tx("record.resumed"))

    async def _when_button(
        self,
        context: Context,
        person: Person,
        action: str,
        entry_id: str,
        n: int,
        pressed: Message | None,
    ) -> None:
        record, tx = context.services.record, context.tx
        if self._current(person, entry_id, WHEN) is None:
            await self._expired(context, person)
            return
        language = context.formats
        today = record.today(person)
        if action == "now":
            await self._set_when(context, person, entry_id, record.local_now(person), MINUTE)
            return
        if action == "day" and n >= 1000:  # a day, time unknown
            day = today - dt.timedelta(days=n - 1000)
            local, precision = record.local_moment(person, day, None)
            await self._set_when(context, person, entry_id, local, precision)
            return
        if action == "hour":
            back, hour = divmod(n, 100)
            if hour > 23:
                return
            day = today - dt.timedelta(days=back)
            local, precision = record.local_moment(person, day, dt.time(hour, 0))
            if local > record.local_now(person):
                return
            await self._set_when(context, person, entry_id, local, precision)
            return
        if action == "days":
            text, rows = views.day_picker(tx, entry_id, today, min(n, 520), language)
        else:
            back = 0 if action == "today" else min(n, 3650)
            day = today - dt.timedelta(days=back)
            last = record.local_now(person).hour if back == 0 else 23
            text, rows = views.hour_picker(tx, entry_id, day, back, last, language)
        if pressed is not None:
            try:
                await pressed.edit_text(text, reply_markup=keyboard(rows))
                return
            except BadRequest:
                pass
        await tell(context, person, text, rows)


async def _drop_our_buttons(message: Message) -> None:
    """After Continue, the crisis reply keeps only its own buttons."""
    if message.reply_markup is None:
        return
    rows = [
        row
        for row in message.reply_markup.inline_keyboard
        if not any(_is_ours(b.callback_data if isinstance(b.callback_data, str) else None)
                   for b in row)
    ]  # fmt: skip
    with contextlib.suppress(BadRequest):
        await message.edit_reply_markup(reply_markup=InlineKeyboardMarkup(rows) if rows else None)
