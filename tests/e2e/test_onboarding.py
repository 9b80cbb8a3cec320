"""Onboarding, settings and restarts, through the emulator with the real Application."""

from __future__ import annotations

from bot.features.checkins.prefs import CheckinPrefs
from tests.helpers.bot import USER, BotUnderTest, buttons_of


async def test_start_with_buttons_to_the_end(bot: BotUnderTest) -> None:
    await bot.send("/start")
    welcome = await bot.next()
    assert "not a therapist" in (welcome.text or "")
    assert "/forget" in (welcome.text or "")
    assert '"help"' in (welcome.text or "")
    ask = await bot.next(containing="Which country")
    assert ("Germany", "cty:DE") in buttons_of(ask)
    await bot.press(ask, "Germany")
    zone = await bot.next(containing="time zone to")  # one zone: set without asking
    assert "Berlin" in (zone.text or "") and "Europe/" not in (zone.text or "")
    ask_time = await bot.next(containing="check-in once a day")
    await bot.press(ask_time, "18:00")
    safety = await bot.next(containing="Could someone else read")
    await bot.press(safety, "Yes, maybe")
    advice = await bot.next(containing="passcode")
    assert "draw attention" in (advice.text or "")
    await bot.press(advice, "Turn on discreet mode")
    await bot.next(containing="Discreet mode, neutral wording")
    await bot.next(containing="All set")
    person = await bot.services.people.load(USER)
    assert person is not None
    p = person.profile
    daily = p.part(CheckinPrefs)
    assert (p.country, p.timezone, daily.daily_time, daily.daily_enabled) == (
        "DE",
        "Europe/Berlin",
        "18:00",
        True,
    )
    assert p.discreet and p.neutral_wording and p.onboarded


async def test_start_with_typed_answers(bot: BotUnderTest) -> None:
    await bot.send("/start")
    await bot.next(containing="Which country")
    await bot.send("Narnia")
    await bot.next(containing="couldn't find that country")
    await bot.send("united states")
    await bot.next(containing="United States")
    zones = await bot.next(containing="Which time zone")
    assert any("Chicago" in label for label, _ in buttons_of(zones))
    await bot.send("Springfield-on-Mars")
    await bot.next(containing="couldn't match")
    await bot.send("los angeles")
    await bot.next(containing="Los Angeles")
    await bot.next(containing="check-in once a day")
    await bot.send("25:99")
    await bot.next(containing="didn't catch that time")
    await bot.send("7:45 pm")
    await bot.next(containing="at 7:45\u202fPM")  # in the United States, as CLDR writes it there
    safety = await bot.next(containing="Could someone else read")
    await bot.send("no")
    await bot.next(containing="tap one of the buttons")
    await bot.press(safety, "No")
    await bot.next(containing="All set")
    person = await bot.services.people.load(USER)
    assert person is not None
    assert (person.profile.country, person.profile.timezone) == ("US", "America/Los_Angeles")
    assert person.profile.part(CheckinPrefs).daily_time == "19:45"


async def test_settings_change_and_restart_keeps_them(bot: BotUnderTest) -> None:
    await bot.onboard()
    await bot.send("/settings")
    menu = await bot.next(containing="Your settings")
    assert "United Kingdom" in (menu.text or "") or "Britain" in (menu.text or "")
    await bot.press(menu, "Change time zone")
    await bot.find("Which time zone")  # asked in the panel itself
    await bot.send("Europe/Dublin")
    menu = await bot.next(containing="Your settings")
    assert "Dublin" in (menu.text or "")
    await bot.press(menu, "Turn neutral wording on")
    await bot.settle()
    await bot.restart()
    await bot.send("/settings")
    menu = await bot.next(containing="Your settings")
    assert "Dublin" in (menu.text or "")
    assert "Neutral wording: on" in (menu.text or "")


async def test_commands_menu_is_registered(bot: BotUnderTest) -> None:
    names = [c["command"] for c in bot.emu.commands]
    for expected in ("start", "settings", "help", "sos", "forget", "clear"):
        assert expected in names


async def test_unknown_text_gets_a_kind_reply(bot: BotUnderTest) -> None:
    await bot.onboard()
    await bot.send("what is this")
    reply = await bot.next()
    assert "/worksheets" in (reply.text or "")


async def test_message_before_start(bot: BotUnderTest) -> None:
    await bot.send("hello?")
    reply = await bot.next()
    assert "/start" in (reply.text or "")


async def test_settings_mid_onboarding_finishes_onboarding_first(bot: BotUnderTest) -> None:
    await bot.send("/start")
    await bot.next(containing="Which country")
    await bot.send("/settings")
    await bot.next(containing="finish setting up")
    await bot.next(containing="Which country")
