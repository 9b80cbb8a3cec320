"""/worksheets, /resume and the worksheet flow: one question at a time, resumable.

The rules (what typed text answers, finishing, deleting, discreet mode) are written down in
bot/features/worksheets/flow.py, which decides; this module sends what it decides. What a
worksheet shows (list, intro, question, end, review) is bot/features/worksheets/handlers/screens.py.
"""

from __future__ import annotations

from dataclasses import replace

from telegram import Message, Update
from telegram.error import BadRequest

from bot.content.worksheet_model import Worksheet
from bot.features.crisis.callbacks import CrisisButton
from bot.features.crisis.held import HeldDecision
from bot.features.worksheets import views
from bot.features.worksheets.build import build
from bot.features.worksheets.callbacks import WorksheetButton
from bot.features.worksheets.flow import AddedToPrevious, Gone, HeldBack, NotKept, Reopen, Saved
from bot.features.worksheets.handlers import screens
from bot.features.worksheets.prefs import WorksheetPrefs
from bot.features.worksheets.state import WorksheetState
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
from bot.framework.hub import Hub
from bot.people.service import Person

DEEP_LINK_PREFIX = "ws_"


class WorksheetsFeature:
    def install(self, hub: Hub) -> None:
        hub.profile_record(WorksheetPrefs)
        built = build(hub.services)
        hub.offers.worksheets = built.flow
        hub.offers.worksheet_answers = built.answers
        hub.command("worksheets", self.list_command)
        hub.command("resume", self.resume_command)
        hub.router.on_callback(WorksheetButton, self.on_button)
        hub.router.on_state(WorksheetState, self.on_answer, own_words=True)
        hub.router.on_start_payload(DEEP_LINK_PREFIX, self.on_deep_link)
        hub.router.on_edit(self.on_edit)
        hub.hooks.after_onboarding.append(self.after_onboarding)
        hub.offers.worksheet_step = self

    async def pause_step(self, context: Context, person: Person) -> None:
        """Leave the question on screen ("cancel", "stop"): the answers stay, /resume goes on."""
        await screens.leave_step(context, person)
        await context.offers.worksheets.pause(person)

    # --- commands ---------------------------------------------------------------------

    async def list_command(self, update: Update, context: Context) -> None:
        person = await private_command_person(update, context)
        if person is not None:
            await screens.show_list(context, person)

    async def resume_command(self, update: Update, context: Context) -> None:
        person = await private_command_person(update, context)
        if person is None:
            return
        tx = context.tx
        waiting = await context.offers.worksheets.in_progress(person)
        active = [
            w for w in waiting if w.id == person.profile.part(WorksheetPrefs).active_worksheet
        ]
        if active or len(waiting) == 1:
            await screens.open_worksheet(context, person, (active or waiting)[0])
        elif waiting:
            buttons = views.open_buttons([context.local(w) for w in waiting])
            await tell(context, person, tx("worksheets.resume_choose"), buttons)
        else:
            await screens.show_list(context, person, lead=tx("worksheets.resume_none"))

    # --- typed answers and edits ------------------------------------------------------

    async def on_answer(self, update: Update, context: Context, person: Person, text: str) -> None:
        message = update.message
        if message is None:
            return
        flow, tx = context.offers.worksheets, context.tx
        decision = flow.held_decision(
            person, context.crisis, text, context.services.content.detector.covers,
            held_back=context.crisis_quiet,
        )  # fmt: skip
        if decision is not HeldDecision.KEEP_QUIETLY:
            await context.offers.crisis_reply.ensure_reply(
                update, context
            )  # a held-back check goes out after all
        outcome = await flow.receive(person, message.message_id, text, decision)
        if not isinstance(outcome, Saved):
            await context.offers.crisis_reply.ensure_reply(
                update, context
            )  # no "Saved" to carry the quiet line
        if isinstance(outcome, HeldBack):
            context.note_saved(update.update_id)
            await delete_and_forget(context, person, outcome.delete)
            rows = [
                context.offers.crisis_reply.keep_row(context, message.message_id, journal=False),
                views.continue_row(tx, outcome.worksheet, outcome.position),
            ]
            await context.offers.crisis_reply.add_under_reply(
                context, person, rows, tx("crisis_held.choose")
            )
        elif isinstance(outcome, NotKept):
            await self._offer_continue(
                context, person, outcome.worksheet, outcome.position, saved=False
            )
        elif isinstance(outcome, Gone):
            await screens.show_list(context, person, lead=tx("worksheets.unknown"))
        elif isinstance(outcome, Reopen):
            await screens.open_worksheet(context, person, outcome.worksheet)
        elif isinstance(outcome, AddedToPrevious):
            context.note_saved(update.update_id)
            await delete_and_forget(context, person, outcome.delete)
            note = tx("worksheets.added_to_previous", number=outcome.number)
            await tell(context, person, note)
        else:
            context.note_saved(update.update_id)
            await delete_and_forget(context, person, outcome.delete)
            step = outcome.step
            quiet = decision is HeldDecision.KEEP_QUIETLY
            if context.crisis is not None and not quiet:
                await self._offer_continue(
                    context, person, outcome.worksheet, outcome.position, saved=True
                )
            else:
                saved_id = await self._acknowledge(context, person, outcome, quiet=quiet)
                step = replace(step, saved_message=saved_id)
            await flow.shown(person, outcome.worksheet, step)

    async def _acknowledge(
        self, context: Context, person: Person, saved: Saved, *, quiet: bool = False
    ) -> int:
        """Say "Saved." under the answer, or edit that same message; returns its id.
        `quiet`: a safety-plan answer that speaks of safety gets a line and the lines."""
        tx, step, count = context.tx, saved.step, saved.count
        text = tx("worksheets.saved") if count == 1 else tx("worksheets.saved_many", count=count)
        buttons = views.step_buttons(tx, saved.worksheet, saved.position, answered=True)
        if quiet:
            text = f"{text}\n\n{tx('crisis_held.quiet_line')}"
            lines = CrisisButton("more", "g").encode()
            buttons = [*buttons, [(tx("crisis_held.btn_lines"), lines)]]
        if step.saved_message:
            try:
                await context.bot.edit_message_text(
                    text, person.chat_id, step.saved_message, reply_markup=keyboard(buttons)
                )
                return step.saved_message
            except BadRequest as exc:
                if "not modified" in str(exc).lower():
                    return step.saved_message  # the same message delivered twice
        return (await tell(context, person, text, buttons)).message_id

    async def _offer_continue(
        self, context: Context, person: Person, worksheet: Worksheet, position: int, *, saved: bool
    ) -> None:
        """Add Continue and Pause under the crisis reply, keeping its own buttons."""
        ours = views.continue_row(context.tx, worksheet, position)
        key = "worksheets.saved_crisis" if saved else "crisis_held.take_time"
        await context.offers.crisis_reply.add_under_reply(context, person, [ours], context.tx(key))

    async def on_edit(self, update: Update, context: Context, person: Person, text: str) -> bool:
        message = update.edited_message
        if message is None or not text.strip():
            return False
        return await context.offers.worksheets.update_part(person, message.message_id, text.strip())

    # --- deep links and onboarding ----------------------------------------------------

    async def on_deep_link(
        self, update: Update, context: Context, person: Person, payload: str
    ) -> None:
        await screens.open_by_id(context, person, payload.removeprefix(DEEP_LINK_PREFIX))

    async def after_onboarding(self, update: Update, context: Context, person: Person) -> bool:
        pending = await context.offers.worksheets.take_pending(person)
        if pending is None:
            return False
        await screens.open_by_id(context, person, pending.removeprefix(DEEP_LINK_PREFIX))
        return True

    # --- buttons ----------------------------------------------------------------------

    async def on_button(self, update: Update, context: Context, data: WorksheetButton) -> None:
        worksheet = context.offers.worksheets.get(data.worksheet_id)
        if data.worksheet_id and worksheet is None:
            return
        person = await current_person(update, context)
        if person is None:
            return
        if worksheet is not None:
            worksheet = context.local(worksheet)  # titles in the person's language
        pressed, tx = pressed_message(update), context.tx
        flow = context.offers.worksheets
        action, n = data.action, data.number
        if action in ("later", "revx", "exp", "pdf", "pause", "cpause"):
            await self._bare(context, person, action, pressed)
        elif worksheet is None:
            return
        elif action == "open":
            if person.profile.discreet:
                await release(context, person, pressed)  # the list, with its titles
            await screens.open_worksheet(context, person, worksheet)
        elif action == "go":
            await release(context, person, pressed)
            position = await flow.begin(person, worksheet)
            if position is None:
                await screens.open_worksheet(context, person, worksheet)
            else:
                await screens.show_question(context, person, worksheet, position)
        elif action in ("next", "back", "clr"):
            await self._step(context, person, worksheet, action, n, pressed)
        elif action == "cont":
            await context.offers.crisis_reply.drop_from_reply(pressed, WorksheetButton.PREFIX)
            position = await flow.continue_at(person, worksheet)
            if position is None:
                await screens.open_worksheet(context, person, worksheet)
            else:
                await screens.show_question(context, person, worksheet, position)
        elif action == "again":
            if await flow.again(person, worksheet):
                await screens.show_question(context, person, worksheet, 0)
            else:
                await screens.open_worksheet(context, person, worksheet)
        elif action == "rev":
            await screens.review(context, person, worksheet, n, pressed)
        elif action == "del":
            text = tx("worksheets.delete_confirm", title=worksheet.title)
            await tell(context, person, text, views.delete_buttons(tx, worksheet))
        elif action == "delok":
            await delete_and_forget(context, person, await flow.delete(person, worksheet))
            # In discreet mode the note names nothing: it stays on screen for them to see.
            key = "worksheets.deleted_discreet" if person.profile.discreet else "worksheets.deleted"
            text = tx(key, title=worksheet.title)
            await replace_or_say(context, update, text, person=person)
            await context.offers.tidying.remove_soon(context, person, pressed)
        elif action == "delno":
            await replace_or_say(context, update, tx("worksheets.kept"), person=person)

    async def _bare(
        self, context: Context, person: Person, action: str, pressed: Message | None
    ) -> None:
        """The actions that need no worksheet (pause keeps the active one for /resume)."""
        if action in ("later", "revx"):
            await release(context, person, pressed)
            if action == "later":
                await tell(context, person, context.tx("worksheets.not_now"))
        elif action in ("exp", "pdf"):
            await context.offers.exports.send_export(context, person, pdf=action == "pdf")
        else:
            if action == "cpause":
                await context.offers.crisis_reply.drop_from_reply(pressed, WorksheetButton.PREFIX)
                pressed = None
            await screens.leave_step(context, person, pressed)
            await context.offers.worksheets.pause(person)
            await tell(context, person, context.tx("worksheets.paused"))

    async def _step(
        self,
        context: Context,
        person: Person,
        ws: Worksheet,
        action: str,
        position: int,
        pressed: Message | None,
    ) -> None:
        """Next, Back and Clear: only from the question the person is on."""
        flow = context.offers.worksheets
        if (action == "back" and position == 0) or (
            action == "clr" and position >= ws.question_count
        ):
            return
        if not await flow.is_current(person, ws, position):
            # An old question's Next, Back or Clear: nothing changes, and the question the
            # person is on comes back (or, if this worksheet is not in progress, /resume).
            await strip_buttons(pressed)
            current = await flow.continue_at(person, ws)
            if current is None:
                await tell(context, person, context.tx("worksheets.expired"))
                return
            await tell(context, person, context.tx("fallback.earlier_button"))
            await screens.show_question(context, person, ws, current)
            return
        if action == "clr":
            written = await flow.clear_answer(person, ws, position)
            # The pressed view quotes the answer just cleared, so it goes in either mode.
            await screens.leave_step(
                context, person, extra=[*written, pressed.message_id if pressed else 0]
            )
            await screens.show_question(context, person, ws, position)
            return
        target = position + 1 if action == "next" else position - 1
        await screens.leave_step(context, person, pressed)
        await flow.go_to(person, ws, target)
        await screens.show_question(context, person, ws, target)
