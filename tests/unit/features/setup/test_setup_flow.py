"""Onboarding's and /settings' rules, without Telegram: real SQLite and real encryption."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.core.clock import ManualClock
from bot.crypto import MasterKey
from bot.features.checkins.prefs import CheckinPrefs
from bot.features.setup.flow import (
    AskNext,
    CountrySet,
    Finish,
    Question,
    Retry,
    Safety,
    SetupFlow,
    TimeSet,
    Toggled,
    ToSettings,
    ZoneFound,
    ZoneSet,
)
from bot.features.setup.prefs import SetupPrefs
from bot.features.setup.state import ONBOARDING, SETTINGS, SetupState, setup_state
from bot.people.service import PeopleService, Person
from bot.storage.database import Database
from bot.storage.keystore import KeyStore
from bot.storage.people import PeopleStore
from bot.storage.schema import MIGRATIONS
from tests.helpers.bot import shared_content

START = datetime(2025, 12, 1, 8, 0, tzinfo=UTC)


@dataclass
class World:
    flow: SetupFlow
    people: PeopleService
    person: Person

    async def reload(self) -> Person:
        person = await self.people.load(1)
        if person is None:
            raise AssertionError("the person was not stored")
        return person

    async def at(self, step: str, mode: str = ONBOARDING, *, onboarded: bool = False) -> None:
        self.person.profile.onboarded = onboarded
        self.person.state = SetupState(step, mode).encode()
        await self.people.save(self.person)


def make_flow(people: PeopleService, languages: tuple[str, ...] = ("en", "de")) -> SetupFlow:
    content = shared_content()
    return SetupFlow(
        people,
        ManualClock(START),
        languages=languages,
        featured=("GB", "US", "DE"),
        aliases=content.texts.data["country_aliases"],
        find_place=content.places.find,
    )


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    keys = await KeyStore.open(tmp_path / "keys.sqlite3", MasterKey(os.urandom(32)))
    db = await Database.open(tmp_path / "data.sqlite3", MIGRATIONS)
    people = PeopleService(PeopleStore(db), keys, await keys.pseudonym_key(), ManualClock(START))
    person = await people.create(1, 1, SetupState("country").encode())
    try:
        yield World(make_flow(people), people, person)
    finally:
        await db.close()
        await keys.close()


# --- which step comes next ------------------------------------------------------------


def test_onboarding_walks_the_steps_in_order_then_finishes() -> None:
    after = SetupFlow.after
    assert after("country", ONBOARDING) == AskNext("timezone")
    assert after("timezone", ONBOARDING) == AskNext("time")
    assert after("time", ONBOARDING) == AskNext("safety")
    assert after("safety", ONBOARDING) == Finish()


def test_settings_goes_back_to_the_menu_after_any_step() -> None:
    assert all(SetupFlow.after(s, SETTINGS) == ToSettings() for s in ("country", "time"))


# --- onboarding vs settings mode ------------------------------------------------------


async def test_someone_not_onboarded_is_always_in_onboarding(world: World) -> None:
    await world.at("country", SETTINGS)
    assert SetupFlow.mode_of(world.person) == ONBOARDING
    assert SetupFlow.mode_of(world.person, "time") == ONBOARDING


async def test_a_button_for_the_waiting_step_keeps_its_mode_others_act_as_settings(
    world: World,
) -> None:
    await world.at("time", ONBOARDING, onboarded=True)
    assert SetupFlow.mode_of(world.person, "time") == ONBOARDING
    assert SetupFlow.mode_of(world.person, "country") == SETTINGS
    await world.at("time", SETTINGS, onboarded=True)
    assert SetupFlow.mode_of(world.person) == SETTINGS


# --- starting and asking --------------------------------------------------------------


async def test_start_keeps_telegrams_language_and_asks_the_country(world: World) -> None:
    assert await world.flow.start(world.person, "de") == "country"
    assert (await world.reload()).profile.language == "de"


async def test_start_asks_the_language_only_when_there_is_a_choice(world: World) -> None:
    assert await world.flow.start(world.person, None) == "language"
    only_english = make_flow(world.people, languages=("en",))
    assert await only_english.start(world.person, None) == "country"
    assert (await world.reload()).profile.language is None


async def test_asking_a_step_makes_it_the_one_typed_text_answers(world: World) -> None:
    asked = await world.flow.ask(world.person, "country", SETTINGS)
    assert asked == Question("country", SETTINGS, countries=("GB", "US", "DE"))
    assert setup_state((await world.reload()).state) == SetupState("country", SETTINGS)


async def test_a_country_with_one_clock_sets_the_zone_in_onboarding(world: World) -> None:
    world.person.profile.country = "DE"
    asked = await world.flow.ask(world.person, "timezone", ONBOARDING)
    assert asked == ZoneFound("Europe/Berlin")
    assert (await world.reload()).profile.timezone == "Europe/Berlin"


async def test_in_settings_the_zone_is_asked_even_for_one_clock(world: World) -> None:
    world.person.profile.country = "DE"
    asked = await world.flow.ask(world.person, "timezone", SETTINGS)
    assert isinstance(asked, Question)
    assert [z.name for z in asked.zones] == ["Europe/Berlin"]
    assert asked.country == "DE"


async def test_a_country_with_several_clocks_offers_its_zones(world: World) -> None:
    world.person.profile.country = "US"
    asked = await world.flow.ask(world.person, "timezone", ONBOARDING)
    assert isinstance(asked, Question)
    assert len(asked.zones) > 3
    assert "America/New_York" in {z.name for z in asked.zones}


# --- typed answers --------------------------------------------------------------------


async def test_a_typed_country_is_found_and_the_zone_is_asked_next(world: World) -> None:
    await world.at("country")
    assert await world.flow.typed(world.person, "la France") == CountrySet("FR", ask_zone=True)
    assert (await world.reload()).profile.country == "FR"


async def test_an_unknown_country_asks_again(world: World) -> None:
    await world.at("country")
    assert await world.flow.typed(world.person, "Narnia") == Retry("setup.country_unknown")
    assert (await world.reload()).profile.country is None


async def test_a_typed_zone_is_checked(world: World) -> None:
    await world.at("timezone")
    assert await world.flow.typed(world.person, "qwxzv") == Retry("setup.timezone_unknown")
    assert await world.flow.typed(world.person, "europe/london") == ZoneSet("Europe/London")
    assert (await world.reload()).profile.timezone == "Europe/London"


async def test_a_country_typed_at_the_zone_question_offers_its_zones(world: World) -> None:
    world.person.profile.country = "GB"
    await world.at("timezone")
    for typed in ("Canada", "canadá", "Kanada"):
        asked = await world.flow.typed(world.person, typed)
        assert isinstance(asked, Question) and asked.named and asked.country == "CA"
        names = {z.name for z in asked.zones}
        assert {"America/Toronto", "America/Vancouver"} <= names
    assert await world.flow.typed(world.person, "Narnia") == Retry("setup.timezone_unknown")
    reloaded = await world.reload()
    assert reloaded.profile.country == "GB" and reloaded.profile.timezone is None
    assert reloaded.state == SetupState("timezone", ONBOARDING).encode()  # still asking


async def test_a_local_way_of_writing_the_time_is_taken(world: World) -> None:
    for typed, stored in (("20h30", "20:30"), ("20 Uhr", "20:00"), ("às 21h", "21:00")):
        await world.at("time")
        assert await world.flow.typed(world.person, typed) == TimeSet(stored, paused=False)


async def test_a_typed_time_turns_check_ins_on_and_a_pause_stays(world: World) -> None:
    await world.at("time")
    assert await world.flow.typed(world.person, "half past twelve?!") == Retry("setup.time_unknown")
    world.person.profile.part(CheckinPrefs).paused = True
    assert await world.flow.typed(world.person, "7:30") == TimeSet("07:30", paused=True)
    profile = (await world.reload()).profile
    assert (
        profile.part(CheckinPrefs).daily_time,
        profile.part(CheckinPrefs).daily_enabled,
        profile.part(CheckinPrefs).paused,
    ) == ("07:30", True, True)


async def test_text_at_a_button_step_asks_for_the_buttons(world: World) -> None:
    await world.at("safety")
    assert await world.flow.typed(world.person, "yes") == Retry("setup.use_buttons")
    world.person.state = ""
    assert await world.flow.typed(world.person, "hello") == Retry("setup.use_buttons")


# --- changes --------------------------------------------------------------------------


async def test_a_new_country_drops_a_zone_that_is_not_its_own(world: World) -> None:
    world.person.profile.country, world.person.profile.timezone = "DE", "Europe/Berlin"
    assert await world.flow.set_country(world.person, "GB", SETTINGS) == CountrySet("GB", True)
    assert (await world.reload()).profile.timezone is None


async def test_the_same_country_keeps_its_zone_in_settings(world: World) -> None:
    world.person.profile.country, world.person.profile.timezone = "DE", "Europe/Berlin"
    assert await world.flow.set_country(world.person, "DE", SETTINGS) == CountrySet("DE", False)
    assert (await world.reload()).profile.timezone == "Europe/Berlin"


async def test_forged_zone_and_time_buttons_change_nothing(world: World) -> None:
    assert await world.flow.set_zone(world.person, "Mars/Olympus") is None
    assert await world.flow.set_time(world.person, "25:99") is None
    profile = (await world.reload()).profile
    assert (
        profile.timezone,
        profile.part(CheckinPrefs).daily_time,
        profile.part(CheckinPrefs).daily_enabled,
    ) == (None, None, False)


async def test_an_unserved_language_is_refused(world: World) -> None:
    assert not await world.flow.set_language(world.person, "xx")
    assert await world.flow.set_language(world.person, "de")
    person = await world.reload()
    assert (person.profile.language, person.state) == ("de", "")


async def test_the_safety_buttons_act_only_while_the_question_waits(world: World) -> None:
    await world.at("time")
    assert await world.flow.safety(world.person, "discreet") is Safety.STALE
    assert not (await world.reload()).profile.discreet
    await world.at("safety")
    assert await world.flow.safety(world.person, "yes") is Safety.ADVICE
    assert await world.flow.safety(world.person, "discreet") is Safety.DISCREET
    p = (await world.reload()).profile
    assert (p.part(SetupPrefs).shared_device, p.discreet, p.neutral_wording, p.silent) == (
        True,
        True,
        True,
        True,
    )


async def test_a_toggle_sets_the_value_its_button_names(world: World) -> None:
    toggled = await world.flow.toggle(world.person, "pause:on")
    assert toggled == Toggled("pause", schedule=True, wording=False)
    assert await world.flow.toggle(world.person, "pause:on") is not None  # a double tap
    assert (await world.reload()).profile.part(CheckinPrefs).paused
    assert await world.flow.toggle(world.person, "neutral:on") == Toggled("neutral", False, True)
    assert await world.flow.toggle(world.person, "onboarded:on") is None
    assert await world.flow.toggle(world.person, "pause:maybe") is None


async def test_a_day_button_turns_that_day_off_and_on(world: World) -> None:
    assert await world.flow.toggle_day(world.person, "sun")
    assert (await world.reload()).profile.part(CheckinPrefs).daily_days == (0, 1, 2, 3, 4, 5)
    assert await world.flow.toggle_day(world.person, "sun")
    assert (await world.reload()).profile.part(CheckinPrefs).daily_days == (0, 1, 2, 3, 4, 5, 6)
    assert not await world.flow.toggle_day(world.person, "someday")


async def test_finishing_onboarding_clears_the_step(world: World) -> None:
    await world.flow.finish_onboarding(world.person)
    person = await world.reload()
    assert person.profile.onboarded and person.state == ""
