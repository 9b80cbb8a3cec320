"""Onboarding and /settings, without Telegram: which step comes next, what a typed answer
to each step means, onboarding vs settings mode, and every change a step makes.

bot/features/setup/handlers.py asks and gets an outcome back; it sends what the outcome says
(views from bot/features/setup/views.py) and fires the hub's hooks the outcome names.
Unit-tested in tests/unit/features/setup/test_setup_flow.py, end to end in
tests/e2e/test_onboarding.py.

The rules, as a person sees them:

- Onboarding walks the steps in order (language if Telegram did not say one we serve,
  then country, time zone, daily check-in time, shared device); /settings opens one step
  and goes back to the menu after it. The stored state `setup:<step>:<mode>` says which
  step waits for typed input and in which mode; someone not yet onboarded is always in
  onboarding, e.g. after "Set my country" from a crisis reply mid-onboarding.
- Buttons carry the choice itself, so a stale button still does the right thing: a
  button for the step that waits keeps its mode; any other one acts as a setting.
- A country with one clock sets the zone by itself in onboarding; a new country whose
  zones do not hold the old zone asks for the zone again rather than keep a wrong one.
- A check-in time turns check-ins on; a pause stays a pause (someone may have paused
  because it is not safe right now).
- A toggle's button says the value it sets, so a double tap cannot flip it back.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import time
from enum import Enum

from bot.core.clock import Clock
from bot.features.checkins.prefs import CheckinPrefs
from bot.features.checkins.schedule import is_valid_timezone, parse_local_time
from bot.features.setup.prefs import SetupPrefs
from bot.features.setup.state import ONBOARDING, SETTINGS, SETUP_STEPS, SetupState, setup_state
from bot.geo import lookup as geo
from bot.geo.lookup import Zone
from bot.people.service import PeopleService, Person

DAY_KEYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
# What a /settings button names -> the step it opens.
SETTINGS_STEPS = {"country": "country", "tz": "timezone", "time": "time"}
# /settings toggles: the button's name -> the profile field it sets (a shared one, or the
# check-ins' record's for the pause).
TOGGLES = {
    "pause": "paused",
    "neutral": "neutral_wording",
    "silent": "silent",
    "discreet": "discreet",
}

# --- outcomes -------------------------------------------------------------------------


@dataclass(frozen=True)
class Question:
    """A step now waits: show its question. `countries`: the featured ones (country step);
    `zones`: those worth a button in the person's `country` (timezone step)."""

    step: str
    mode: str
    countries: tuple[str, ...] = ()
    zones: tuple[Zone, ...] = ()
    country: str | None = None
    named: bool = False  # the zones of a country the person typed: the question names it


@dataclass(frozen=True)
class ZoneFound:
    """Onboarding, a country with one clock: the zone is set without asking."""

    zone: str


Asked = Question | ZoneFound


@dataclass(frozen=True)
class ToSettings:
    """Settings mode: back to the menu."""


@dataclass(frozen=True)
class AskNext:
    step: str


@dataclass(frozen=True)
class Finish:
    """Onboarding's last step is done."""


Next = ToSettings | AskNext | Finish


@dataclass(frozen=True)
class Retry:
    """A typed answer that means nothing at this step: say `key` and wait."""

    key: str


@dataclass(frozen=True)
class CountrySet:
    code: str
    ask_zone: bool  # the zone is (again) the next question


@dataclass(frozen=True)
class ZoneSet:
    zone: str  # schedule changed


@dataclass(frozen=True)
class TimeSet:
    daily_time: str  # "HH:MM"; schedule changed
    paused: bool


Typed = Retry | CountrySet | ZoneSet | TimeSet | Question


class Safety(Enum):
    STALE = "stale"  # an old offer's button: nothing happens
    ADVICE = "advice"  # "yes": advice and the discreet offer; the step still waits
    NO = "no"
    DISCREET = "discreet"  # discreet mode, neutral wording and silent on: wording changed
    LATER = "later"


@dataclass(frozen=True)
class Toggled:
    name: str
    schedule: bool  # the check-in schedule changed
    wording: bool  # the chat's wording (command menu) changed


# --- the flow -------------------------------------------------------------------------


class SetupFlow:
    def __init__(
        self,
        people: PeopleService,
        clock: Clock,
        *,
        languages: Collection[str],
        featured: Sequence[str],
        aliases: Mapping[str, str],
        find_place: Callable[[str], str | None],
    ) -> None:
        self._people = people
        self._clock = clock
        self._languages = languages
        self._featured = tuple(featured)
        self._aliases = aliases
        self._find_place = find_place

    # --- where a person is ----------------------------------------------------------

    @staticmethod
    def mode_of(person: Person, step: str | None = None) -> str:
        """The mode a typed answer (`step` None) or a button for `step` acts in."""
        state = setup_state(person.state)
        if step is None:
            mode = state.mode if state is not None else ONBOARDING
        else:
            mode = state.mode if state is not None and state.step == step else SETTINGS
        return ONBOARDING if not person.profile.onboarded else mode

    @staticmethod
    def after(done: str, mode: str) -> Next:
        if mode == SETTINGS:
            return ToSettings()
        index = SETUP_STEPS.index(done) + 1
        return AskNext(SETUP_STEPS[index]) if index < len(SETUP_STEPS) else Finish()

    @staticmethod
    def leave_pending(person: Person) -> None:
        """The settings menu cancels a step that waits (saved with the menu's id)."""
        if setup_state(person.state) is not None:
            person.state = ""

    # --- asking ---------------------------------------------------------------------

    async def start(self, person: Person, telegram_language: str | None) -> str:
        """Onboarding's first step: "language" if it must be asked (Telegram did not say,
        or said one we do not serve, and there is a choice), else "country"."""
        if person.profile.language is None and telegram_language is not None:
            # Kept with the profile: daily prompts are sent from a job, with no update.
            person.profile.language = telegram_language
            await self._people.save(person)
        elif person.profile.language is None and len(self._languages) > 1:
            return "language"
        return "country"

    async def ask(self, person: Person, step: str, mode: str) -> Asked:
        """Make `step` the one that waits (or, for a one-clock country in onboarding, set
        the zone at once)."""
        if step == "timezone":
            country = person.profile.country
            year = self._clock().year
            zones = geo.distinct_zones(country, year) if country else ()
            if len(zones) == 1 and mode == ONBOARDING:
                person.profile.timezone = zones[0].name
                await self._people.save(person)
                return ZoneFound(zones[0].name)
            await self._wait(person, step, mode)
            choices = geo.main_zones(country, year) if country else ()
            return Question(step, mode, zones=choices, country=country)
        await self._wait(person, step, mode)
        return Question(step, mode, countries=self._featured if step == "country" else ())

    def _zones_of_country(self, text: str, mode: str) -> Question | None:
        """A country with several clocks typed at the zone question ("Canada", "Brasil"):
        its zones as buttons. The country itself stays as it was: only the zone is asked."""
        code = geo.find_country(text, self._aliases)
        # Every clock, not the first eight: Canada's Pacific coast comes tenth in zone.tab.
        zones = geo.distinct_zones(code, self._clock().year) if code else ()
        if code is None or len(zones) < 2:
            return None
        return Question("timezone", mode, zones=zones, country=code, named=True)

    async def _wait(self, person: Person, step: str, mode: str) -> None:
        await self._people.set_state(person, SetupState(step, mode).encode())

    async def note_asked(self, person: Person, step: str, message_id: int) -> None:
        """The message that asks `step` (onboarding): only its buttons answer it now."""
        state = setup_state(person.state)
        if state is not None and state.step == step:
            asked = SetupState(step, state.mode, message_id)
            await self._people.set_state(person, asked.encode())

    @staticmethod
    def answers_step(person: Person, step: str, message_id: int | None) -> bool:
        """Whether a button on message `message_id` answers `step`, the one that waits:
        in onboarding, only on the message that asked it; in /settings, only on the panel
        (the one message settings shows). An unknown message (0) is not second-guessed."""
        state = setup_state(person.state)
        if state is None or state.step != step:
            return False
        if message_id is None:
            return True
        shown = (
            person.profile.part(SetupPrefs).settings_message
            if state.mode == SETTINGS
            else state.asked
        )
        return not shown or shown == message_id

    @staticmethod
    def on_panel(person: Person, message_id: int | None) -> bool:
        """A /settings button (the days' toggles) is live only on the panel itself."""
        shown = person.profile.part(SetupPrefs).settings_message
        return message_id is None or not shown or shown == message_id

    # --- typed answers --------------------------------------------------------------

    async def typed(self, person: Person, text: str) -> Typed:
        state = setup_state(person.state)
        step = state.step if state is not None else ""
        mode = self.mode_of(person)
        if step == "country":
            code = geo.find_country(text, self._aliases) or self._find_place(text)
            if code is None:
                return Retry("setup.country_unknown")
            return await self.set_country(person, code, mode)
        if step == "timezone":
            zone = geo.find_timezone(text, person.profile.country, self._clock())
            if zone is None or not is_valid_timezone(zone):
                return self._zones_of_country(text, mode) or Retry("setup.timezone_unknown")
            return await self._set_zone(person, zone)
        if step == "time":
            parsed = parse_local_time(text)
            if parsed is None:
                return Retry("setup.time_unknown")
            return await self._set_time(person, parsed)
        # Waiting for a button (the safety question): say so instead of guessing.
        return Retry("setup.use_buttons")

    # --- changes --------------------------------------------------------------------

    async def set_language(self, person: Person, code: str) -> bool:
        if code not in self._languages:
            return False
        person.profile.language = code
        person.state = ""
        await self._people.save(person)
        return True

    async def skip_country(self, person: Person) -> None:
        person.profile.country = None
        await self._people.save(person)

    async def set_country(self, person: Person, code: str, mode: str) -> CountrySet:
        changed = person.profile.country != code
        person.profile.country = code
        zones = geo.zones_for(code)
        if changed and person.profile.timezone not in {z.name for z in zones}:
            # The old zone belongs to another country: ask again rather than keep a wrong one.
            person.profile.timezone = None
        await self._people.save(person)
        ask_zone = person.profile.timezone is None or (mode == ONBOARDING and changed)
        return CountrySet(code, ask_zone)

    async def set_zone(self, person: Person, zone: str) -> ZoneSet | None:
        """A zone from a button: None if it is no zone (forged data)."""
        return await self._set_zone(person, zone) if is_valid_timezone(zone) else None

    async def _set_zone(self, person: Person, zone: str) -> ZoneSet:
        person.profile.timezone = zone
        await self._people.save(person)
        return ZoneSet(zone)

    async def set_time(self, person: Person, value: str) -> TimeSet | None:
        """A time from a button ("HH:MM"): None if it is no time of day."""
        parsed = parse_local_time(value)
        return await self._set_time(person, parsed) if parsed is not None else None

    async def _set_time(self, person: Person, value: time) -> TimeSet:
        daily = person.profile.part(CheckinPrefs)
        daily.daily_time = value.strftime("%H:%M")
        daily.daily_enabled = True
        # A pause stays a pause: someone may have paused because it is not safe right now.
        await self._people.save(person)
        return TimeSet(daily.daily_time, daily.paused)

    async def daily_off(self, person: Person) -> None:
        person.profile.part(CheckinPrefs).daily_enabled = False
        await self._people.save(person)

    async def safety(self, person: Person, choice: str) -> Safety | None:
        """The shared-device question's buttons; None for a choice that is not one."""
        state = setup_state(person.state)
        if state is None or state.step != "safety":
            return Safety.STALE  # used once already
        p = person.profile
        if choice == "yes":
            p.part(SetupPrefs).shared_device = True
        elif choice == "no":
            p.part(SetupPrefs).shared_device = False
        elif choice == "discreet":
            p.discreet = p.neutral_wording = p.silent = True
        elif choice != "later":
            return None
        await self._people.save(person)
        return Safety.ADVICE if choice == "yes" else Safety(choice)

    async def toggle(self, person: Person, arg: str) -> Toggled | None:
        """`name:on|off` from the settings menu; None if it names no toggle."""
        name, _, value = arg.partition(":")
        if name not in TOGGLES or value not in ("on", "off"):
            return None
        # The pause is the check-ins' own; the wording settings are everyone's.
        owner = person.profile.part(CheckinPrefs) if name == "pause" else person.profile
        setattr(owner, TOGGLES[name], value == "on")
        await self._people.save(person)
        return Toggled(name, schedule=name == "pause", wording=name == "neutral")

    async def toggle_day(self, person: Person, key: str) -> bool:
        """A weekday's button (`mon`...): on if it was off and off if it was on."""
        if key not in DAY_KEYS:
            return False
        days = set(person.profile.part(CheckinPrefs).daily_days)
        days.symmetric_difference_update({DAY_KEYS.index(key)})
        person.profile.part(CheckinPrefs).daily_days = tuple(sorted(days))
        await self._people.save(person)
        return True

    async def finish_onboarding(self, person: Person) -> None:
        person.profile.onboarded = True
        person.state = ""
        await self._people.save(person)

    async def close_settings(self, person: Person) -> None:
        # Every tap was saved as it happened: closing only forgets the menu's message.
        person.profile.part(SetupPrefs).settings_message = 0
        await self._people.save(person)

    async def note_panel(self, person: Person, message_id: int) -> None:
        """The settings message now on screen (saved with the step left, if any)."""
        person.profile.part(SetupPrefs).settings_message = message_id
        await self._people.save(person)
