"""Old buttons change nothing (issue 23). After a step has moved on, every button of its
question (an old country list, an old "Skip for now", an old "12:30", an old worksheet
question's Skip or Next) is pressed again: the person's settings, state and place in the
worksheet stay exactly as they were, and one line says the button is from an earlier
question, with the step that waits shown again. So do an older copy of the question that
waits (the same step asked twice) and an old /settings panel's day toggles."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

from bot.emulator import SentMessage
from bot.features.checkins.prefs import CheckinPrefs
from bot.features.worksheets.service import WorksheetService
from bot.storage.worksheets import WorksheetStore
from tests.helpers.bot import USER, BotUnderTest, buttons_of

EARLIER = "That button is from an earlier question"
WS = "untangling_the_bond"


async def snapshot(bot: BotUnderTest) -> tuple[dict[str, Any], str]:
    person = await bot.services.people.load(USER)
    assert person is not None
    # Every setting as sealed, in every record (one layout: the save writes the records'):
    profile: dict[str, Any] = json.loads(person.profile.to_json())
    # Which message shows the panel, and the save counter: not settings.
    profile.get("parts", {}).get("setup", {}).pop("settings_message", None)
    profile.pop("revision", None)
    # Which message asks the step that waits (asking again sends a new one): not a setting.
    return profile, re.sub(r"^(setup:[a-z]+:[a-z]+):[0-9]+$", r"\1", person.state)


async def press_all_stale(bot: BotUnderTest, message: SentMessage, data: list[str]) -> None:
    """Press each button; each must change nothing and say so."""
    for value in data:
        before = await snapshot(bot)
        await bot.press(message, data=value)
        await bot.next(containing=EARLIER)
        await bot.settle()
        assert await snapshot(bot) == before, value


async def test_onboarding_and_settings_buttons_from_earlier_steps(bot: BotUnderTest) -> None:
    await bot.send("/start")
    countries = await bot.next(containing="Which country")
    old_countries = [d for _, d in buttons_of(countries)]
    assert "cty:skip" in old_countries and "cty:DE" in old_countries
    await bot.send("Ireland")  # typed: one clock, so the zone is set and the time is asked
    times = await bot.next(containing="check-in once a day")
    old_times = [d for _, d in buttons_of(times)]
    assert "time:12:30" in old_times and "time:off" in old_times
    await press_all_stale(bot, countries, old_countries)
    # The step that waits was asked again, and still takes its answer.
    await bot.find("check-in once a day")
    person = await bot.services.people.load(USER)
    assert person is not None
    assert (person.profile.country, person.profile.timezone) == ("IE", "Europe/Dublin")

    await bot.send("21:00")
    safety = await bot.next(containing="Could someone else read")
    await press_all_stale(bot, times, old_times)
    person = await bot.services.people.load(USER)
    assert person is not None and person.profile.part(CheckinPrefs).daily_time == "21:00"
    assert person.profile.part(CheckinPrefs).daily_enabled

    # Each stale press asked the safety question again: the newest copy is the live one.
    latest = [m for m in bot.emu.messages_to(USER) if "Could someone else" in (m.text or "")][-1]
    await bot.press(latest, data="safe:no")
    await bot.next(containing="All set")
    await bot.settle()
    await press_all_stale(bot, safety, ["safe:yes", "safe:discreet", "safe:later"])
    await press_all_stale(bot, countries, ["cty:GB", "cty:skip"])
    await press_all_stale(bot, times, ["time:07:00", "time:off"])

    # /settings: while it asks for the country, onboarding's old time buttons change
    # nothing (the country question stays the one that waits).
    await bot.send("/settings")
    panel = await bot.next(containing="Your settings")
    await bot.press(panel, data="set:country")
    await bot.settle()
    await press_all_stale(bot, times, ["time:12:30", "time:off"])
    person = await bot.services.people.load(USER)
    assert person is not None and person.state == "setup:country:settings"
    assert (
        person.profile.part(CheckinPrefs).daily_time == "21:00" and person.profile.country == "IE"
    )


async def test_worksheet_buttons_from_earlier_questions(bot: BotUnderTest) -> None:
    await bot.onboard()
    await bot.send("/worksheets")
    listing = await bot.next(containing="Worksheets")
    await bot.press(listing, data=f"ws:open:{WS}")
    intro = await bot.next(predicate=lambda m: any("Start" in t for t, _ in buttons_of(m)))
    await bot.press(intro, "Start")
    first = await bot.next(containing="Question 1 of")
    old_first = [d for _, d in buttons_of(first) if d.startswith(("ws:next", "ws:back"))]
    await bot.send("an answer to the first")
    saved = await bot.next(containing="Saved")
    old_saved = [d for _, d in buttons_of(saved) if d.startswith("ws:next")]
    await bot.press(saved, data=old_saved[0])
    await bot.next(containing="Question 2 of")
    await bot.settle()

    service = WorksheetService(
        WorksheetStore(bot.services.db),
        bot.services.content.worksheets,
        bot.services.clock,
        bot.services.keys,
    )
    sheet = bot.services.content.worksheets[WS]

    async def place() -> int:
        person = await bot.services.people.load(USER)
        assert person is not None
        row = await service.progress(person, sheet)
        assert row is not None
        return row.position

    assert await place() == 1
    for message, data in [(first, old_first), (saved, old_saved)]:
        for value in data:
            await bot.press(message, data=value)
            await bot.next(containing=EARLIER)
            await bot.next(containing="Question 2 of")  # where they are, shown again
            await bot.settle()
            assert await place() == 1, value
    answers = await service.answers(await bot.services.people.load(USER), WS)  # type: ignore[arg-type]
    assert [a.parts for a in answers.values()] == [("an answer to the first",)]


async def test_an_older_copy_of_the_question_that_waits_changes_nothing(bot: BotUnderTest) -> None:
    """The step was checked, not the message: a country list from an earlier asking of the
    same step still set the country (issue 23, left over)."""
    await bot.send("/start")
    first = await bot.next(containing="Which country")
    await bot.send("/start")  # asked again: a second copy of the same question
    await bot.next(containing="Which country")
    await press_all_stale(bot, first, ["cty:DE", "cty:skip"])
    person = await bot.services.people.load(USER)
    assert person is not None and person.profile.country is None
    latest = [m for m in bot.emu.messages_to(USER) if "Which country" in (m.text or "")][-1]
    await bot.press(latest, data="cty:DE")  # the copy that asks now still answers
    await bot.next(containing="check-in once a day")
    person = await bot.services.people.load(USER)
    assert person is not None and person.profile.country == "DE"


async def test_an_old_settings_panels_day_toggles_change_nothing(bot: BotUnderTest) -> None:
    await bot.onboard()
    await bot.send("/settings")
    panel = await bot.next(containing="Your settings")
    await bot.press(panel, data="set:days")
    await bot.find("Which days")
    bot.clock.advance(timedelta(hours=49))  # too old for Telegram to delete: it stays
    await bot.send("/settings")
    await bot.next(containing="Your settings")
    await bot.settle()
    await press_all_stale(bot, panel, ["day:mon", "day:sun", "day:done"])
    person = await bot.services.people.load(USER)
    assert person is not None
    days = list(person.profile.part(CheckinPrefs).daily_days)
    # The panel that shows now still toggles.
    current = [m for m in bot.emu.messages_to(USER) if "day:" in str(m.reply_markup)][-1]
    assert current.message_id != panel.message_id
    await bot.press(current, data="day:mon")
    await bot.settle()
    person = await bot.services.people.load(USER)
    assert person is not None and list(person.profile.part(CheckinPrefs).daily_days) != days
