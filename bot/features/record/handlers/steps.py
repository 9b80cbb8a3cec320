"""Writing a record entry, step by step: the question on screen, typed answers, the "when"
buttons and pickers, Next and Skip, and Continue under a crisis reply.

What each answer or button means is decided by bot/features/record/flow.py; this module
sends what it decides. The rest of /record (the menu, reading, deleting, exporting, the
look-back offer) is bot/features/record/handlers/record.py, which owns the feature and calls this.
"""

from __future__ import annotations

import contextlib

from telegram import Message, Update
from telegram.error import BadRequest

from bot.core.buttons import Rows
from bot.core.languages import LANGUAGES
from bot.features.export.render import zone_of
from bot.features.record import views
from bot.features.record.callbacks import RecordButton
from bot.features.record.dates import happened_label, written_label
from bot.features.record.flow import Ask, DayPicker, Expired, Gone, KeptAsWhat, Unclear, WhenSet
from bot.features.record.handlers.files import DOWNLOAD_LIMIT_MB
from bot.features.record.service import AMEND, STEPS, WHEN, next_step
from bot.features.record.state import RecordState, record_state
from bot.framework.chat import delete_and_forget, keyboard, release, tell
from bot.framework.context import Context
from bot.people.service import Person

WHEN_ACTIONS = ("now", "today", "days", "day", "hour")
STEP_ACTIONS = ("skip", "next", "cont")
# Every button of this module's (the rest of RecordButton's are
# bot/features/record/handlers/record.py's).
STEP_BUTTONS = frozenset({"new", "resume", "pause", "done", *WHEN_ACTIONS, *STEP_ACTIONS})


class EntrySteps:
    # --- the question on screen ---------------------------------------------------------

    async def ask(
        self, context: Context, person: Person, entry_id: str, step: str | None, lead: str = ""
    ) -> None:
        """Show the question of `step` and make it what typed text answers; past the last
        step, the entry is finished."""
        record, tx = context.services.record, context.tx
        await self.leave_step(context, person)
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

    async def leave_step(self, context: Context, person: Person) -> None:
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

    async def expired(self, context: Context, person: Person) -> None:
        await tell(context, person, context.tx("record.expired"))

    async def go(self, context: Context, person: Person, entry_id: str, to: Ask | Expired) -> None:
        if isinstance(to, Expired):
            await self.expired(context, person)
        else:
            await self.ask(context, person, entry_id, to.step)

    # --- typed answers ------------------------------------------------------------------

    async def on_text(self, update: Update, context: Context, person: Person, text: str) -> None:
        message = update.message
        state = record_state(person.state)
        if message is None or state is None:
            return
        tx = context.tx
        outcome = await context.services.record_flow.typed(
            person,
            state,
            message.message_id,
            text,
            languages=(context.language, *LANGUAGES),
            crisis=context.crisis is not None,
        )
        if isinstance(outcome, Gone):
            await tell(context, person, tx("record.gone"))
            return
        if isinstance(outcome, Unclear):
            await tell(context, person, tx(outcome.key))
            return
        if isinstance(outcome, WhenSet):
            await self._when_set(context, person, outcome)
            return
        context.note_saved(update.update_id)
        if isinstance(outcome, KeptAsWhat):
            await self._offer_continue(context, person, state)
            return
        if person.profile.discreet:
            await delete_and_forget(context, person, [message.message_id])
        if context.crisis is not None:
            await self._offer_continue(context, person, state)
        elif outcome.step == AMEND:
            when = written_label(
                int(context.services.clock().timestamp()), zone_of(person), context.formats
            )
            await tell(context, person, tx("record.amend_saved", when=when),
                       views.amend_view(tx, state.entry_id)[1])  # fmt: skip
        else:
            await self._acknowledge(context, person, state, outcome.count)

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
        await context.offers.crisis_reply.add_under_reply(
            context, person, [ours], context.tx("record.saved_crisis")
        )

    async def _when_set(self, context: Context, person: Person, outcome: WhenSet) -> None:
        entry = outcome.entry
        label = happened_label(entry, zone_of(person), context.formats) if entry else ""
        lead = context.tx("record.when_set", when=label) if label else ""
        await self.ask(context, person, outcome.entry_id, next_step(WHEN), lead=lead)

    # --- buttons ------------------------------------------------------------------------

    async def on_step_button(
        self, context: Context, person: Person, data: RecordButton, pressed: Message | None
    ) -> None:
        """New, Resume, Pause, Skip / Next / Continue, Done, and the "when" buttons."""
        flow, action, entry_id = context.services.record_flow, data.action, data.entry_id
        if action == "new":
            await release(context, person, pressed)
            await self.ask(context, person, await context.services.record.begin(person), WHEN)
        elif action == "resume":
            await release(context, person, pressed)
            to = await flow.resume(person, entry_id)
            if isinstance(to, Expired):
                await self.expired(context, person)
            else:
                lead = context.tx("record.resumed")
                await self.ask(context, person, entry_id, to.step, lead=lead)
        elif action == "pause":
            await self.leave_step(context, person)
            await context.services.record.leave(person)
            await tell(context, person, context.tx("record.paused"))
        elif action in WHEN_ACTIONS:
            await self._when_button(context, person, data, pressed)
        elif action in STEP_ACTIONS:
            if action == "cont":
                await context.offers.crisis_reply.drop_from_reply(pressed, RecordButton.PREFIX)
            await self.go(
                context, person, entry_id, flow.step_pressed(person, entry_id, data.number)
            )
        elif action == "done":
            await self.go(context, person, entry_id, flow.done_pressed(person, entry_id))

    async def _when_button(
        self, context: Context, person: Person, data: RecordButton, pressed: Message | None
    ) -> None:
        outcome = await context.services.record_flow.when_pressed(
            person, data.entry_id, data.action, data.number
        )
        tx, language, entry_id = context.tx, context.formats, data.entry_id
        if outcome is None:
            return
        if isinstance(outcome, Expired):
            await self.expired(context, person)
            return
        if isinstance(outcome, WhenSet):
            await self._when_set(context, person, outcome)
            return
        if isinstance(outcome, DayPicker):
            text, rows = views.day_picker(tx, entry_id, outcome.today, outcome.page, language)
        else:
            text, rows = views.hour_picker(
                tx, entry_id, outcome.day, outcome.back, outcome.last, language
            )
        if pressed is not None:
            try:
                await pressed.edit_text(text, reply_markup=keyboard(rows))
                return
            except BadRequest:
                pass
        await tell(context, person, text, rows)
