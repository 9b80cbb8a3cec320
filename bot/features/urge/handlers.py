"""Riding the wave (issue 15): /urge ("A hard moment"), the held draft, the check-back 20
minutes later, My reasons (/reasons) and the offer on pull-back words. No-contact days,
the check-in's mood tap and /progress are bot/features/progress/handlers.py.

The flow is buttons and stored state (`urge:<step>:<id>`), so a restart mid-flow loses
nothing. The check-back and the draft's offer back are due instants in the database,
read by one repeating job (`JOB_NAME`): see bot/features/urge/service.py.
"""

from __future__ import annotations

import functools
import logging
from datetime import timedelta

from telegram import Update
from telegram.error import Forbidden, TelegramError

from bot.content.phrases import PULL_BACK
from bot.content.urge_texts import surf_steps
from bot.features.checkins.prefs import CheckinPrefs
from bot.features.discretion.service import CONFIRMATION_LIFETIME, CoverHolds
from bot.features.urge.build import build
from bot.features.urge.callbacks import UrgeAction, UrgeButton
from bot.features.urge.export_parts import export_parts
from bot.features.urge.prefs import UrgePrefs
from bot.features.urge.service import UrgeService, zone_of
from bot.features.urge.state import UrgeState, urge_state
from bot.features.urge.views import (
    after_view,
    compare_text,
    done_text,
    draft_buttons,
    draft_offer_back_view,
    draft_offer_view,
    draft_shown_text,
    follow_up_view,
    offer_view,
    reasons_text,
    reasons_view,
    safe_people_text,
    strength_view,
    surf_view,
    trigger_view,
    typed_trigger_view,
)
from bot.framework.chat import (
    Button,
    command_person,
    current_person,
    delete_and_forget,
    pressed_message,
    release,
    replace_or_say,
    say,
    tell,
)
from bot.framework.context import Context
from bot.framework.hub import Hub
from bot.people.service import Person, UnreadableDataError

log = logging.getLogger(__name__)

JOB_NAME = "urge-due"
TICK = timedelta(seconds=15)


class UrgeFeature:
    def install(self, hub: Hub) -> None:
        hub.profile_record(UrgePrefs)
        # The safety plan's answers (the worksheets feature's) name the people to reach.
        urges = build(hub.services, hub.offers.worksheet_answers)
        hub.offers.urges = urges
        hub.hooks.export_parts.append(functools.partial(export_parts, urges))
        hub.command("urge", self.urge_command)
        hub.command("reasons", self.reasons_command)
        hub.router.on_callback(UrgeButton, self.on_button)
        hub.router.on_state(UrgeState, self.on_text, own_words=True)
        hub.router.on_idle_text(self.on_idle_text)
        hub.every(JOB_NAME, TICK.total_seconds(), self.tick)
        hub.hooks.settings_rows.append(self.settings_rows)

    async def settings_rows(self, context: Context, person: Person) -> list[list[Button]]:
        """Once the pull-back offer is turned off, /settings is where it comes back."""
        if person.profile.part(UrgePrefs).urge_offers:
            return []
        return [[(context.tx("urge.btn_offers_on"), UrgeButton(UrgeAction.OFFERS_ON).encode())]]

    # --- commands -------------------------------------------------------------------------

    async def urge_command(self, update: Update, context: Context) -> None:
        person = await command_person(update, context, missing="start.not_started")
        if person is not None:
            if update.message is not None:  # the command names the flow: discreet, it goes
                await self._discreet(context, person, update.message.message_id)
            await self._begin(context, person)

    async def reasons_command(self, update: Update, context: Context) -> None:
        person = await command_person(update, context, missing="start.not_started")
        if person is not None:
            reasons = await _urges(context).reasons(person)
            await _tell_parts(context, person, *reasons_view(context.tx, reasons))

    # --- the flow -------------------------------------------------------------------------

    async def _begin(self, context: Context, person: Person) -> None:
        if urge_state(person.state) is not None:
            await context.services.people.set_state(person, "")
        await tell(context, person, *strength_view(context.tx))

    async def on_button(self, update: Update, context: Context, data: UrgeButton) -> None:
        person = await current_person(update, context)
        if person is None:
            return
        tx = context.tx
        urges = _urges(context)
        action, item = data.action, data.item
        pressed = pressed_message(update)
        if action is UrgeAction.START:
            await release(context, person, pressed)
            await self._begin(context, person)
        elif action is UrgeAction.FROM_CHECKIN:  # from the check-in, whose own buttons stay
            await self._begin(context, person)
        elif action is UrgeAction.NOT_NOW:
            await release(context, person, pressed)
        elif action is UrgeAction.OFFERS_ON:
            person.profile.part(UrgePrefs).urge_offers = True
            await context.services.people.save(person)
            await say(context, person.chat_id, tx("urge.offers_on"), person=person)
        elif action is UrgeAction.NEVER:
            person.profile.part(UrgePrefs).urge_offers = False
            await context.services.people.save(person)
            await replace_or_say(context, update, tx("urge.offers_off"), person=person)
        elif action is UrgeAction.STRENGTH:
            strength = data.number
            if strength is None or strength > 10:
                return
            await release(context, person, pressed)
            urge = await urges.start(person, strength)
            log.info("urge logged")
            await context.services.people.set_state(
                person, UrgeState("trigger", urge.urge_id).encode()
            )
            await tell(context, person, *trigger_view(tx, urge.urge_id))
        elif action is UrgeAction.TRIGGER:
            if await urges.get(person, item) is None:
                return
            await release(context, person, pressed)
            if data.arg == "other":
                asked = await tell(context, person, *typed_trigger_view(tx, item))
                state = UrgeState("trigger", item, asked.message_id)
                await context.services.people.set_state(person, state.encode())
                return
            try:
                await urges.set_trigger(person, item, data.arg)
            except ValueError:
                return
            await self._leave_state(context, person)
            await tell(context, person, *draft_offer_view(tx, item, named=True))
        elif action is UrgeAction.SKIP_TRIGGER:
            await release(context, person, pressed)
            await self._leave_state(context, person)
            await tell(context, person, *draft_offer_view(tx, item, named=False))
        elif action is UrgeAction.WRITE_DRAFT:
            await release(context, person, pressed)
            asked = await tell(context, person, tx("urge.draft.ask"))
            state = UrgeState("draft", item, asked.message_id)
            await context.services.people.set_state(person, state.encode())
        elif action is UrgeAction.NO_DRAFT:
            await release(context, person, pressed)
            await self._surf(context, person, item, 0)
        elif action is UrgeAction.SURF_STEP:
            index = data.number
            if index is None:
                return
            await release(context, person, pressed)
            await self._surf(context, person, item, index)
        elif action is UrgeAction.STOP_SURF:
            await release(context, person, pressed)
            await tell(context, person, *after_view(tx, item))
        elif action is UrgeAction.AFTER:
            await release(context, person, pressed)
            await self._after(context, person, item, data.arg)
        elif action is UrgeAction.FOLLOW_UP:
            strength = data.number
            if strength is None or strength > 10:
                return
            await release(context, person, pressed)
            pair = await urges.answer_follow_up(person, item, strength)
            if pair is None:
                await tell(context, person, tx("urge.followup.expired"))
            else:
                await tell(context, person, compare_text(tx, *pair))
        elif action is UrgeAction.FOLLOW_UP_NOT_NOW:
            await urges.cancel_follow_up(person, item)
            await release(context, person, pressed)
        elif action in (UrgeAction.READ_DRAFT, UrgeAction.KEEP_DRAFT, UrgeAction.DELETE_DRAFT):
            await self._draft_choice(update, context, person, action, item)
        elif action is UrgeAction.SHOW_REASONS:
            reasons = await urges.reasons(person)
            await _tell_parts(context, person, *reasons_view(tx, reasons))
        elif action is UrgeAction.EDIT_REASONS:
            await release(context, person, pressed)
            asked = await tell(context, person, tx("reasons.ask"))
            state = UrgeState("reasons", asked=asked.message_id)
            await context.services.people.set_state(person, state.encode())

    async def _leave_state(self, context: Context, person: Person) -> None:
        if urge_state(person.state) is not None:
            await context.services.people.set_state(person, "")

    async def _surf(self, context: Context, person: Person, urge_id: str, index: int) -> None:
        steps = surf_steps(context.locale.texts)
        if index >= len(steps):
            await tell(context, person, *after_view(context.tx, urge_id))
            return
        await tell(context, person, *surf_view(context.tx, steps, urge_id, index))

    async def _after(self, context: Context, person: Person, urge_id: str, choice: str) -> None:
        tx = context.tx
        if choice == "again":
            await self._surf(context, person, urge_id, 0)
        elif choice == "done":
            promised = await _urges(context).promise_follow_up(person, urge_id)
            await tell(context, person, done_text(tx, promised=promised))
        elif choice == "reasons":
            reasons = await _urges(context).reasons(person)
            parts = reasons_text(tx, reasons, tail=tx("urge.after.ask"))
            text, rows = after_view(tx, urge_id, shown=parts[-1])
            await _tell_parts(context, person, [*parts[:-1], text], rows)
        elif choice == "safe":
            people = await _urges(context).safe_people(person)
            parts = safe_people_text(tx, people, tail=tx("urge.after.ask"))
            text, rows = after_view(tx, urge_id, shown=parts[-1])
            await _tell_parts(context, person, [*parts[:-1], text], rows)

    async def _draft_choice(
        self, update: Update, context: Context, person: Person, action: UrgeAction, draft_id: str
    ) -> None:
        tx = context.tx
        urges = _urges(context)
        draft = await urges.draft(person, draft_id)
        if draft is None:
            await replace_or_say(context, update, tx("urge.draft.none"), person=person)
            return
        if action is UrgeAction.READ_DRAFT:
            await release(context, person, pressed_message(update))
            local = draft.created_at.astimezone(zone_of(person))
            parts = draft_shown_text(tx, local.date().isoformat(), draft.text)
            await _tell_parts(context, person, parts, draft_buttons(tx, draft_id, read=False))
        elif action is UrgeAction.KEEP_DRAFT:
            await urges.keep_draft(person, draft_id)
            await replace_or_say(context, update, tx("urge.draft.kept"), person=person)
        else:
            await urges.delete_draft(person, draft_id)
            log.info("held draft deleted")
            # The message that showed it (if that was the one pressed) loses the words too.
            await replace_or_say(context, update, tx("urge.draft.deleted"), person=person)

    # --- typed words ------------------------------------------------------------------------

    async def on_text(self, update: Update, context: Context, person: Person, text: str) -> None:
        state = urge_state(person.state)
        message = update.message
        if state is None or message is None:
            return
        tx = context.tx
        urges = _urges(context)
        crisis = context.crisis is not None
        if state.step == "reasons":
            await urges.set_reasons(person, text)
            context.note_saved(update.update_id)
            await context.services.people.set_state(person, "")
            await self._discreet(context, person, message.message_id, state.asked)
            if not crisis:
                await tell(context, person, tx("reasons.saved"))
            return
        if await urges.get(person, state.urge_id) is None:
            await context.services.people.set_state(person, "")
            return
        if state.step == "trigger":
            await urges.set_trigger(person, state.urge_id, "other", text)
            context.note_saved(update.update_id)
            await context.services.people.set_state(person, "")
            await self._discreet(context, person, message.message_id, state.asked)
            if crisis:
                await self._offer_continue(
                    context, person, UrgeButton(UrgeAction.SKIP_TRIGGER, state.urge_id)
                )
            else:
                await tell(context, person, *draft_offer_view(tx, state.urge_id, named=True))
        elif state.step == "draft":
            await urges.hold_draft(person, text)
            log.info("draft held")
            context.note_saved(update.update_id)
            await context.services.people.set_state(person, "")
            await self._discreet(context, person, message.message_id, state.asked)
            if crisis:
                await self._offer_continue(
                    context, person, UrgeButton(UrgeAction.NO_DRAFT, state.urge_id)
                )
            else:
                held = await tell(context, person, tx("urge.draft.held"))
                if person.profile.discreet:  # says a message is held: read, then gone
                    await context.offers.discretion.remove_later(
                        person.person_id, held.message_id, CONFIRMATION_LIFETIME
                    )
                await self._surf(context, person, state.urge_id, 0)

    async def _offer_continue(self, context: Context, person: Person, then: UrgeButton) -> None:
        """After a crisis reply the next step waits: a button under that reply takes it."""
        ours = [(context.tx("urge.btn_continue"), then.encode())]
        await context.offers.crisis_reply.add_under_reply(
            context, person, [ours], context.tx("urge.label")
        )

    async def _discreet(self, context: Context, person: Person, *message_ids: int) -> None:
        """Discreet mode: the person's words (sealed now) and the question that asked for
        them leave the chat, as worksheet answers and record entries do."""
        if person.profile.discreet:
            await delete_and_forget(context, person, list(message_ids))

    async def on_idle_text(
        self, update: Update, context: Context, person: Person, text: str
    ) -> bool:
        """Words that sound like the pull back get the offer: never instead of a crisis
        reply, at most once a local day, and never again once turned off. Tried before the
        journal's route: a check-in reply that sounds like it is offered the flow and still
        saved (this returns False for it, and the journal takes it)."""
        profile = person.profile
        if (
            context.crisis is not None
            or not profile.onboarded
            or not profile.part(UrgePrefs).urge_offers
        ):
            return False
        if PULL_BACK not in context.phrase_signals(text):
            return False
        today = context.services.clock().astimezone(zone_of(person)).date().isoformat()
        if profile.part(UrgePrefs).urge_offered_on == today:
            return False
        profile.part(UrgePrefs).urge_offered_on = today
        await context.services.people.save(person)
        await tell(context, person, *offer_view(context.tx))
        message = update.message
        quoted = message.reply_to_message if message is not None else None
        reply_to = (
            quoted.message_id
            if quoted is not None and quoted.from_user is not None and quoted.from_user.is_bot
            else None
        )
        journal = context.offers.journal
        entry = await journal.answers(person, reply_to)
        return entry is None

    # --- the due job: check-backs and offers back -----------------------------------------

    async def tick(self, context: Context) -> None:
        await self.run_due(context)

    async def run_due(self, context: Context) -> None:
        """Send what has come due: each item is claimed in the database first, so a
        restart, a second pass or a press in between never sends it twice. A job has no
        update, so each person's context is bound to them before anything is worded: the
        texts come in their stored language, not the default one."""
        urges = _urges(context)
        for due, fresh in await urges.claim_follow_ups():
            person = await _load(context, due.person_id)
            if (
                not fresh
                or person is None
                or not person.active
                or person.profile.part(CheckinPrefs).paused
            ):
                continue  # too late to say "20 minutes", or asked for quiet: dropped
            if _in_cover(context, person):
                continue  # nothing arrives unprompted in cover; by its end it is stale
            urge = await urges.get(person, due.item_id)
            if urge is None or urge.follow_up is not None:
                continue
            context.bind(person)
            neutral = person.profile.neutral_wording
            await _send(context, person, *follow_up_view(context.tx, urge.urge_id, neutral=neutral))
        for row in await urges.due_drafts():
            person = await _load(context, row.person_id)
            if person is None:
                continue
            if (
                not person.active
                or person.profile.part(CheckinPrefs).paused
                or _in_cover(context, person)
            ):
                await urges.claim_offer(row, postpone=True)  # still here tomorrow
                continue
            if await urges.claim_offer(row, postpone=False):
                context.bind(person)
                neutral = person.profile.neutral_wording
                await _send(
                    context,
                    person,
                    *draft_offer_back_view(context.tx, row.draft_id, neutral=neutral),
                )


async def _tell_parts(
    context: Context, person: Person, parts: list[str], rows: list[list[Button]]
) -> None:
    """The person's own words, protected, over as many messages as they need; the buttons
    under the last, so what they act on comes after all of it."""
    for index, text in enumerate(parts):
        last = index == len(parts) - 1
        await tell(context, person, text, rows if last else None, protect=True)


def _urges(context: Context) -> UrgeService:
    return context.offers.urges


def _in_cover(context: Context, person: Person) -> bool:
    """Stored or only in memory yet (the panic word enters memory before storage)."""
    return person.profile.cover or context.services.cover.in_cover(person.person_id)


async def _load(context: Context, person_id: str) -> Person | None:
    try:
        return await context.services.people.load_by_id(person_id)
    except UnreadableDataError:
        return None


async def _send(
    context: Context, person: Person, text: str, rows: list[list[tuple[str, str]]]
) -> None:
    """A message the bot sends on its own, through `say` like every other (so the cover
    holds it back); Silent respected; a block marks them inactive."""
    try:
        await say(
            context,
            person.chat_id,
            text,
            person=person,
            buttons=rows,
            silent=person.profile.silent,
        )
    except CoverHolds:
        log.info("urge message held back: cover")
    except Forbidden:
        await context.services.people.set_active(person.person_id, False)
    except TelegramError as exc:
        log.warning("urge message not sent: %s", type(exc).__name__)
