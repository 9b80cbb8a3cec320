"""Issue 27, finding 6 and its minor: nothing a scheduled job sends reaches a chat in the
panic cover (the urge flow's check-back and the held draft's offer back went straight to
Telegram, notification and all), and /urge in discreet mode leaves none of its words or
questions behind. Every job is walked (tests/helpers/jobs.py), so a job added later is held
to the same rule."""

from __future__ import annotations

from datetime import timedelta

from bot.features.discretion.service import CONFIRMATION_LIFETIME
from tests.helpers.bot import USER, BotUnderTest
from tests.helpers.discretion import BACK, panic, set_words
from tests.helpers.jobs import pause_every_job, run_every_job
from tests.helpers.urge import CHECK_BACK, STRENGTH, press_and_read, through_the_flow


async def test_no_scheduled_job_reaches_a_chat_in_cover(bot: BotUnderTest) -> None:
    await bot.onboard()
    pause_every_job(bot)
    await through_the_flow(bot)  # a check-back promised, a draft held for tomorrow
    await set_words(bot, back=BACK)
    decoy = await panic(bot)
    bot.skip_all()
    for step in (timedelta(minutes=21), timedelta(hours=25), timedelta(days=1)):
        bot.clock.advance(step)
        await run_every_job(bot)
        assert bot.unread() == [], [m.text for m in bot.unread()]
    assert bot.emu.visible_ids(USER) == [decoy.message_id]
    # Out of cover, the held draft is still offered (postponed, not lost); the check-back,
    # stale by now, is not.
    await bot.send(BACK)
    await bot.next(containing="Welcome back")
    bot.clock.advance(timedelta(days=1))
    await run_every_job(bot)
    await bot.next(containing="Yesterday you wrote a message")
    assert not [m for m in bot.unread() if CHECK_BACK in (m.text or "")]


async def test_urge_in_discreet_mode_leaves_no_words_or_questions(bot: BotUnderTest) -> None:
    await bot.onboard()
    pause_every_job(bot)
    person = await bot.services.people.load(USER)
    assert person is not None
    person.profile.discreet = True
    await bot.services.people.save(person)
    command = await bot.send("/urge")
    ask = await bot.next(containing=STRENGTH)
    trigger = await press_and_read(bot, ask, "8", "What set it off")
    typed_ask = await press_and_read(bot, trigger, "Something else", "In a few words")
    typed = await bot.send("his birthday photo came up")
    offer = await bot.next(containing="I'll hold it")
    write_ask = await press_and_read(bot, offer, "Write it here", "Write it here")
    draft = await bot.send("I miss you, can we talk")
    held = await bot.next(containing="I'm holding it, encrypted")
    await bot.next(containing="Urges come in waves")
    await bot.settle()
    gone = bot.emu.deleted_ids(USER)
    for message_id in (command, typed_ask.message_id, typed, write_ask.message_id, draft):
        assert message_id in gone
    # "Holding it" is read first, then goes by itself, as other confirmations do.
    assert held.message_id not in gone
    bot.clock.advance(timedelta(seconds=CONFIRMATION_LIFETIME + 1))
    await run_every_job(bot)
    assert held.message_id in bot.emu.deleted_ids(USER)
