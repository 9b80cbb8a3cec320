"""/nocontact can begin on an earlier day (issue 23): picked from the last two weeks, or
typed after the command the way the person writes dates. Day 1 is the day chosen."""

from __future__ import annotations

from tests.helpers.bot import BotUnderTest, buttons_of

# The tests' clock starts on Monday 30 November 2026, 09:00 UTC (London: the same).


async def test_a_count_picked_from_an_earlier_day(bot: BotUnderTest) -> None:
    await bot.onboard()
    await bot.send("/nocontact")
    off = await bot.next(containing="count the days")
    await bot.press(off, "It began earlier")
    picker = await bot.find("Which day was day 1?")
    labels = [label for label, _ in buttons_of(picker)]
    assert labels[0] == "Yesterday"
    assert "Wed 25 Nov" in labels, labels
    yesterday = buttons_of(picker)[0][1]
    await bot.press(picker, "Wed 25 Nov")
    await bot.find("Counting from 25 November 2026. Today is day 6.")
    await bot.send("/nocontact")
    await bot.next(containing="Today is day 6 of no contact")
    # The picker's buttons pressed again (a client still showing it): nothing new starts.
    await bot.press(picker, data=yesterday)
    await bot.settle()
    await bot.send("/nocontact")
    await bot.next(containing="Today is day 6 of no contact")


async def test_a_count_typed_the_local_way(bot: BotUnderTest) -> None:
    await bot.onboard()
    await bot.send("/nocontact 21.11.")
    await bot.next(containing="Counting from 21 November 2026. Today is day 10.")


async def test_a_count_typed_in_words(bot: BotUnderTest) -> None:
    await bot.onboard()
    await bot.send("/nocontact 20 November")
    await bot.next(containing="Today is day 11.")


async def test_a_day_not_understood_offers_the_picker(bot: BotUnderTest) -> None:
    await bot.onboard()
    await bot.send("/nocontact sometime")
    shown = await bot.next(containing="I couldn't read that")
    assert "Which day was day 1?" in (shown.text or "")
    assert any(label == "Yesterday" for label, _ in buttons_of(shown))
    await bot.send("/nocontact")
    await bot.next(containing="count the days")  # nothing was started
