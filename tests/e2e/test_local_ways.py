"""Issue 23: onboarding in a person's own way of writing. A country typed at the time-zone
question offers that country's zones (in the person's language), and a time written the
local way ("9 de la noche", "20h30", "20 Uhr") is the check-in time."""

from __future__ import annotations

from bot.features.checkins.prefs import CheckinPrefs
from bot.geo import lookup as geo
from tests.helpers.bot import USER, BotUnderTest, buttons_of


async def test_a_country_at_the_zone_question_and_a_local_time(bot: BotUnderTest) -> None:
    spanish = bot.services.content.locales["es"].texts
    bot.emu.user_sends(USER, "/start", language_code="es-MX")
    ask = await bot.next(predicate=lambda m: any(d.startswith("cty:") for _, d in buttons_of(m)))
    bot.emu.user_presses(USER, ask.message_id, "cty:US")
    await bot.next(predicate=lambda m: any(d.startswith("tz:") for _, d in buttons_of(m)))
    bot.emu.user_sends(USER, "Canadá", language_code="es-MX")
    lead = spanish("setup.ask_timezone_country", country="Canadá")
    zones = await bot.next(containing=lead)
    offered = {d.removeprefix("tz:") for _, d in buttons_of(zones)}
    assert {"America/Toronto", "America/Vancouver", "America/Halifax"} <= offered
    labels = [label for label, _ in buttons_of(zones)]
    assert geo.zone_label("America/Vancouver", "es", "CA") in labels  # in Spanish (CLDR)
    bot.emu.user_presses(USER, zones.message_id, "tz:America/Vancouver")
    await bot.next(predicate=lambda m: any(d.startswith("time:") for _, d in buttons_of(m)))
    bot.emu.user_sends(USER, "a las 9 de la noche", language_code="es-MX")
    await bot.next(predicate=lambda m: any(d.startswith("safe:") for _, d in buttons_of(m)))
    person = await bot.services.people.load(USER)
    assert person is not None
    assert (person.profile.country, person.profile.timezone) == ("US", "America/Vancouver")
    assert (
        person.profile.part(CheckinPrefs).daily_time,
        person.profile.part(CheckinPrefs).daily_enabled,
    ) == ("21:00", True)


async def test_settings_take_a_time_written_the_german_way(bot: BotUnderTest) -> None:
    await bot.onboard()
    await bot.send("/settings")
    menu = await bot.next(predicate=lambda m: any(d == "set:time" for _, d in buttons_of(m)))
    await bot.press(menu, data="set:time")
    await bot.find("What time would you like")
    await bot.send("um 20 Uhr")
    await bot.settle()
    person = await bot.services.people.load(USER)
    assert person is not None and person.profile.part(CheckinPrefs).daily_time == "20:00"
