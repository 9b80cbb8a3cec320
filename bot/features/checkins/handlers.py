"""Daily check-ins and the journal: the prompt message, its buttons, replies, /journal.

The pass that sends them is bot/features/checkins/delivery.py, its decisions policy.py, the
message itself sender.py (see docs/scheduling.md); the choice of which text is a reply is in
journal.py, what it looks like in views.py. This feature wires them in: one repeating job,
the schedule hook, the buttons (also offered in /settings), the idle-text route that
turns a reply into a journal entry, edits, and /journal.
"""

from __future__ import annotations

import contextlib
import logging

from telegram import InlineKeyboardMarkup, Message, Update
from telegram.error import BadRequest

from bot.core import local_format
from bot.core.buttons import Rows
from bot.features.checkins.build import build
from bot.features.checkins.callbacks import DailyButton, JournalButton, UndoButton
from bot.features.checkins.delivery import Dispatcher
from bot.features.checkins.policy import PROMPT_OUT, TICK, Snooze, schedule_of
from bot.features.checkins.prefs import CheckinPrefs
from bot.features.checkins.schedule import is_valid_timezone
from bot.features.checkins.views import journal_page, prompt_buttons, prompt_text
from bot.features.progress.prefs import NoContactPrefs
from bot.framework.chat import (
    Button,
    command_person,
    current_person,
    delete_quietly,
    keyboard,
    pressed_message,
    replace_or_say,
    say,
    strip_buttons,
)
from bot.framework.context import Context
from bot.framework.damaged import offer_damaged
from bot.framework.hub import Hooks, Hub
from bot.people.service import Person

log = logging.getLogger(__name__)

PAGE_SIZE = 5
JOB_NAME = "daily-prompts"


# --- the feature ----------------------------------------------------------------------


class DailyFeature:
    # Given at install: the hooks it fires; its pass that sends the check-ins.
    hooks: Hooks
    dispatcher: Dispatcher

    def install(self, hub: Hub) -> None:
        hub.profile_record(CheckinPrefs)
        self.hooks = hub.hooks
        urges = hub.offers.urges  # the no-contact count a check-in shows
        built = build(hub.services, urges.checkin_day_by_id)
        self.dispatcher = built.dispatcher
        hub.offers.journal = built.journal
        hub.on_stop(built.dispatcher.close)
        hub.command("journal", self.show_journal)
        hub.command("checkin", self.checkin_command)
        hub.command("pause", self.pause_command)
        hub.command("skip", self.skip_command)
        hub.router.on_callback(DailyButton, self.on_button)
        hub.router.on_callback(JournalButton, self.on_journal_button)
        hub.router.on_callback(UndoButton, self.on_undo)
        hub.router.on_idle_text(self.on_idle_text)
        hub.router.on_edit(self.on_edit)
        hub.on_schedule_changed(self.on_schedule_changed)
        hub.hooks.settings_rows.append(self.settings_rows)
        hub.every(JOB_NAME, TICK.total_seconds(), self.tick)

    async def tick(self, context: Context) -> None:
        app = context.application
        self.dispatcher.kick(lambda coro: app.create_task(coro, name=JOB_NAME))

    async def on_schedule_changed(self, context: Context, person: Person) -> None:
        await self.dispatcher.reschedule(person)

    # --- commands (the same choices as the buttons and /settings) -----------------------

    async def pause_command(self, update: Update, context: Context) -> None:
        if await command_person(update, context, missing="start.not_started") is not None:
            await self.on_button(update, context, DailyButton("pause"))

    async def skip_command(self, update: Update, context: Context) -> None:
        person = await command_person(update, context, missing="start.not_started")
        if person is not None:
            today = self.dispatcher.today(person)
            await self.on_button(update, context, DailyButton("skip", today))

    async def checkin_command(self, update: Update, context: Context) -> None:
        person = await command_person(update, context, missing="start.not_started")
        if person is not None:
            await context.offers.onboarding.show_settings(update, context, person)

    # --- buttons ------------------------------------------------------------------------

    async def on_button(self, update: Update, context: Context, data: DailyButton) -> None:
        person = await current_person(update, context)
        if person is None:
            return
        action, day, from_settings = data.action, data.day, data.from_settings
        tx = context.tx
        if action == "show":
            await self._show_prompt(update, context, person, day)
            return
        if action == "snooze":
            result = await self.dispatcher.snooze(person, day)
            key = {
                Snooze.SET: "daily.snoozed",
                Snooze.EXPIRED: "daily.expired",
                Snooze.OFF: "daily.snooze_off",
            }[result]
            if result is Snooze.SET and not from_settings:
                await _drop_buttons(update)
            await say(context, person.chat_id, tx(key), person=person)
        elif action == "skip":
            await self._skip(update, context, person, day, from_settings=from_settings)
        elif action == "unskip":
            await self.dispatcher.unskip(person)
            await say(context, person.chat_id, tx("daily.unskipped"), person=person)
        elif action == "pause":
            person.profile.part(CheckinPrefs).paused = True
            await self._schedule_changed(context, person)
            if not from_settings:
                await _drop_buttons(update)
            await say(
                context,
                person.chat_id,
                tx("daily.paused"),
                person=person,
                buttons=[[(tx("daily.btn_resume"), DailyButton("resume").encode())]],
            )
        elif action == "resume":
            await self._resume(update, context, person)
        if from_settings:
            await context.offers.onboarding.show_settings(update, context, person)

    async def _show_prompt(
        self, update: Update, context: Context, person: Person, day: str
    ) -> None:
        """Neutral wording: reveal the prompt in place, when the person chooses to."""
        query = update.callback_query
        record = await self.dispatcher.record(person.person_id, day)
        prompt = _prompts(context).get(record.prompt_id) if record is not None else None
        if query is None or not isinstance(query.message, Message) or prompt is None:
            return
        tx = context.tx
        text = prompt_text(tx, prompt, neutral=True, shown=True)
        if person.profile.part(NoContactPrefs).nocontact_in_checkin:
            # On screen now, opened by the person: the count may show.
            count = await context.offers.urges.checkin_day(person)
            if count is not None:
                text = f"{text}\n\n{tx('nocontact.checkin_line', day=count)}"
        with contextlib.suppress(BadRequest):  # already shown, or too old to edit
            await query.message.edit_text(text, reply_markup=keyboard(prompt_buttons(tx, day)))

    async def _skip(
        self, update: Update, context: Context, person: Person, day: str, *, from_settings: bool
    ) -> None:
        tx = context.tx
        # "Skip today" means today, whichever check-in's button was pressed: on yesterday's
        # prompt, skipping yesterday (already over) would say one thing and do nothing.
        day = self.dispatcher.today(person)
        await self.dispatcher.skip(person, day)
        if not from_settings:
            await _drop_buttons(update)
        record = await self.dispatcher.record(person.person_id, day)
        sent_already = record is not None and record.status in PROMPT_OUT
        key = "daily.skipped" if sent_already else "daily.skip_set"
        await say(context, person.chat_id, tx(key), person=person)

    async def _resume(self, update: Update, context: Context, person: Person) -> None:
        tx = context.tx
        p = person.profile.part(CheckinPrefs)
        if p.daily_time is None or person.profile.timezone is None:
            await say(context, person.chat_id, tx("daily.resume_needs_time"), person=person)
            return
        p.paused = False
        p.daily_enabled = True
        await self._schedule_changed(context, person)
        await _drop_buttons(update)
        shown = local_format.hh_mm(p.daily_time, context.formats)
        await say(context, person.chat_id, tx("daily.resumed", time=shown), person=person)

    async def _schedule_changed(self, context: Context, person: Person) -> None:
        await context.services.people.save(person)
        await self.hooks.schedule_changed(context, person)

    async def settings_rows(self, context: Context, person: Person) -> list[list[Button]]:
        """Skip today (or undo it), and once today's check-in went out, snooze it."""
        if schedule_of(person.profile) is None:
            return []
        tx = context.tx
        today = self.dispatcher.today(person)
        record = await self.dispatcher.record(person.person_id, today)
        if person.profile.part(CheckinPrefs).skip_date == today:
            unskip = DailyButton("unskip", from_settings=True).encode()
            return [[(tx("daily.btn_unskip_settings"), unskip)]] if record is None else []
        if record is None:
            skip = DailyButton("skip", today, from_settings=True).encode()
            return [[(tx("daily.btn_skip_settings"), skip)]]
        if record.status in PROMPT_OUT:
            snooze = DailyButton("snooze", today, from_settings=True).encode()
            skip = DailyButton("skip", today, from_settings=True).encode()
            return [[(tx("daily.btn_snooze"), snooze), (tx("daily.btn_skip"), skip)]]
        return []

    # --- replies become journal entries -------------------------------------------------

    async def on_idle_text(
        self, update: Update, context: Context, person: Person, text: str
    ) -> bool:
        message = update.message
        if message is None or not text:
            return False
        quoted = message.reply_to_message
        reply_to = None
        if quoted is not None and quoted.from_user is not None and quoted.from_user.is_bot:
            reply_to = quoted.message_id
        # An explicit reply to a check-in is a journal entry even mid-worksheet, and so is
        # the first free text after a check-in that came after the worksheet's question.
        prompt_id = await context.offers.journal.answers(person, reply_to)
        if prompt_id is None:
            return False
        if await context.offers.crisis_reply.journal_reply(
            update, context, person, prompt_id, text
        ):
            return True  # a crisis word alone is not kept; longer text waits for their choice
        entry_id = await context.offers.journal.add(person, prompt_id, message.message_id, text)
        context.note_saved(update.update_id)
        log.info("journal entry saved")
        if person.profile.discreet:
            # As with worksheet answers: once sealed, the words leave the chat.
            await delete_quietly(context, person.chat_id, [message.message_id])
        # A reply that set off the crisis path was held above for the person's choice, so
        # what reaches here is ordinary: "Saved", with the way to take it back.
        undo = [(context.tx("journal.btn_undo"), UndoButton(entry_id).encode())]
        await say(
            context, person.chat_id, context.tx("journal.saved"), person=person, buttons=[undo]
        )
        return True

    async def on_undo(self, update: Update, context: Context, data: UndoButton) -> None:
        person = await current_person(update, context)
        if person is None:
            return
        removed = await context.offers.journal.remove(person, data.value)
        await context.services.people.save(person)
        text = context.tx("journal.undone" if removed else "journal.undone_already")
        pressed = pressed_message(update)
        markup = pressed.reply_markup if pressed is not None else None
        others = [
            row
            for row in (markup.inline_keyboard if markup is not None else ())
            if not any(b.callback_data == data.encode() for b in row)
        ]
        if pressed is None or not others:
            await replace_or_say(context, update, text, person=person)
            return
        # Pressed under a crisis reply: its lines and buttons stay, only Undo goes.
        with contextlib.suppress(BadRequest):
            await pressed.edit_reply_markup(reply_markup=InlineKeyboardMarkup(others))
        await say(context, person.chat_id, text, person=person)

    async def on_edit(self, update: Update, context: Context, person: Person, text: str) -> bool:
        message = update.edited_message
        if message is None or not text.strip():
            return False
        return await context.offers.journal.edit(person, message.message_id, text.strip())

    # --- /journal -----------------------------------------------------------------------

    async def show_journal(self, update: Update, context: Context) -> None:
        person = await command_person(update, context, missing="start.not_started")
        if person is None:
            return
        text, buttons = await self._page(context, person, 0)
        await say(context, person.chat_id, text, person=person, buttons=buttons, protect=True)
        await offer_damaged(context, person)

    async def on_journal_button(
        self, update: Update, context: Context, data: JournalButton
    ) -> None:
        query = update.callback_query
        chat = update.effective_chat
        if query is None or chat is None:
            return
        message = query.message if isinstance(query.message, Message) else None
        if data.offset is None:
            if message is not None:
                await delete_quietly(context, chat.id, [message.message_id])
            return
        if data.offset % PAGE_SIZE:
            return
        person = await current_person(update, context)
        if person is None:
            return
        text, buttons = await self._page(context, person, data.offset)
        if message is not None:
            try:
                await message.edit_text(text, reply_markup=keyboard(buttons))
                await offer_damaged(context, person)
                return
            except BadRequest:
                pass  # unchanged or too old to edit: send the page anew
        await say(context, chat.id, text, person=person, buttons=buttons, protect=True)
        await offer_damaged(context, person)

    async def _page(self, context: Context, person: Person, offset: int) -> tuple[str, Rows]:
        page = await context.offers.journal.page(person, offset, PAGE_SIZE)
        if page.total and offset >= page.total:
            offset = (page.total - 1) // PAGE_SIZE * PAGE_SIZE
            page = await context.offers.journal.page(person, offset, PAGE_SIZE)
        zone = person.profile.timezone
        zone = zone if zone and is_valid_timezone(zone) else "UTC"
        return journal_page(
            context.tx,
            page,
            PAGE_SIZE,
            _prompts(context),
            zone,
            context.services.clock(),
            daily_on=schedule_of(person.profile) is not None,
            language=context.formats,
        )


def _prompts(context: Context) -> dict[str, str]:
    return dict(context.locale.prompts)


async def _drop_buttons(update: Update) -> None:
    """Take the buttons off the pressed prompt, so it cannot be pressed twice."""
    await strip_buttons(pressed_message(update))
