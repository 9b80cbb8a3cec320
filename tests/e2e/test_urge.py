"""Riding the wave, end to end: /urge, the held draft, the check-back 20 minutes later
(across a restart, and not for a paused person), the draft offered back the next day,
My reasons, no-contact days, the pull-back offer in seven languages and /progress.

The due job is paused here (`pause_due_job`) and each test runs a pass with `run_due`, so what
is sent depends only on the ManualClock.
"""

from __future__ import annotations

import io
import struct
import zlib
from datetime import UTC, datetime, timedelta

import pytest

from bot.features.checkins.prefs import CheckinPrefs
from bot.features.progress.chart import ChartLabels, plot_data
from bot.features.progress.drawing import render_png
from tests.helpers.bot import START_SECONDS, USER, BotUnderTest, buttons_of, shared_content
from tests.helpers.daily import join, prompts_to
from tests.helpers.daily import run as run_daily
from tests.helpers.urge import (
    CHECK_BACK,
    STRENGTH,
    log_urge,
    pause_due_job,
    press_and_read,
    run_due,
    through_the_flow,
)

LABELS = ChartLabels.from_texts(shared_content().texts, "en_GB")  # the UK person the tests onboard
OFFER = "Would you like to take the next few minutes with me"


async def test_the_whole_flow_and_the_check_back(bot: BotUnderTest) -> None:
    await bot.onboard()
    pause_due_job(bot)
    await through_the_flow(bot)
    bot.clock.advance(timedelta(minutes=19))
    await run_due(bot)
    assert not [m for m in bot.unread() if CHECK_BACK in (m.text or "")]
    bot.clock.advance(timedelta(minutes=2))
    await run_due(bot)
    ask = await bot.next(containing=CHECK_BACK)
    two = buttons_of(ask)[2][1]
    await bot.press(ask, "3")
    compare = await bot.next(containing="Before: 8")
    assert "Now: 3" in (compare.text or "")
    assert "It came down" in (compare.text or "")
    # Asked once only: a second pass, and a second press, change nothing.
    await run_due(bot)
    await bot.press(ask, data=two)  # its buttons are gone; an old client may still send it
    await bot.next(containing="That check-in has passed")
    assert not [m for m in bot.unread() if CHECK_BACK in (m.text or "")]


async def test_the_check_back_survives_a_restart(bot: BotUnderTest) -> None:
    await bot.onboard()
    pause_due_job(bot)
    await bot.send("/urge")
    ask = await bot.next(containing=STRENGTH)
    trigger = await press_and_read(bot, ask, "6", "What set it off")
    await bot.restart()  # the check-back lives in the database, not in a timer
    pause_due_job(bot)
    await bot.press(trigger, "Loneliness")
    await bot.next(containing="Naming it")
    bot.clock.advance(timedelta(minutes=21))
    await bot.restart()
    await run_due(bot)
    ask = await bot.next(containing=CHECK_BACK)
    await bot.press(ask, "6")
    compare = await bot.next(containing="Before: 6")
    assert "about the same" in (compare.text or "")


async def test_a_paused_person_gets_no_check_back(bot: BotUnderTest) -> None:
    await bot.onboard()
    pause_due_job(bot)
    await bot.send("/urge")
    ask = await bot.next(containing=STRENGTH)
    await press_and_read(bot, ask, "9", "What set it off")
    person = await bot.services.people.load(USER)
    assert person is not None
    person.profile.part(CheckinPrefs).paused = True
    await bot.services.people.save(person)
    bot.clock.advance(timedelta(minutes=25))
    await run_due(bot)
    bot.clock.advance(timedelta(hours=3))
    await run_due(bot)
    assert not [m for m in bot.emu.messages_to(USER) if CHECK_BACK in (m.text or "")]


async def test_neutral_and_silent_check_back(bot: BotUnderTest) -> None:
    await bot.onboard()
    pause_due_job(bot)
    person = await bot.services.people.load(USER)
    assert person is not None
    person.profile.neutral_wording = True
    person.profile.silent = True
    await bot.services.people.save(person)
    await bot.send("/urge")
    ask = await bot.next(containing=STRENGTH)
    await press_and_read(bot, ask, "7", "What set it off")
    bot.clock.advance(timedelta(minutes=20))
    await run_due(bot)
    check = await bot.next(containing="Checking in, as I said I would")
    assert (check.text or "").startswith("A hard moment\n")
    assert "pull" not in (check.text or "")
    assert check.disable_notification


async def test_the_held_draft_comes_back_the_next_day_and_can_be_deleted(
    bot: BotUnderTest,
) -> None:
    await bot.onboard()
    pause_due_job(bot)
    await through_the_flow(bot)
    person = await bot.services.people.load(USER)
    assert person is not None
    assert len(await bot.offers.urges.drafts(person)) == 1
    bot.clock.advance(timedelta(hours=12))  # later the same day: not yet
    await run_due(bot)
    assert not [m for m in bot.unread() if "Yesterday you wrote" in (m.text or "")]
    bot.clock.advance(timedelta(hours=13))
    await run_due(bot)
    offer = await bot.next(containing="Yesterday you wrote a message")
    assert [label for label, _ in buttons_of(offer)] == ["Read it", "Keep it", "Delete it"]
    await bot.press(offer, "Read it")
    shown = await bot.next(containing="It was never sent")
    assert "I miss you, can we talk" in (shown.text or "")
    assert shown.protect_content
    await bot.press(shown, "Delete it")
    await bot.find("Deleted. It's gone from here.")
    assert await bot.offers.urges.drafts(person) == []
    # Offered once only.
    bot.clock.advance(timedelta(days=1))
    await run_due(bot)
    offers = [m for m in bot.emu.messages_to(USER) if "Yesterday you wrote" in (m.text or "")]
    assert len(offers) == 1


async def test_my_reasons_written_once_shown_in_the_flow(bot: BotUnderTest) -> None:
    await bot.onboard()
    await bot.send("/reasons")
    none = await bot.next(containing="haven't written your reasons")
    await bot.press(none, "Write them")
    await bot.next(containing="Write your reasons")
    await bot.send("I sleep again. My friends are back.")
    await bot.next(containing="Kept, encrypted")
    await bot.send("/reasons")
    shown = await bot.next(containing="Your reasons, in your own words")
    assert "I sleep again" in (shown.text or "") and shown.protect_content
    await bot.press(shown, "Change them")
    await bot.next(containing="Write your reasons")
    await bot.send("I am safe now.")
    await bot.next(containing="Kept, encrypted")
    await bot.send("/urge")
    ask = await bot.next(containing=STRENGTH)
    trigger = await press_and_read(bot, ask, "5", "What set it off")
    offer = await press_and_read(bot, trigger, "Guilt", "I'll hold it")
    step = await press_and_read(bot, offer, "Not now", "Urges come in waves")
    menu = await press_and_read(bot, step, "That's enough for now", "What would help")
    await bot.press(menu, "My reasons")
    reasons = await bot.next(containing="I am safe now.")
    assert "I sleep again" not in (reasons.text or "")


async def test_no_contact_days_start_pause_reset(bot: BotUnderTest) -> None:
    await bot.onboard()
    await bot.send("/nocontact")
    off = await bot.next(containing="count the days")
    await bot.press(off, "Start counting")
    await bot.find("Day 1 starts today.")
    bot.clock.advance(timedelta(days=2))
    await bot.send("/nocontact")
    running = await bot.next(containing="Today is day 3 of no contact")
    await bot.press(running, "Pause the count")
    paused = await bot.find("Paused at day 3")
    bot.clock.advance(timedelta(days=3))
    await bot.send("/nocontact")
    status = await bot.next(containing="paused at day 3")
    await bot.press(status, "Resume the count")
    await bot.find("Resumed. Today is day 4.")
    await bot.send("/nocontact")
    running = await bot.next(containing="day 4")
    await bot.press(running, "Start again")
    confirm = await bot.find("Start again from day 1?")
    await bot.press(confirm, "Yes, start again")
    await bot.find("Starting again is part of it")
    # /settings has a plain row for it.
    await bot.send("/settings")
    menu = await bot.next(containing="Your settings")
    await bot.press(menu, "Day count")
    await bot.next(containing="Today is day 1 of no contact")
    assert paused is not None


PULL_BACK_SAMPLES = {
    "en": "I want to text him so badly",
    "de": "ich will ihm schreiben",
    "es": "quiero escribirle",
    "fr": "j'ai envie de lui envoyer un message",
    "it": "voglio scrivergli",
    "nl": "ik wil hem een appje sturen",
    "pt": "quero mandar mensagem para ele",
}


async def test_the_offer_comes_for_pull_back_words_in_each_language(bot: BotUnderTest) -> None:
    await bot.onboard()
    for language, text in PULL_BACK_SAMPLES.items():
        await bot.send(text)
        offer = await bot.next(containing=OFFER)
        assert "Yes, let's" in [label for label, _ in buttons_of(offer)], language
        # At most once a day: the same words again get no second offer.
        await bot.send(text)
        await bot.settle()
        assert not [m for m in bot.unread() if OFFER in (m.text or "")], language
        bot.clock.advance(timedelta(days=1))
    await bot.send("I miss her so much")
    offer = await bot.next(containing=OFFER)
    await bot.press(offer, "Yes, let's")
    await bot.next(containing=STRENGTH)


async def test_the_offer_can_be_turned_off_and_never_replaces_a_crisis_reply(
    bot: BotUnderTest,
) -> None:
    await bot.onboard()
    await bot.send("I want to text him, help, he is outside my door")
    await bot.next(containing="999")
    await bot.settle()
    assert not [m for m in bot.unread() if OFFER in (m.text or "")]
    await bot.send("I want to text him")
    offer = await bot.next(containing=OFFER)
    await bot.press(offer, "Don't offer this again")
    await bot.find("I won't offer it again")
    bot.clock.advance(timedelta(days=1))
    await bot.send("I want to text him")
    await bot.settle()
    assert not [m for m in bot.unread() if OFFER in (m.text or "")]
    # /settings brings it back.
    await bot.send("/settings")
    menu = await bot.next(containing="Your settings")
    await bot.press(menu, 'Offer "A hard moment" again')
    await bot.next(containing="I'll offer it again")
    await bot.send("I want to text him")
    await bot.next(containing=OFFER)


async def test_a_crisis_word_in_the_draft_is_kept_and_the_steps_wait(bot: BotUnderTest) -> None:
    await bot.onboard()
    pause_due_job(bot)
    await bot.send("/urge")
    ask = await bot.next(containing=STRENGTH)
    trigger = await press_and_read(bot, ask, "10", "What set it off")
    offer = await press_and_read(bot, trigger, "A message from them", "I'll hold it")
    await press_and_read(bot, offer, "Write it here", "as much or as little")
    await bot.send("without you I want to die")
    reply = await bot.next(containing="help is possible")
    await bot.settle()
    person = await bot.services.people.load(USER)
    assert person is not None
    (draft,) = await bot.offers.urges.drafts(person)
    assert draft.text == "without you I want to die"
    assert not [m for m in bot.unread() if "Urges come in waves" in (m.text or "")]
    reply = await bot.find("help is possible")
    await bot.press(reply, "Continue the hard moment steps")
    await bot.next(containing="Urges come in waves")


def png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    # Every chunk's CRC checks out: a whole, valid PNG, not just a header.
    stream = io.BytesIO(data[8:])
    while True:
        head = stream.read(8)
        length, kind = struct.unpack(">I4s", head)
        body = stream.read(length)
        (crc,) = struct.unpack(">I", stream.read(4))
        assert zlib.crc32(kind + body) == crc, kind
        if kind == b"IEND":
            break
    return struct.unpack(">II", data[16:24])


async def test_progress_sends_a_protected_png_with_every_point(bot: BotUnderTest) -> None:
    await bot.onboard()
    pause_due_job(bot)
    await bot.send("/progress")
    await bot.next(containing="nothing to show yet")
    await log_urge(bot, "9", later="4")
    bot.clock.advance(timedelta(days=3))
    await log_urge(bot, "7")
    bot.clock.advance(timedelta(days=2))
    await log_urge(bot, "5", later="2")
    await bot.send("/progress")
    chart = await bot.next(predicate=lambda m: m.photo is not None, timeout=START_SECONDS)
    assert chart.photo is not None and chart.protect_content
    assert png_size(chart.photo.data) == (1080, 810)
    assert chart.photo.caption == (
        "There isn't enough yet to compare these four weeks with the four before. "
        "That's fine; each hard moment you log makes the picture clearer."
    )
    person = await bot.services.people.load(USER)
    assert person is not None
    data, _ = await bot.offers.urges.progress(person)
    plotted = plot_data(data, LABELS)
    assert [s for _, s in plotted.urges] == [9, 7, 5]
    assert [(s, later) for _, s, later in plotted.follow_ups] == [(9, 4), (5, 2)]
    # Drawing is deterministic: the image sent is exactly the picture of these points.
    assert render_png(data, LABELS).png == chart.photo.data


async def test_the_check_in_offers_a_mood_tap_and_a_hard_moment(bot: BotUnderTest) -> None:
    await join(bot)
    bot.clock.set(datetime(2026, 12, 1, 7, 30, tzinfo=UTC))
    await run_daily(bot)
    (prompt,) = prompts_to(bot)
    await bot.press(prompt, "2")
    await bot.next(containing="Noted: 2 of 5")
    person = await bot.services.people.load(USER)
    assert person is not None
    moods = await bot.offers.urges.moods(person, bot.clock().date())
    assert [(m.day.isoformat(), m.rating) for m in moods] == [("2026-12-01", 2)]
    await bot.press(prompt, "A hard moment")
    await bot.next(containing=STRENGTH)
    # The check-in keeps its own buttons (snooze, skip, the mood) for later.
    assert "Remind me in an hour" in [label for label, _ in buttons_of(prompt)]


async def test_progress_in_the_worker_process_as_in_production(bot: BotUnderTest) -> None:
    bot.chart_mode = "process"
    await bot.restart()  # start-up spawns the worker and warms it up
    await bot.onboard()
    pause_due_job(bot)
    await log_urge(bot, "6", later="1")
    await bot.send("/progress")
    chart = await bot.next(predicate=lambda m: m.photo is not None, timeout=START_SECONDS)
    assert chart.photo is not None
    assert png_size(chart.photo.data) == (1080, 810)


async def test_forget_removes_every_urge_row(bot: BotUnderTest) -> None:
    await bot.onboard()
    pause_due_job(bot)
    await through_the_flow(bot)
    await bot.send("/nocontact")
    count = await bot.next(containing="count the days")
    await bot.press(count, "Start counting")
    await bot.press(count, data="mood:2026-11-30:3")
    await bot.next(containing="Noted: 3 of 5")
    tables = ("urges", "urge_drafts", "urge_notes", "moods")

    async def rows() -> list[int]:
        found = []
        for table in tables:
            row = await bot.services.db.fetch_one(f"SELECT COUNT(*) AS n FROM {table}")
            found.append(0 if row is None else int(row["n"]))
        return found

    assert await rows() == [1, 1, 1, 1]
    await bot.send("/forget")
    confirm = await bot.next(containing="Delete everything")
    await bot.press(confirm, data="forget:yes")
    await bot.settle()
    assert await rows() == [0, 0, 0, 0]
    # A check-back still due for someone forgotten sends nothing.
    bot.clock.advance(timedelta(minutes=30))
    await run_due(bot)
    assert not [m for m in bot.emu.messages_to(USER) if CHECK_BACK in (m.text or "")]


@pytest.mark.parametrize("neutral", [False, True])
async def test_the_no_contact_day_in_the_check_in_never_on_a_neutral_lock_screen(
    bot: BotUnderTest, neutral: bool
) -> None:
    await join(bot)  # check-ins at 07:30 London
    pause_due_job(bot)
    if neutral:
        person = await bot.services.people.load(USER)
        assert person is not None
        person.profile.neutral_wording = True
        await bot.services.people.save(person)
    await bot.send("/nocontact")
    off = await bot.next(containing="count the days")
    await bot.press(off, "Start counting")
    started = await bot.find("Day 1 starts today.")
    await bot.press(started, "Show it in my check-in")
    await bot.find("each daily check-in ends with the day of the count")
    bot.clock.set(datetime(2026, 12, 1, 7, 30, tzinfo=UTC))  # the next morning
    await run_daily(bot)
    (prompt,) = prompts_to(bot)
    if not neutral:
        assert (prompt.text or "").endswith("No contact: day 2")
        return
    assert "No contact" not in (prompt.text or "")
    await bot.press(prompt, "Show")
    shown = await bot.find("No contact: day 2")
    assert shown.message_id == prompt.message_id


async def test_a_check_in_reply_that_sounds_like_the_pull_is_offered_and_still_saved(
    bot: BotUnderTest,
) -> None:
    await join(bot)
    bot.clock.set(datetime(2026, 12, 1, 7, 30, tzinfo=UTC))
    await run_daily(bot)
    (prompt,) = prompts_to(bot)
    await bot.send("I miss him so much today", reply_to_message_id=prompt.message_id)
    await bot.next(containing=OFFER)
    await bot.next(containing="Saved to your journal")
    person = await bot.services.people.load(USER)
    assert person is not None
    assert (await bot.offers.journal.page(person, 0, 5)).total == 1


def _long_words(end: str) -> str:
    """One Telegram message's worth (4,096 UTF-16 units), every word numbered, `end` last."""
    words, n = "", 0
    while len(words) < 4096 - 40:
        words += f"w{n} "
        n += 1
    return (words + end).ljust(4096, ".")[:4096]


async def test_a_whole_message_of_reasons_or_a_held_draft_is_kept_and_shown_whole(
    bot: BotUnderTest,
) -> None:
    """Issue 27 (minor): reasons and held drafts were cut to 4,000 characters when stored,
    and shown cut to one message; a message can carry 4,096."""
    await bot.onboard()
    pause_due_job(bot)
    reasons = _long_words("last-reason-word")
    await bot.send("/reasons")
    none = await bot.next(containing="haven't written your reasons")
    await bot.press(none, "Write them")
    await bot.next(containing="Write your reasons")
    await bot.send(reasons)
    await bot.next(containing="Kept, encrypted")
    await bot.send("/reasons")
    first = await bot.next(containing="Your reasons, in your own words")
    last = await bot.next(containing="last-reason-word")
    assert not buttons_of(first) and [b for b, _ in buttons_of(last)] == ["Change them"]
    assert first.protect_content and last.protect_content
    shown = (first.text or "").split("\n\n", 1)[1] + " " + (last.text or "")
    assert shown.split() == reasons.split()
    # A held draft of the same length, read back the next day.
    draft = _long_words("last-draft-word")
    await bot.send("/urge")
    ask = await bot.next(containing=STRENGTH)
    trigger = await press_and_read(bot, ask, "5", "What set it off")
    offer = await press_and_read(bot, trigger, "Guilt", "I'll hold it")
    await press_and_read(bot, offer, "Write it here", "Write it here")
    await bot.send(draft)
    await bot.next(containing="I'm holding it, encrypted")
    await bot.next(containing="Urges come in waves")
    bot.clock.advance(timedelta(days=1, hours=1))
    await run_due(bot)
    back = await bot.next(containing="Yesterday you wrote a message")
    await bot.press(back, "Read it")
    opened = await bot.next(containing="It was never sent")
    rest = await bot.next(containing="last-draft-word")
    assert [b for b, _ in buttons_of(rest)] == ["Keep it", "Delete it"]
    held = (opened.text or "").split("\n\n", 1)[1] + " " + (rest.text or "")
    assert held.split() == draft.split()
