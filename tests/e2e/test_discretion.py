"""Issue 13, discretion under watch: the panic word from every state leaves only the decoy,
nothing stored holds the word, check-ins stop in cover and resume after, a crisis word in
cover still gets the lines, and a neutral person's menu has no tell-tale words."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest

from bot.emulator import SentMessage
from bot.features.discretion.prefs import DiscretionPrefs
from tests.helpers.bot import USER, BotUnderTest, buttons_of
from tests.helpers.discretion import (
    BACK,
    has_button,
    panic,
    set_words,
    settings_menu,
    sweep,
)
from tests.helpers.telltales import Telltales, read_rows


def only_decoy_left(bot: BotUnderTest, decoy: SentMessage) -> None:
    assert bot.emu.visible_ids(USER) == [decoy.message_id]
    assert decoy.reply_markup is None


async def test_panic_from_idle_leaves_only_the_decoy_and_stores_no_word(
    bot: BotUnderTest, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    await bot.onboard()
    await set_words(bot, back=BACK, theme="recipe")
    await bot.send("a note about my day")
    await bot.next()
    await bot.send("/worksheets")
    await bot.next(containing="Worksheets")
    await bot.settle()
    assert len(bot.emu.visible_ids(USER)) > 8
    decoy = await panic(bot, theme="recipe")
    only_decoy_left(bot, decoy)
    # The words went into the chat twice (set, used) and were never stored or logged.
    data_dir = bot.settings.data_dir
    person = await bot.services.people.load(USER)
    assert (
        person is not None
        and person.profile.cover
        and person.profile.part(DiscretionPrefs).panic_digest
    )
    await bot.stop()
    for path in data_dir.iterdir():
        if path.is_file():
            blob = path.read_bytes().lower()
            for word in (b"blueberry", b"pancake", b"violet", b"harbour", b"bluebery"):
                assert word not in blob, path.name
    for word in ("lueberry", "ancake", "violet", "harbour", "BLUEBERY"):
        assert word not in caplog.text


async def test_panic_from_a_worksheet_question_and_a_settings_step(bot: BotUnderTest) -> None:
    await bot.onboard()
    await set_words(bot, back=BACK)
    await bot.send("/worksheets")
    listing = await bot.next(containing="Worksheets")
    await bot.press(listing, data="ws:open:bond_or_love")
    intro = await bot.next(predicate=lambda m: any("Start" in b for b, _ in buttons_of(m)))
    await bot.press(intro, "Start")
    await bot.next(containing="Question 1 of")
    decoy = await panic(bot)
    only_decoy_left(bot, decoy)
    # Nothing was saved as an answer, and the worksheet waits where it was.
    rows = await bot.services.db.fetch_all("SELECT * FROM answer_parts")
    assert rows == []
    await bot.send(BACK)
    await bot.next(containing="Welcome back")
    await bot.settle()
    person = await bot.services.people.load(USER)
    assert person is not None and not person.profile.cover and person.state == ""
    # The return word outside cover only leaves the chat: never a journal entry.
    stray = await bot.send(BACK)
    await bot.settle()
    assert stray in bot.emu.deleted_ids(USER) and bot.unread() == []
    journal = await bot.services.db.fetch_one("SELECT COUNT(*) AS n FROM journal")
    assert journal is not None and journal["n"] == 0
    # A settings step waiting for a typed country.
    menu = await settings_menu(bot)
    await bot.press(menu, data="set:country")
    await bot.find("Which country")  # the panel itself asks
    decoy = await panic(bot)
    only_decoy_left(bot, decoy)
    person = await bot.services.people.load(USER)
    assert person is not None and person.profile.country == "GB" and person.state == ""


async def test_cover_answers_as_the_decoy_and_crisis_words_still_get_the_lines(
    bot: BotUnderTest,
) -> None:
    await bot.onboard()
    await set_words(bot, back=BACK)
    await panic(bot)
    await bot.send("what is this")
    reply = await bot.next()
    assert "help" not in (reply.text or "").lower()
    await bot.send("/settings")
    await bot.next()
    await bot.send("/start")  # a return word is set: /start keeps the cover
    welcome = await bot.next()
    assert "Steady" not in (welcome.text or "")
    person = await bot.services.people.load(USER)
    assert person is not None and person.profile.cover
    await bot.send("help he is here")
    lines = await bot.next(containing="999")
    assert lines.reply_markup is not None  # [Clear this from the chat] and the rest
    await bot.send(photo=True)
    await bot.next()
    assert bot.services.cover.in_cover(person.person_id)
    # The cover survives a restart.
    await bot.restart()
    await bot.send("hello")
    again = await bot.next()
    assert "Steady" not in (again.text or "")
    await bot.send(BACK)
    await bot.next(containing="Welcome back")
    await bot.send("/settings")
    await bot.next(predicate=has_button("dsc:menu"))


async def test_start_ends_the_cover_when_no_return_word_is_set(bot: BotUnderTest) -> None:
    await bot.onboard()
    await set_words(bot)
    await panic(bot)
    await bot.send("nice")
    await bot.next()
    decoy = await panic(bot)  # again, in cover: a fresh decoy stands alone
    only_decoy_left(bot, decoy)
    await bot.send("/start")
    await bot.next(containing="Welcome back")
    await bot.settle()
    person = await bot.services.people.load(USER)
    assert person is not None and not person.profile.cover


async def test_check_ins_stop_in_cover_and_resume_after(bot: BotUnderTest) -> None:
    await bot.onboard()
    menu = await settings_menu(bot)
    await bot.press(menu, data="set:time")
    ask = await bot.find("What time would you like")  # the panel itself asks
    await bot.press(ask, data="time:07:30")
    await bot.settle()
    await set_words(bot, back=BACK)
    # A check-in arrives the next morning; the panic word takes it away too.
    bot.clock.set(datetime(2026, 12, 1, 7, 30, tzinfo=UTC))
    await bot.dispatcher.run_once()
    prompt = await bot.next(predicate=lambda m: "Remind me" in str(m.reply_markup))
    await bot.settle()
    decoy = await panic(bot)
    only_decoy_left(bot, decoy)
    assert prompt.message_id in bot.emu.deleted_ids(USER)
    # Next morning, in cover: nothing is sent, the day is skipped, not missed.
    bot.clock.set(datetime(2026, 12, 2, 7, 30, tzinfo=UTC))
    report = await bot.dispatcher.run_once()
    assert report.sent == 0 and report.skipped == 1
    assert bot.unread() == []
    await bot.send(BACK)
    await bot.next(containing="Welcome back")
    await bot.settle()
    bot.clock.set(datetime(2026, 12, 3, 7, 30, tzinfo=UTC))
    report = await bot.dispatcher.run_once()
    assert report.sent == 1
    await bot.next(predicate=lambda m: "Remind me" in str(m.reply_markup))


async def test_erase_on_panic_keeps_the_cover_and_onboarding_panics_too(
    bot: BotUnderTest,
) -> None:
    await bot.onboard()
    await set_words(bot, back=BACK, erase=True)
    await bot.send("a note about my day")
    await bot.next()
    await bot.settle()
    decoy = await panic(bot)
    only_decoy_left(bot, decoy)
    journal = await bot.services.db.fetch_one("SELECT COUNT(*) AS n FROM journal")
    assert journal is not None and journal["n"] == 0
    person = await bot.services.people.load(USER)
    assert person is not None and person.profile.cover and not person.profile.onboarded
    await bot.restart()
    await bot.send(BACK)
    await bot.next(containing="Welcome back")
    # Starting afresh: onboarding, and the panic word still works in it.
    await bot.send("/start")
    await bot.next(containing="Which country")
    decoy = await panic(bot)
    only_decoy_left(bot, decoy)


async def test_the_menu_of_a_neutral_chat_has_no_tell_tales(bot: BotUnderTest) -> None:
    await bot.onboard()
    menu = await settings_menu(bot)
    await bot.press(menu, data="set:neutral:on")
    await bot.settle()
    scope = {"type": "chat", "chat_id": USER}
    commands = bot.emu.commands_for(scope)
    assert len(commands) >= 10
    telltales = Telltales(read_rows())  # all seven languages, both levels
    for command in commands:
        assert telltales.found(command["description"]) == [], command
    menu = await settings_menu(bot)
    await bot.press(menu, data="set:neutral:off")
    await bot.settle()
    assert bot.emu.commands_for(scope) == []


async def test_refused_words_are_explained_and_deleted(bot: BotUnderTest) -> None:
    await bot.onboard()
    menu = await settings_menu(bot)
    await bot.press(menu, data="dsc:panic")
    await bot.settle()
    typed = await bot.send("good night")
    await bot.next(containing="often send on its own")
    typed_again = await bot.send("settings")
    await bot.next(containing="name of a command")
    await bot.settle()
    assert {typed, typed_again} <= bot.emu.deleted_ids(USER)
    person = await bot.services.people.load(USER)
    assert person is not None and person.profile.part(DiscretionPrefs).panic_digest is None
    bot.clock.advance(timedelta(minutes=1))


def caption_of(message: SentMessage) -> str:
    assert message.document is not None
    return message.document.caption or ""


async def write_a_note(bot: BotUnderTest) -> None:
    await bot.send("/worksheets")
    listing = await bot.next(containing="Worksheets")
    await bot.press(listing, data="ws:open:bond_or_love")
    intro = await bot.next(predicate=lambda m: any("Start" in b for b, _ in buttons_of(m)))
    await bot.press(intro, "Start")
    await bot.next(containing="Question 1 of")
    await bot.send("an answer of mine")
    await bot.next(containing="Saved")
    await bot.settle()


async def test_exports_can_be_removed_and_go_by_themselves_in_discreet_mode(
    bot: BotUnderTest,
) -> None:
    await bot.onboard()
    await write_a_note(bot)
    await bot.send("/export")
    doc = await bot.next(predicate=lambda m: m.document is not None)
    assert "downloads" in caption_of(doc)
    await bot.press(doc, "Remove this file from the chat")
    await bot.settle()
    assert doc.message_id in bot.emu.deleted_ids(USER)
    # Discreet mode: the file leaves after a few minutes, restarts or not, unless kept.
    menu = await settings_menu(bot)
    await bot.press(menu, data="set:discreet:on")
    await bot.settle()
    await bot.send("/export")
    gone = await bot.next(predicate=lambda m: m.document is not None)
    assert "Keep it" in caption_of(gone)
    await bot.send("/export")
    kept = await bot.next(predicate=lambda m: m.document is not None)
    await bot.press(kept, "Keep it")
    await bot.restart()
    bot.clock.advance(timedelta(minutes=4))
    await sweep(bot)
    assert gone.message_id not in bot.emu.deleted_ids(USER)
    bot.clock.advance(timedelta(minutes=2))
    await sweep(bot)
    assert gone.message_id in bot.emu.deleted_ids(USER)
    assert kept.message_id not in bot.emu.deleted_ids(USER)


async def test_confirmations_remove_themselves_and_review_pages_hide(bot: BotUnderTest) -> None:
    await bot.onboard()
    await bot.send("/clear")
    done = await bot.next(containing="Cleared")
    await bot.settle()
    bot.clock.advance(timedelta(seconds=61))
    await sweep(bot)
    assert done.message_id in bot.emu.deleted_ids(USER)
    await write_a_note(bot)
    # [Hide] (on review pages, test_worksheets.py) takes its message out at once.
    saved = next(m for m in bot.emu.messages_to(USER) if "Saved" in (m.text or ""))
    await bot.press(saved, data="tidy:hide")
    await bot.settle()
    assert saved.message_id in bot.emu.deleted_ids(USER)


async def test_sensitive_safety_plan_answers_leave_the_chat_in_any_mode(
    bot: BotUnderTest,
) -> None:
    await bot.onboard()
    sheet = bot.services.content.worksheets["safety_plan"]
    position = next(i for i, q in enumerate(sheet.questions) if q.sensitive)
    person = await bot.services.people.load(USER)
    assert person is not None and not person.profile.discreet
    await bot.send("/worksheets")
    listing = await bot.next(containing="Worksheets")
    await bot.press(listing, data="ws:open:safety_plan")
    intro = await bot.next(predicate=lambda m: any("Start" in b for b, _ in buttons_of(m)))
    assert "whatever your settings" in (intro.text or "")
    await bot.press(intro, "Start")
    question = await bot.next(containing="Question 1 of")
    for _ in range(position):
        await bot.press(question, "Skip")
        question = await bot.next(containing="Question")
    assert "somewhere only you know" in (question.text or "")
    typed = await bot.send("the blue place")
    await bot.next(containing="Saved")
    await bot.settle()
    assert typed in bot.emu.deleted_ids(USER)
    assert question.message_id not in bot.emu.deleted_ids(USER)
    rows = await bot.services.db.fetch_all("SELECT * FROM answer_parts")
    assert len(rows) == 1


async def test_the_privacy_offer_says_what_it_turns_on_and_works_once(bot: BotUnderTest) -> None:
    await bot.send("/start")
    ask = await bot.next(containing="Which country")
    await bot.press(ask, data="cty:GB")
    ask_time = await bot.next(containing="check-in once a day")
    await bot.press(ask_time, data="time:off")
    safety = await bot.next(containing="Could someone else read")
    await bot.press(safety, data="safe:yes")
    offer = await bot.next(containing="silent check-ins")
    await bot.press(offer, data="safe:discreet")
    await bot.next(containing="All set")
    await bot.settle()
    # Once read, the welcome and the questions are gone; the offer's buttons do nothing now.
    visible = bot.emu.visible_ids(USER)
    assert ask.message_id not in visible and safety.message_id not in visible
    commands = bot.emu.commands_for({"type": "chat", "chat_id": USER})
    assert commands, "discreet mode sets the neutral menu for this chat"
    # Someone who said "Not now": pressing the old offer again does nothing.
    other = USER + 1
    await bot.send("/start", user=other)
    ask = await bot.next(other, containing="Which country")
    await bot.press(ask, data="cty:GB", user=other)
    ask_time = await bot.next(other, containing="check-in once a day")
    await bot.press(ask_time, data="time:off", user=other)
    safety = await bot.next(other, containing="Could someone else read")
    await bot.press(safety, data="safe:yes", user=other)
    offer = await bot.next(other, containing="silent check-ins")
    await bot.press(offer, data="safe:later", user=other)
    await bot.next(other, containing="All set")
    await bot.press(offer, data="safe:discreet", user=other)
    await bot.settle()
    person = await bot.services.people.load(other)
    assert person is not None and not person.profile.discreet
    # Nothing changed, and one line says why (issue 23), nothing more.
    assert [m.text for m in bot.unread(other)] == [
        bot.services.content.texts("fallback.earlier_button")
    ]
    assert offer.reply_markup is None
