"""Onboarding (/start) and /settings: country, time zone, daily check-in, discretion.

Both walk the same steps; the stored state `setup:<step>:<mode>` says which step waits for
typed input and whether to go on to the next step (onboarding) or back to the menu
(settings). Buttons carry the choice itself, so a stale button still does the right thing.
"""

from __future__ import annotations

from datetime import time

from telegram import Update
from telegram.error import BadRequest

from bot.context import Context
from bot.core.callbacks import (
    CountryButton,
    DayButton,
    LanguageButton,
    SafetyButton,
    SettingsButton,
    TimeButton,
    ZoneButton,
)
from bot.core.hub import Hub
from bot.core.state import (
    ONBOARDING,
    SETTINGS,
    SETUP_PREFIX,
    SETUP_STEPS,
    SetupState,
    WorksheetState,
    decode_state,
    setup_state,
)
from bot.handlers import privacy
from bot.handlers.common import (
    country_name,
    current_person,
    delete_and_forget,
    keyboard,
    pressed_message,
    replace_or_say,
    say,
    strip_buttons,
)
from bot.locales import endonym
from bot.services import geo, local_format
from bot.services.people import Person
from bot.services.schedule import is_valid_timezone, parse_local_time
from bot.views import Rows
from bot.views.settings import (
    DAY_KEYS,
    country_buttons,
    days_view,
    discreet_buttons,
    language_view,
    safety_buttons,
    settings_view,
    time_buttons,
    zone_buttons,
)


class SetupFeature:
    def __init__(self) -> None:
        self.hub = Hub()  # replaced by the app's hub in install()

    def install(self, hub: Hub) -> None:
        self.hub = hub
        hub.router.on_state(SETUP_PREFIX, self.on_text)
        hub.router.on_callback(CountryButton, self.on_country_button)
        hub.router.on_callback(ZoneButton, self.on_timezone_button)
        hub.router.on_callback(TimeButton, self.on_time_button)
        hub.router.on_callback(SafetyButton, self.on_safety_button)
        hub.router.on_callback(SettingsButton, self.on_settings_button)
        hub.router.on_callback(DayButton, self.on_day_button)
        hub.router.on_callback(LanguageButton, self.on_language_button)

    # --- entry points -------------------------------------------------------------------

    async def begin(self, update: Update, context: Context, person: Person) -> None:
        locales = context.services.content.locales
        telegram = locales.supported(context.telegram_language)
        if person.profile.language is None and telegram is not None:
            # Kept with the profile: daily prompts are sent from a job, with no update.
            person.profile.language = telegram
            await context.services.people.save(person)
            context.bind(person)
        elif person.profile.language is None and len(locales.codes) > 1:
            # Telegram did not say, or said a language we do not serve: ask, once.
            await self.ask_language(update, context, person, ONBOARDING)
            return
        await self.ask(update, context, person, "country", ONBOARDING)

    async def ask_language(
        self, update: Update, context: Context, person: Person, mode: str
    ) -> None:
        await context.services.people.set_state(person, SetupState("language", mode).encode())
        text, rows = language_view(context.tx, context.services.content.locales.choices())
        await self._question(update, context, person, mode, text, rows)

    async def on_language_button(
        self, update: Update, context: Context, data: LanguageButton
    ) -> None:
        found = await self._person_and_mode(update, context, "language")
        if found is None or data.value not in context.services.content.locales.codes:
            return
        person, mode = found
        person.profile.language = data.value
        person.state = ""
        await context.services.people.save(person)
        context.bind(person)  # this reply, and every one after it, in the new language
        await self.hub.wording_changed(context, person)  # the chat's "/" menu too
        if mode == SETTINGS:
            await self.show_settings(update, context, person)
            return
        await self.ask(update, context, person, "country", ONBOARDING)

    async def show_settings(
        self, update: Update, context: Context, person: Person, *, lead: str = ""
    ) -> None:
        if setup_state(person.state) is not None:
            person.state = ""  # cancel a pending step (saved with the panel's id below)
        p = person.profile
        country = country_name(context, p.country) if p.country else None
        waiting = p.active_worksheet in context.services.content.worksheets
        waiting = waiting and not isinstance(decode_state(person.state), WorksheetState)
        extra: Rows = []
        for hook in self.hub.settings_rows:
            extra += await hook(context, person)
        several = len(context.services.content.locales.codes) > 1
        text, buttons = settings_view(
            context.tx,
            p,
            country,
            worksheet_waiting=waiting,
            extra=extra,
            lead=lead,
            language=endonym(context.language) if several else None,
            time_shown=local_format.hh_mm(p.daily_time, context.formats) if p.daily_time else None,
            zone_shown=(
                geo.zone_label(p.timezone, context.language, country=p.country)
                if p.timezone
                else None
            ),
        )
        await self._panel(update, context, person, text, buttons)

    async def _panel(
        self, update: Update, context: Context, person: Person, text: str, rows: Rows
    ) -> None:
        """The one settings message: the pressed one is edited in place; otherwise the old
        panel leaves the chat and a new one is sent below what the person typed."""
        shown = 0
        pressed = pressed_message(update)
        if pressed is not None:
            try:
                await pressed.edit_text(text, reply_markup=keyboard(rows) if rows else None)
                shown = pressed.message_id
            except BadRequest as exc:  # too old to edit: sent anew below
                if "not modified" in str(exc).lower():
                    shown = pressed.message_id  # it already shows this
        old = person.profile.settings_message
        if old and old != shown:
            await delete_and_forget(context, person, [old])
        if not shown:
            sent = await say(context, person.chat_id, text, person=person, buttons=rows)
            shown = sent.message_id
        person.profile.settings_message = shown
        await context.services.people.save(person)  # the id, and the step left, if any

    # --- asking -------------------------------------------------------------------------

    async def ask(
        self, update: Update, context: Context, person: Person, step: str, mode: str
    ) -> None:
        tx = context.tx
        if step == "country":
            await context.services.people.set_state(person, SetupState("country", mode).encode())
            featured: list[str] = context.services.content.texts.data["featured_countries"]
            rows = country_buttons(tx, [(c, country_name(context, c)) for c in featured])
            await self._question(update, context, person, mode, tx("setup.ask_country"), rows)
        elif step == "timezone":
            await self._ask_timezone(update, context, person, mode)
        elif step == "time":
            await context.services.people.set_state(person, SetupState("time", mode).encode())
            if mode == SETTINGS:
                # They chose to change the time: not "would you like check-ins?" again.
                rows = time_buttons(tx, off=tx("setup.btn_daily_off_settings"))
                text = tx("setup.ask_time_settings")
            else:
                rows, text = time_buttons(tx), tx("setup.ask_time")
            await self._question(update, context, person, mode, text, rows)
        elif step == "safety":
            await context.services.people.set_state(person, SetupState("safety", mode).encode())
            rows = safety_buttons(tx)
            await self._question(update, context, person, mode, tx("setup.ask_safety"), rows)

    async def _question(
        self, update: Update, context: Context, person: Person, mode: str, text: str, rows: Rows
    ) -> None:
        """Onboarding asks below; settings asks in the panel itself (no pile of panels)."""
        if mode == SETTINGS:
            await self._panel(update, context, person, text, rows)
        else:
            await say(context, person.chat_id, text, person=person, buttons=rows or None)

    async def _ask_timezone(
        self, update: Update, context: Context, person: Person, mode: str
    ) -> None:
        tx = context.tx
        country = person.profile.country
        year = context.services.clock().year
        zones = geo.distinct_zones(country, year) if country else ()
        if len(zones) == 1 and mode == ONBOARDING:
            person.profile.timezone = zones[0].name
            await context.services.people.save(person)
            label = geo.zone_label(zones[0].name, context.language, country=country)
            await say(
                context, person.chat_id, tx("setup.timezone_auto", timezone=label), person=person
            )
            await self.hub.schedule_changed(context, person)
            await self.next_step(update, context, person, "timezone", mode)
            return
        await context.services.people.set_state(person, SetupState("timezone", mode).encode())
        choices = geo.main_zones(country, year) if country else ()
        rows = zone_buttons(choices, country, context.language)
        key = "setup.ask_timezone_choice" if choices else "setup.ask_timezone_typed"
        await self._question(update, context, person, mode, tx(key), rows)

    async def next_step(
        self, update: Update, context: Context, person: Person, done: str, mode: str, lead: str = ""
    ) -> None:
        if mode == SETTINGS:
            await self.show_settings(update, context, person, lead=lead)
            return
        index = SETUP_STEPS.index(done) + 1
        if index < len(SETUP_STEPS):
            await self.ask(update, context, person, SETUP_STEPS[index], mode)
            return
        await self.finish_onboarding(update, context, person)

    async def finish_onboarding(self, update: Update, context: Context, person: Person) -> None:
        person.profile.onboarded = True
        person.state = ""
        await context.services.people.save(person)
        await self.hub.schedule_changed(context, person)  # check-ins start only from here
        for hook in self.hub.after_onboarding:
            if await hook(update, context, person):
                return
        await say(context, person.chat_id, context.tx("setup.done"), person=person)

    # --- typed answers ------------------------------------------------------------------

    async def on_text(self, update: Update, context: Context, person: Person, text: str) -> None:
        state = setup_state(person.state) or SetupState("")
        step, mode = state.step, state.mode
        if not person.profile.onboarded:
            mode = ONBOARDING  # e.g. "Set my country" from a crisis reply mid-onboarding
        tx = context.tx
        if step == "country":
            aliases: dict[str, str] = context.services.content.texts.data["country_aliases"]
            code = geo.find_country(text, aliases) or context.services.content.places.find(text)
            if code is None:
                await say(context, person.chat_id, tx("setup.country_unknown"), person=person)
                return
            await self._set_country(update, context, person, code, mode)
        elif step == "timezone":
            zone = geo.find_timezone(text, person.profile.country, context.services.clock())
            if zone is None or not is_valid_timezone(zone):
                await say(context, person.chat_id, tx("setup.timezone_unknown"), person=person)
                return
            await self._set_timezone(update, context, person, zone, mode)
        elif step == "time":
            parsed = parse_local_time(text)
            if parsed is None:
                await say(context, person.chat_id, tx("setup.time_unknown"), person=person)
                return
            await self._set_time(update, context, person, parsed, mode)
        else:
            # Waiting for a button (the safety question): say so instead of guessing.
            await say(context, person.chat_id, tx("setup.use_buttons"), person=person)

    # --- buttons ------------------------------------------------------------------------

    async def _person_and_mode(
        self, update: Update, context: Context, step: str
    ) -> tuple[Person, str] | None:
        person = await current_person(update, context)
        if person is None:
            return None
        state = setup_state(person.state)
        mode = state.mode if state is not None and state.step == step else SETTINGS
        if not person.profile.onboarded and mode == SETTINGS:
            mode = ONBOARDING
        return person, mode

    async def on_country_button(
        self, update: Update, context: Context, data: CountryButton
    ) -> None:
        arg = data.value
        found = await self._person_and_mode(update, context, "country")
        if found is None:
            return
        person, mode = found
        if arg == "skip":
            person.profile.country = None
            await context.services.people.save(person)
            await self.next_step(update, context, person, "country", mode)
            return
        if arg not in geo.country_names():
            return
        await self._set_country(update, context, person, arg, mode)

    async def on_timezone_button(self, update: Update, context: Context, data: ZoneButton) -> None:
        arg = data.value
        found = await self._person_and_mode(update, context, "timezone")
        if found is None or not is_valid_timezone(arg):
            return
        person, mode = found
        await self._set_timezone(update, context, person, arg, mode)

    async def on_time_button(self, update: Update, context: Context, data: TimeButton) -> None:
        arg = data.value
        found = await self._person_and_mode(update, context, "time")
        if found is None:
            return
        person, mode = found
        if arg == "off":
            person.profile.daily_enabled = False
            await context.services.people.save(person)
            await self.hub.schedule_changed(context, person)
            if mode == ONBOARDING:  # "Not now" is heard, not passed over in silence
                await replace_or_say(
                    context, update, context.tx("setup.no_daily_ack"), person=person
                )
            lead = context.tx("settings.daily_turned_off")
            await self.next_step(update, context, person, "time", mode, lead)
            return
        parsed = parse_local_time(arg)
        if parsed is None:
            return
        await self._set_time(update, context, person, parsed, mode)

    async def on_safety_button(self, update: Update, context: Context, data: SafetyButton) -> None:
        arg = data.value
        found = await self._person_and_mode(update, context, "safety")
        if found is None:
            return
        person, mode = found
        tx = context.tx
        pressed = pressed_message(update)
        state = setup_state(person.state)
        if state is None or state.step != "safety":
            # Used once already: an old offer's buttons do nothing (and lose their buttons).
            await strip_buttons(pressed)
            return
        await strip_buttons(pressed)
        if arg == "yes":
            person.profile.shared_device = True
            await context.services.people.save(person)
            rows = discreet_buttons(tx)
            advice = tx("setup.safety_advice") + "\n\n" + tx("discretion.offer_turns_on")
            await say(context, person.chat_id, advice, person=person, buttons=rows)
            return
        if arg == "no":
            person.profile.shared_device = False
        elif arg == "discreet":
            person.profile.discreet = True
            person.profile.neutral_wording = True
            person.profile.silent = True
        elif arg != "later":
            return
        await context.services.people.save(person)
        if arg == "discreet":
            await self.hub.wording_changed(context, person)
            await say(context, person.chat_id, tx("setup.discreet_done"), person=person)
        elif arg == "later":
            await replace_or_say(context, update, tx("setup.discreet_later_ack"), person=person)
        await self.next_step(update, context, person, "safety", mode)

    async def on_settings_button(
        self, update: Update, context: Context, data: SettingsButton
    ) -> None:
        arg = data.value
        person = await current_person(update, context)
        if person is None:
            return
        p = person.profile
        tx = context.tx
        if arg in ("country", "tz", "time"):
            step = {"country": "country", "tz": "timezone", "time": "time"}[arg]
            await self.ask(update, context, person, step, SETTINGS)
            return
        if arg == "days":
            await self._show_days(update, context, person)
            return
        if arg == "language":
            await self.ask_language(update, context, person, SETTINGS)
            return
        if arg == "forget":
            await privacy.ask_to_forget(update, context, person)
            return
        if arg == "close":
            # Every tap was saved as it happened: closing says how to come back, nothing more.
            await replace_or_say(context, update, tx("settings.closed"), person=person)
            person.profile.settings_message = 0
            await context.services.people.save(person)
            return
        toggles = {
            "pause": "paused",
            "neutral": "neutral_wording",
            "silent": "silent",
            "discreet": "discreet",
        }
        name, _, value = arg.partition(":")
        if name in toggles and value in ("on", "off"):
            # The button says which value it sets, so a double tap or a stale menu cannot
            # flip a setting back.
            setattr(p, toggles[name], value == "on")
            await context.services.people.save(person)
            if name == "pause":
                await self.hub.schedule_changed(context, person)
            if name == "neutral":
                await self.hub.wording_changed(context, person)
        elif arg != "menu":
            return
        await self.show_settings(update, context, person)

    async def on_day_button(self, update: Update, context: Context, data: DayButton) -> None:
        arg = data.value
        person = await current_person(update, context)
        if person is None:
            return
        if arg == "done":
            await self.hub.schedule_changed(context, person)
            await self.show_settings(update, context, person)
            return
        if arg not in DAY_KEYS:
            return
        day = DAY_KEYS.index(arg)
        days = set(person.profile.daily_days)
        days.symmetric_difference_update({day})
        person.profile.daily_days = tuple(sorted(days))
        await context.services.people.save(person)
        await self.hub.schedule_changed(context, person)  # "Done" may never be pressed
        await self._show_days(update, context, person)

    # --- changes ------------------------------------------------------------------------

    async def _set_country(
        self, update: Update, context: Context, person: Person, code: str, mode: str
    ) -> None:
        changed = person.profile.country != code
        person.profile.country = code
        zones = geo.zones_for(code)
        if changed and person.profile.timezone not in {z.name for z in zones}:
            # The old zone belongs to another country: ask again rather than keep a wrong one.
            person.profile.timezone = None
        await context.services.people.save(person)
        name = country_name(context, code)
        if mode == ONBOARDING:
            text = context.tx("setup.country_set", country=name)
            await replace_or_say(context, update, text, person=person)
        if person.profile.timezone is None or (mode == ONBOARDING and changed):
            await self._ask_timezone(update, context, person, mode)
            return
        lead = context.tx("settings.country_changed", country=name)
        await self.next_step(update, context, person, "country", mode, lead)

    async def _set_timezone(
        self, update: Update, context: Context, person: Person, zone: str, mode: str
    ) -> None:
        person.profile.timezone = zone
        await context.services.people.save(person)
        await self.hub.schedule_changed(context, person)  # before any reply that could fail
        label = geo.zone_label(zone, context.language, country=person.profile.country)
        if mode == ONBOARDING:
            text = context.tx("setup.timezone_set", timezone=label)
            await replace_or_say(context, update, text, person=person)
        lead = context.tx("settings.zone_changed", timezone=label)
        await self.next_step(update, context, person, "timezone", mode, lead)

    async def _set_time(
        self, update: Update, context: Context, person: Person, value: time, mode: str
    ) -> None:
        tx = context.tx
        person.profile.daily_time = value.strftime("%H:%M")
        person.profile.daily_enabled = True
        # A pause stays a pause: someone may have paused because it is not safe right now.
        await context.services.people.save(person)
        await self.hub.schedule_changed(context, person)  # before any reply that could fail
        paused = person.profile.paused
        shown = local_format.hh_mm(person.profile.daily_time, context.formats)
        if mode == ONBOARDING:
            key = "setup.time_set_paused" if paused else "setup.time_set"
            await replace_or_say(context, update, tx(key, time=shown), person=person)
        key = "settings.time_changed_paused" if paused else "settings.time_changed"
        lead = tx(key, time=shown)
        await self.next_step(update, context, person, "time", mode, lead)

    async def _show_days(self, update: Update, context: Context, person: Person) -> None:
        text, rows = days_view(context.tx, person.profile.daily_days)
        await replace_or_say(context, update, text, person=person, buttons=rows)
