"""The time-zone question understands what people type and labels its buttons in words."""

from __future__ import annotations

import pytest

from tests.helpers.bot import USER, BotUnderTest, buttons_of


@pytest.mark.parametrize(
    ("typed", "zone"),
    [("Seattle", "America/Los_Angeles"), ("EST", "America/New_York"), ("Pacific", None)],
)
async def test_a_us_person_names_their_zone(
    bot: BotUnderTest, typed: str, zone: str | None
) -> None:
    await bot.send("/start")
    await bot.next(containing="Which country")
    await bot.send("United States")
    zones = await bot.next(containing="Which time zone")
    labels = [label for label, _ in buttons_of(zones)]
    assert "Pacific: Los Angeles, Seattle" in labels
    assert not any("(" in label for label in labels)  # no raw tz comments
    await bot.send(typed)
    expected = zone or "America/Los_Angeles"
    shown = await bot.next(containing="Time zone:")
    assert "/" not in (shown.text or "")  # the plain label, not the IANA name
    person = await bot.services.people.load(USER)
    assert person is not None and person.profile.timezone == expected


async def test_a_city_elsewhere_and_an_offset(bot: BotUnderTest) -> None:
    await bot.onboard()
    for typed, zone in (("Mumbai", "Asia/Kolkata"), ("UTC+5:30", "Asia/Kolkata")):
        await bot.send("/settings")
        menu = await bot.next(containing="Your settings")
        await bot.press(menu, "Change time zone")
        await bot.find("Which time zone")  # the panel itself asks
        await bot.send(typed)
        await bot.next(containing="Your settings")
        person = await bot.services.people.load(USER)
        assert person is not None and person.profile.timezone == zone
