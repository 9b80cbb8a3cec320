"""Onboarding (/start) and /settings: country, time zone, daily check-in, discretion.

Which step comes next, what a typed answer means and every change a step makes are decided
by bot/features/setup/flow.py (`SetupFlow`, the rules written there); this module sends
what it decides, fires the hub's hooks it names, and keeps the one settings message.
"""

from __future__ import annotations

import functools

from telegram import Update
from telegram.error import BadRequest

from bot.content.locales import endonym
from bot.content.texts import feature_list
from bot.core import local_format
from bot.core.buttons import Rows
from bot.features.checkins.prefs import CheckinPrefs
from bot.features.setup.build import build
from bot.features.setup.callbacks import (
    CountryButton,
    DayButton,
    LanguageButton,
    SafetyButton,
    SettingsButton,
    TimeButton,
    ZoneButton,
)
from bot.features.setup.flow import (
    SETTINGS_STEPS,
    AskNext,
    CountrySet,
    Finish,
    Question,
    Retry,
    Safety,
    SetupFlow,
    TimeSet,
    ZoneFound,
    ZoneSet,
)
from bot.features.setup.prefs import SetupPrefs
from bot.features.setup.state import ONBOARDING, SETTINGS, SETUP_STEPS, SetupState, setup_state
from bot.features.setup.views import (
    days_view,
    discreet_buttons,
    language_view,
    question_view,
    settings_view,
)
from bot.features.worksheets.prefs import WorksheetPrefs
from bot.features.worksheets.state import worksheet_state
from bot.framework.chat import (
    country_name,
    current_person,
    delete_and_forget,
    keyboard,
    pressed_message,
    replace_or_say,
    say,
    strip_buttons,
)
from bot.framework.context import Context
from bot.framework.hub import Hooks, Hub
from bot.geo import lookup as geo
from bot.people.service import Person


class SetupFeature:
    # Given at install: the hooks it fires; the steps' logic.
    hooks: Hooks
    flow: SetupFlow

    def install(self, hub: Hub) -> None:
        hub.profile_record(SetupPrefs)
        self.hooks = hub.hooks
        self.flow = build(hub.services)
        hub.offers.onboarding = self
        hub.router.on_state(SetupState, self.on_text)
        hub.router.on_callback(CountryButton, self.on_country_button)
        hub.router.on_callback(ZoneButton, self.on_timezone_button)
        hub.router.on_callback(TimeButton, self.on_time_button)
        hub.router.on_callback(SafetyButton, self.on_safety_button)
        hub.router.on_callback(SettingsButton, self.on_settings_button)
        hub.router.on_callback(DayButton, self.on_day_button)
        hub.router.on_callback(LanguageButton, self.on_language_button)

    # --- entry points -------------------------------------------------------------------

    async def begin(self, update: Update, context: Context, person: Person) -> None:
        telegram = context.services.content.locales.supported(context.telegram_language)
        before = person.profile.language
        first = await self.flow.start(person, telegram)
        if person.profile.language != before:
            context.bind(person)  # the language Telegram said, kept
        if first == "language":
            # Telegram did not say, or said a language we do not serve: ask, once.
            await self.ask_language(update, context, person, ONBOARDING)
            return
        await self.ask(update, context, person, first, ONBOARDING)

    async def resume(self, update: Update, context: Context, person: Person) -> None:
        """/start before onboarding ended: the step it stopped at, asked again."""
        state = setup_state(person.state)
        if state is not None and state.step == "language":
            await self.ask_language(update, context, person, ONBOARDING)
            return
        step = state.step if state is not None and state.step in SETUP_STEPS else SETUP_STEPS[0]
        await self.ask(update, context, person, step, ONBOARDING)

    async def ask_language(
        self, update: Update, context: Context, person: Person, mode: str
    ) -> None:
        await self.flow.ask(person, "language", mode)
        text, rows = language_view(context.tx, context.services.content.locales.choices())
        await self._question(update, context, person, mode, text, rows)

    async def on_language_button(
        self, update: Update, context: Context, data: LanguageButton
    ) -> None:
        found = await self._person_and_mode(update, context, "language")
        if found is None:
            return
        person, mode = found
        if not await self.flow.set_language(person, data.value):
            return
        context.bind(person)  # this reply, and every one after it, in the new language
        await self.hooks.wording_changed(context, person)  # the chat's "/" menu too
        if mode == SETTINGS:
            await self.show_settings(update, context, person)
            return
        await self.ask(update, context, person, "country", ONBOARDING)

    async def show_settings(
        self, update: Update, context: Context, person: Person, *, lead: str = ""
    ) -> None:
        self.flow.leave_pending(person)  # saved with the panel's id below
        p = person.profile
        country = country_name(context, p.country) if p.country else None
        waiting = p.part(WorksheetPrefs).active_worksheet in context.services.content.worksheets
        waiting = waiting and worksheet_state(person.state) is None
        extra: Rows = []
        for hook in self.hooks.settings_rows:
            extra += await hook(context, person)
        several = len(context.services.content.locales.codes) > 1
        daily_time = p.part(CheckinPrefs).daily_time
        text, buttons = settings_view(
            context.tx,
            p,
            country,
            worksheet_waiting=waiting,
            extra=extra,
            lead=lead,
            language=endonym(context.language) if several else None,
            time_shown=local_format.hh_mm(daily_time, context.formats) if daily_time else None,
            zone_shown=(
                geo.zone_label(p.timezone, context.language, country=p.country)
                if p.timezone
                else None
            ),
        )
        await self._panel(update, context, person, text, buttons)

    async def _panel(
        self,
        update: Update,
        context: Context,
        person: Person,
        text: str,
        rows: Rows,
        *,
        fresh: bool = False,
    ) -> None:
        """The one settings message: the pressed one is edited in place; otherwise (or
        `fresh`: the pressed one was an old copy) the old panel leaves the chat and a new
        one is sent below."""
        shown = 0
        pressed = None if fresh else pressed_message(update)
        if pressed is not None:
            try:
                await pressed.edit_text(text, reply_markup=keyboard(rows) if rows else None)
                shown = pressed.message_id
            except BadRequest as exc:  # too old to edit: sent anew below
                if "not modified" in str(exc).lower():
                    shown = pressed.message_id  # it already shows this
        old = person.profile.part(SetupPrefs).settings_message
        if old and old != shown:
            await delete_and_forget(context, person, [old])
        if not shown:
            sent = await say(context, person.chat_id, text, person=person, buttons=rows)
            shown = sent.message_id
        await self.flow.note_panel(person, shown)

    # --- asking -------------------------------------------------------------------------

    async def ask(
        self, update: Update, context: Context, person: Person, step: str, mode: str
    ) -> None:
        asked = await self.flow.ask(person, step, mode)
        if isinstance(asked, ZoneFound):
            label = geo.zone_label(asked.zone, context.language, country=person.profile.country)
            text = context.tx("setup.timezone_auto", timezone=label)
            await say(context, person.chat_id, text, person=person)
            await self.hooks.schedule_changed(context, person)
            await self.next_step(update, context, person, "timezone", mode)
            return
        name = functools.partial(country_name, context)
        text, rows = question_view(context.tx, asked, name, context.language)
        await self._question(update, context, person, mode, text, rows)

    async def _question(
        self, update: Update, context: Context, person: Person, mode: str, text: str, rows: Rows
    ) -> None:
        """Onboarding asks below; settings asks in the panel itself (no pile of panels)."""
        if mode == SETTINGS:
            await self._panel(update, context, person, text, rows)
        else:
            sent = await say(context, person.chat_id, text, person=person, buttons=rows or None)
            state = setup_state(person.state)
            if rows and state is not None:
                await self.flow.note_asked(person, state.step, sent.message_id)

    async def next_step(
        self, update: Update, context: Context, person: Person, done: str, mode: str, lead: str = ""
    ) -> None:
        after = self.flow.after(done, mode)
        if isinstance(after, AskNext):
            await self.ask(update, context, person, after.step, mode)
        elif isinstance(after, Finish):
            await self.finish_onboarding(update, context, person)
        else:
            await self.show_settings(update, context, person, lead=lead)

    async def finish_onboarding(self, update: Update, context: Context, person: Person) -> None:
        await self.flow.finish_onboarding(person)
        await self.hooks.schedule_changed(context, person)  # check-ins start only from here
        for hook in self.hooks.after_onboarding:
            if await hook(update, context, person):
                return
        await say(
            context,
            person.chat_id,
            context.tx("setup.done", features=feature_list(context.tx)),
            person=person,
        )

    # --- typed answers ------------------------------------------------------------------

    async def on_text(self, update: Update, context: Context, person: Person, text: str) -> None:
        mode = self.flow.mode_of(person)
        outcome = await self.flow.typed(person, text)
        if isinstance(outcome, Retry):
            await say(context, person.chat_id, context.tx(outcome.key), person=person)
        elif isinstance(outcome, Question):  # a country typed at the zone question
            name = functools.partial(country_name, context)
            text, rows = question_view(context.tx, outcome, name, context.language)
            await self._question(update, context, person, mode, text, rows)
        else:
            await self._changed(update, context, person, outcome, mode)

    # --- buttons ------------------------------------------------------------------------

    async def _person_and_mode(
        self, update: Update, context: Context, step: str
    ) -> tuple[Person, str] | None:
        """The person and mode for a button of `step`'s question; None (after saying so)
        when that question is no longer the one waiting: an old country list, an old
        "Skip for now" or an old "12:30" changes nothing once the step has moved on."""
        person = await current_person(update, context)
        if person is None:
            return None
        pressed = pressed_message(update)
        pressed_id = None if pressed is None else pressed.message_id
        if not self.flow.answers_step(person, step, pressed_id):
            await self.earlier_button(update, context, person)
            return None
        return person, self.flow.mode_of(person, step)

    async def earlier_button(self, update: Update, context: Context, person: Person) -> None:
        """One line, the old buttons taken off, and the step that waits asked again."""
        await strip_buttons(pressed_message(update))
        await say(context, person.chat_id, context.tx("fallback.earlier_button"), person=person)
        state = setup_state(person.state)
        if state is None:
            return
        if state.step == "language":
            await self.ask_language(update, context, person, state.mode)
        elif state.step in SETUP_STEPS:
            await self.ask(update, context, person, state.step, state.mode)

    async def on_country_button(
        self, update: Update, context: Context, data: CountryButton
    ) -> None:
        found = await self._person_and_mode(update, context, "country")
        if found is None:
            return
        person, mode = found
        if data.value == "skip":
            await self.flow.skip_country(person)
            await self.next_step(update, context, person, "country", mode)
        elif data.value in geo.country_names():
            outcome = await self.flow.set_country(person, data.value, mode)
            await self._changed(update, context, person, outcome, mode)

    async def on_timezone_button(self, update: Update, context: Context, data: ZoneButton) -> None:
        found = await self._person_and_mode(update, context, "timezone")
        if found is None:
            return
        person, mode = found
        outcome = await self.flow.set_zone(person, data.value)
        if outcome is not None:
            await self._changed(update, context, person, outcome, mode)

    async def on_time_button(self, update: Update, context: Context, data: TimeButton) -> None:
        found = await self._person_and_mode(update, context, "time")
        if found is None:
            return
        person, mode = found
        if data.value != "off":
            outcome = await self.flow.set_time(person, data.value)
            if outcome is not None:
                await self._changed(update, context, person, outcome, mode)
            return
        await self.flow.daily_off(person)
        await self.hooks.schedule_changed(context, person)
        if mode == ONBOARDING:  # "Not now" is heard, not passed over in silence
            await replace_or_say(context, update, context.tx("setup.no_daily_ack"), person=person)
        lead = context.tx("settings.daily_turned_off")
        await self.next_step(update, context, person, "time", mode, lead)

    async def on_safety_button(self, update: Update, context: Context, data: SafetyButton) -> None:
        found = await self._person_and_mode(update, context, "safety")
        if found is None:
            return
        person, mode = found
        tx = context.tx
        # Pressed once, the offer's buttons go (an old offer's buttons do nothing).
        await strip_buttons(pressed_message(update))
        outcome = await self.flow.safety(person, data.value)
        if outcome is None or outcome is Safety.STALE:
            return  # (a stale one was answered by _person_and_mode already)
        if outcome is Safety.ADVICE:
            advice = tx("setup.safety_advice") + "\n\n" + tx("discretion.offer_turns_on")
            sent = await say(
                context, person.chat_id, advice, person=person, buttons=discreet_buttons(tx)
            )
            if mode != SETTINGS:  # the advice's buttons now answer the step, not the question's
                await self.flow.note_asked(person, "safety", sent.message_id)
            return
        if outcome is Safety.DISCREET:
            await self.hooks.wording_changed(context, person)
            await say(context, person.chat_id, tx("setup.discreet_done"), person=person)
        elif outcome is Safety.LATER:
            await replace_or_say(context, update, tx("setup.discreet_later_ack"), person=person)
        await self.next_step(update, context, person, "safety", mode)

    async def on_settings_button(
        self, update: Update, context: Context, data: SettingsButton
    ) -> None:
        arg = data.value
        person = await current_person(update, context)
        if person is None:
            return
        if arg in SETTINGS_STEPS:
            await self.ask(update, context, person, SETTINGS_STEPS[arg], SETTINGS)
        elif arg == "days":
            await self._show_days(update, context, person)
        elif arg == "language":
            await self.ask_language(update, context, person, SETTINGS)
        elif arg == "forget":
            await context.offers.forgetting.ask_to_forget(update, context, person)
        elif arg == "close":
            # Every tap was saved as it happened: closing says how to come back, nothing more.
            await replace_or_say(context, update, context.tx("settings.closed"), person=person)
            await self.flow.close_settings(person)
        elif arg == "menu":
            await self.show_settings(update, context, person)
        else:
            toggled = await self.flow.toggle(person, arg)
            if toggled is None:
                return
            if toggled.schedule:
                await self.hooks.schedule_changed(context, person)
            if toggled.wording:
                await self.hooks.wording_changed(context, person)
            await self.show_settings(update, context, person)

    async def on_day_button(self, update: Update, context: Context, data: DayButton) -> None:
        person = await current_person(update, context)
        if person is None:
            return
        pressed = pressed_message(update)
        if not self.flow.on_panel(person, pressed.message_id if pressed else None):
            # An older copy of the days (a panel left in the chat): it flips nothing.
            await strip_buttons(pressed)
            await say(context, person.chat_id, context.tx("fallback.earlier_button"), person=person)
            text, rows = days_view(context.tx, person.profile.part(CheckinPrefs).daily_days)
            await self._panel(update, context, person, text, rows, fresh=True)
            return
        if data.value == "done":
            await self.hooks.schedule_changed(context, person)
            await self.show_settings(update, context, person)
        elif await self.flow.toggle_day(person, data.value):
            await self.hooks.schedule_changed(context, person)  # "Done" may never be pressed
            await self._show_days(update, context, person)

    async def _show_days(self, update: Update, context: Context, person: Person) -> None:
        text, rows = days_view(context.tx, person.profile.part(CheckinPrefs).daily_days)
        await replace_or_say(context, update, text, person=person, buttons=rows)

    # --- what a change says -------------------------------------------------------------

    async def _changed(
        self,
        update: Update,
        context: Context,
        person: Person,
        outcome: CountrySet | ZoneSet | TimeSet,
        mode: str,
    ) -> None:
        """After a country, zone or time is set (typed or pressed): onboarding says what
        was set; the next step (or the menu, with the change on top) follows."""
        tx = context.tx
        if isinstance(outcome, CountrySet):
            name = country_name(context, outcome.code)
            if mode == ONBOARDING:
                await replace_or_say(
                    context, update, tx("setup.country_set", country=name), person=person
                )
            if outcome.ask_zone:
                await self.ask(update, context, person, "timezone", mode)
                return
            lead, done = tx("settings.country_changed", country=name), "country"
        elif isinstance(outcome, ZoneSet):
            await self.hooks.schedule_changed(context, person)  # before any reply that could fail
            label = geo.zone_label(outcome.zone, context.language, country=person.profile.country)
            if mode == ONBOARDING:
                text = tx("setup.timezone_set", timezone=label)
                await replace_or_say(context, update, text, person=person)
            lead, done = tx("settings.zone_changed", timezone=label), "timezone"
        else:
            await self.hooks.schedule_changed(context, person)  # before any reply that could fail
            shown = local_format.hh_mm(outcome.daily_time, context.formats)
            if mode == ONBOARDING:
                key = "setup.time_set_paused" if outcome.paused else "setup.time_set"
                await replace_or_say(context, update, tx(key, time=shown), person=person)
            key = "settings.time_changed_paused" if outcome.paused else "settings.time_changed"
            lead, done = tx(key, time=shown), "time"
        await self.next_step(update, context, person, done, mode, lead)
