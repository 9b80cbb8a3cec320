"""Worksheets end to end: answering, resuming, review, export, deletion, discretion, crisis."""

from __future__ import annotations

import dataclasses
import io
import logging
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest
from pypdf import PdfReader

from bot.content.worksheet_model import Worksheet
from bot.crypto import CryptoError
from bot.emulator import SentMessage
from bot.features.export import pdf_text
from bot.features.export import render as export
from bot.features.worksheets.prefs import WorksheetPrefs
from bot.storage.journal import JournalStore, journal_slot, new_entry_id
from bot.storage.worksheets import answer_slot
from tests.helpers.bot import USER, BotUnderTest, buttons_of
from tests.helpers.worksheets import (
    WS,
    answer,
    begin,
    has_button,
    labels,
    person_of,
    saved_answers,
    sheet,
    svc,
)

OTHER = "why_leaving_is_hard"


async def skip_to_end(
    bot: BotUnderTest, question: SentMessage, worksheet: Worksheet
) -> SentMessage:
    """Press Skip (or Next) on every remaining question; returns the closing message."""
    while True:
        await bot.press(question, data=buttons_of(question)[0][1])
        question = await bot.next()
        if "Question" not in (question.text or ""):
            assert worksheet.closing[:40] in (question.text or "")
            return question


async def test_a_whole_worksheet_with_answers_skips_and_back(bot: BotUnderTest) -> None:
    await bot.onboard()
    ws = sheet(bot)
    total = ws.question_count
    await bot.send("/worksheets")
    listing = await bot.next(containing="Worksheets")
    assert f"{ws.title} (not started)" in (listing.text or "")
    assert ("Bond or love?", f"ws:open:{WS}") in buttons_of(listing)

    q = await begin(bot)
    text = q.text or ""
    assert ws.sections[0].title in text and ws.sections[0].framing in text
    assert ws.questions[0].text in text and (ws.questions[0].hint or "") in text
    assert labels(q) == ["Skip", "Pause"]  # no Back on the first question
    saved = await answer(bot, "first answer")
    assert labels(saved) == ["Next", "Pause"]
    await bot.press(saved, "Next")
    q = await bot.next(containing=f"Question 2 of {total}")
    assert labels(q) == ["Skip", "Back", "Pause"]
    await bot.press(q, "Skip")
    q = await bot.next(containing="Question 3 of")
    await bot.press(q, "Back")
    q = await bot.next(containing="Question 2 of")
    assert "saved so far" not in (q.text or "")  # skipped: nothing to show
    saved = await answer(bot, "second, after going back")
    await bot.press(saved, "Next")
    q = await bot.next(containing="Question 3 of")
    for number in range(3, total):
        await bot.press(q, "Skip")
        q = await bot.next(containing=f"Question {number + 1} of {total}")
        if number + 1 == 5:  # the second section opens with its framing
            assert ws.sections[1].title in (q.text or "")
    saved = await answer(bot, "the last one")
    await bot.press(saved, "Next")
    closing = await bot.next(containing=ws.closing[:40])
    assert labels(closing) == ["Review answers", "Export", "Delete these answers"]

    assert await saved_answers(bot) == {
        ws.questions[0].id: ("first answer",),
        ws.questions[1].id: ("second, after going back",),
        ws.questions[-1].id: ("the last one",),
    }
    await bot.send("/worksheets")
    assert f"{ws.title} (finished)" in ((await bot.next(containing="Worksheets")).text or "")
    person = await person_of(bot)
    assert person.state == "" and person.profile.part(WorksheetPrefs).active_worksheet is None


async def test_several_messages_make_one_answer_and_edits_update_it(bot: BotUnderTest) -> None:
    await bot.onboard()
    await begin(bot)
    first = await bot.send("part one")
    saved = await bot.next(containing="Saved.")
    await bot.send("part two")
    edited = await bot.find("Saved (2 messages)")
    assert edited.message_id == saved.message_id
    await bot.send("part three")
    await bot.find("Saved (3 messages)")
    await bot.settle()
    assert bot.unread() == []  # one "Saved" message, edited in place

    await bot.edit(first, "part one, rewritten")
    await bot.settle()
    assert bot.unread() == []  # an edit is stored without a reply
    q0 = sheet(bot).questions[0].id
    assert await saved_answers(bot) == {q0: ("part one, rewritten", "part two", "part three")}


async def test_back_quotes_the_answer_new_text_adds_and_clear_removes(bot: BotUnderTest) -> None:
    await bot.onboard()
    await begin(bot)
    original = await bot.send("what I wrote first")
    saved = await bot.next(containing="Saved")
    await bot.press(saved, "Next")
    q2 = await bot.next(containing="Question 2 of")
    await bot.press(q2, "Back")
    view = await bot.next(containing="Question 1 of")
    text = view.text or ""
    assert "what I wrote first" in text and view.protect_content
    quote = [e for e in view.entities or [] if e["type"] == "blockquote"]
    assert [text[e["offset"] : e["offset"] + e["length"]] for e in quote] == ["what I wrote first"]
    assert labels(view) == ["Next", "Pause", "Clear this answer"]

    added = await bot.send("and something more")
    await bot.find("Saved (2 messages)")
    q0 = sheet(bot).questions[0].id
    assert await saved_answers(bot) == {q0: ("what I wrote first", "and something more")}

    await bot.press(view, "Clear this answer")
    fresh = await bot.next(containing="Question 1 of")
    assert "what I wrote first" not in (fresh.text or "") and labels(fresh) == ["Skip", "Pause"]
    assert {original, added, view.message_id} <= bot.emu.deleted_ids(USER)
    assert await saved_answers(bot) == {}


async def test_pause_restart_and_resume_days_later(bot: BotUnderTest) -> None:
    await bot.onboard()
    await begin(bot)
    saved = await answer(bot, "before the pause")
    await bot.press(saved, "Next")
    q2 = await bot.next(containing="Question 2 of")
    await bot.press(q2, "Pause")
    await bot.next(containing="Paused")
    await bot.send("just saying hello")
    await bot.next(containing="/resume to carry on")  # not taken as an answer while paused

    bot.clock.advance(timedelta(days=3))
    await bot.restart()
    await bot.send("/resume")
    q2 = await bot.next(containing="Question 2 of")
    assert "Picking up where you left off" in (q2.text or "")
    await answer(bot, "after the pause")
    ws = sheet(bot)
    assert await saved_answers(bot) == {
        ws.questions[0].id: ("before the pause",),
        ws.questions[1].id: ("after the pause",),
    }


async def test_two_worksheets_interleaved(bot: BotUnderTest) -> None:
    await bot.onboard()
    await begin(bot, WS)
    saved = await answer(bot, "bond one")
    await bot.press(saved, "Next")
    await bot.next(containing="Question 2 of 14")
    await begin(bot, OTHER)
    await answer(bot, "other one")

    await bot.send("/resume")  # the active one, with what is saved shown
    view = await bot.next(containing="Question 1 of 15")
    assert "other one" in (view.text or "")
    await bot.send("/worksheets")
    listing = await bot.next(containing="Worksheets")
    assert "Bond or love? (1 of 14)" in (listing.text or "")
    assert "Why leaving is hard (0 of 15)" in (listing.text or "")
    await bot.press(listing, "Bond or love?")
    await bot.next(containing="Question 2 of 14")
    await answer(bot, "bond two")

    person = await person_of(bot)
    person.profile.part(WorksheetPrefs).active_worksheet = None
    await bot.services.people.save(person)
    await bot.send("/resume")
    choice = await bot.next(containing="more than one")
    assert labels(choice) == ["Bond or love?", "Why leaving is hard"]
    await bot.press(choice, "Why leaving")
    await bot.next(containing="Question 1 of 15")

    bond = sheet(bot, WS)
    assert await saved_answers(bot, WS) == {
        bond.questions[0].id: ("bond one",),
        bond.questions[1].id: ("bond two",),
    }
    assert await saved_answers(bot, OTHER) == {sheet(bot, OTHER).questions[0].id: ("other one",)}


def parse_markdown(text: str) -> dict[str, str]:
    """Bold line (a question or prompt) -> the blockquote under it."""
    found: dict[str, str] = {}
    current: str | None = None
    quote: list[str] = []
    for line in [*text.splitlines(), "# end"]:
        if line.startswith((">", "> ")):
            quote.append(line[2:])
            continue
        if current is not None and quote:
            found[current] = "\n".join(quote)
        if line.startswith("**") and line.endswith("**"):
            current, quote = line[2:-2], []
        elif line.startswith("#"):
            current, quote = None, []
    return found


async def test_review_export_and_delete(bot: BotUnderTest) -> None:
    await bot.onboard()
    ws = sheet(bot)
    person = await person_of(bot)
    entry = new_entry_id()
    await JournalStore(bot.services.db).add(
        person.person_id,
        entry,
        "grounding_01",
        None,
        person.cipher.seal_text(journal_slot(entry), "a quiet morning"),
        int(bot.clock().timestamp()),
    )
    await begin(bot)
    await bot.send("first part")
    saved = await bot.next(containing="Saved")
    await bot.send("Zoë's second part — with “quotes” 🌱")
    await bot.press(saved, "Next")
    q = await bot.next(containing="Question 2 of")
    for _ in range(3):
        await bot.press(q, "Skip")
        q = await bot.next(containing="Question")
    saved = await answer(bot, "opening the second section")  # question 5
    closing = await skip_to_end(bot, saved, ws)

    await bot.press(closing, "Review answers")
    page = await bot.next(containing=ws.sections[0].title)
    assert page.protect_content and "first part" in (page.text or "")
    assert ws.questions[0].text in (page.text or "")
    assert labels(page) == ["Next section", "Done", "Hide"]
    await bot.press(page, "Next section")
    page = await bot.next(containing=ws.sections[1].title)
    assert "opening the second section" in (page.text or "") and labels(page) == ["Done", "Hide"]
    await bot.press(page, "Done")
    await bot.settle()
    assert bot.unread() == []

    await bot.send("/export")
    doc = await bot.next(predicate=lambda m: m.document is not None)
    assert doc.protect_content and doc.document is not None
    assert doc.document.filename == "notes-2026-11-30.md"
    parsed = parse_markdown(doc.document.data.decode())
    assert parsed[ws.questions[0].text] == "first part\n\nZoë's second part — with “quotes” 🌱"
    assert parsed[ws.questions[4].text] == "opening the second section"
    prompt = next(p.text for p in bot.services.content.prompts if p.id == "grounding_01")
    assert parsed[prompt] == "a quiet morning"
    assert len(parsed) == 3

    await bot.press(doc, "PDF version")
    pdf = await bot.next(predicate=lambda m: m.document is not None)
    assert pdf.protect_content and pdf.document is not None
    assert pdf.document.filename == "notes-2026-11-30.pdf"
    reader = PdfReader(io.BytesIO(pdf.document.data))
    person = await person_of(bot)
    expected = await export.collect(
        svc(bot),
        bot.offers.journal,
        person,
        bot.services.content.locales["en"],
        bot.clock(),
    )
    assert len(reader.pages) == pdf_text.pages_for(len(export.pdf_lines(expected)))
    text = "".join(p.extract_text() for p in reader.pages)
    assert "opening the second section" in text and "a quiet morning" in text

    await bot.press(closing, "Delete these answers")
    confirm = await bot.next(containing="Delete your answers")
    await bot.press(confirm, "Keep them")
    await bot.find("Nothing was deleted")
    await bot.press(closing, "Delete these answers")
    confirm = await bot.next(containing="Delete your answers")
    await bot.press(confirm, "Yes, delete")
    await bot.find("are deleted")
    assert await saved_answers(bot) == {}
    assert await svc(bot).progress(person, ws) is None


async def test_a_very_long_answer_is_kept_and_reviewed_in_pieces(bot: BotUnderTest) -> None:
    await bot.onboard()
    ws = sheet(bot)
    await begin(bot)
    long_one = ("word " * 820)[:4096]
    long_two = "x" * 4096
    await bot.send(long_one)
    saved = await bot.next(containing="Saved")
    await bot.send(long_two)
    await bot.find("Saved (2 messages)")
    closing = await skip_to_end(bot, saved, ws)
    assert await saved_answers(bot) == {ws.questions[0].id: (long_one, long_two)}

    await bot.press(closing, "Review answers")
    pages = [await bot.next(containing=ws.sections[0].title)]
    while "More" in labels(pages[-1]):
        await bot.press(pages[-1], "More")
        pages.append(await bot.next(containing=ws.sections[0].title))
    assert len(pages) >= 3
    quoted = ""
    for page in pages:
        text = page.text or ""
        assert len(text.encode("utf-16-le")) // 2 <= 4096 and page.protect_content
        for e in page.entities or []:
            if e["type"] == "blockquote":
                quoted += text[e["offset"] : e["offset"] + e["length"]]
    # Pages break between words where they can; only whitespace may differ at a break.
    assert "".join(quoted.split()) == "".join((long_one + long_two).split())


async def test_discreet_mode_deletes_exactly_the_worksheet_messages(bot: BotUnderTest) -> None:
    await bot.onboard()
    person = await person_of(bot)
    person.profile.discreet = True
    await bot.services.people.save(person)
    command = await bot.send("/worksheets")
    listing = await bot.next(containing="Worksheets")
    await bot.press(listing, data=f"ws:open:{WS}")
    intro = await bot.next(containing="Bond or love?")
    await bot.press(intro, "Start")
    q1 = await bot.next(containing="Question 1 of")
    # The command and the list (titles, progress) go as well as the intro.
    expected = {command, listing.message_id, intro.message_id}
    await bot.settle()
    assert bot.emu.deleted_ids(USER) == expected

    a1 = await bot.send("one")
    saved = await bot.next(containing="Saved")
    expected |= {a1, q1.message_id}
    assert bot.emu.deleted_ids(USER) == expected
    a2 = await bot.send("two")
    await bot.find("Saved (2 messages)")
    expected |= {a2}
    assert bot.emu.deleted_ids(USER) == expected
    await bot.press(saved, "Next")
    q2 = await bot.next(containing="Question 2 of")
    expected |= {saved.message_id}
    assert bot.emu.deleted_ids(USER) == expected
    await bot.press(q2, "Skip")
    q3 = await bot.next(containing="Question 3 of")
    expected |= {q2.message_id}
    await bot.press(q3, "Pause")
    await bot.next(containing="Paused")
    expected |= {q3.message_id}
    await bot.settle()
    assert bot.emu.deleted_ids(USER) == expected
    assert await saved_answers(bot) == {sheet(bot).questions[0].id: ("one", "two")}


async def test_clear_removes_the_worksheet_conversation(bot: BotUnderTest) -> None:
    await bot.onboard()
    before = bot.emu.sent_count(USER)
    sent_by_person = [await bot.send("/worksheets")]
    listing = await bot.next(containing="Worksheets")
    await bot.press(listing, data=f"ws:open:{WS}")
    intro = await bot.next(predicate=has_button("Start"))
    await bot.press(intro, "Start")
    await bot.next(containing="Question 1 of")
    sent_by_person.append(await bot.send("an answer"))
    saved = await bot.next(containing="Saved")
    await bot.press(saved, "Pause")
    await bot.next(containing="Paused")
    sent_by_person.append(await bot.send("/clear"))
    done = await bot.next(containing="Cleared")
    ours = {m.message_id for m in bot.emu.messages_to(USER)[before:]} - {done.message_id}
    assert ours | set(sent_by_person) <= bot.emu.deleted_ids(USER)


async def test_forget_leaves_nothing_and_old_backups_stay_sealed(
    bot: BotUnderTest, tmp_path: Path
) -> None:
    await bot.onboard()
    await begin(bot)
    answer_id = await bot.send("something private")
    await bot.next(containing="Saved")
    person = await person_of(bot)
    await bot.settle()  # VACUUM INTO cannot run while the bot is inside a write
    backup = tmp_path / "before-forget.sqlite3"
    await bot.services.db.backup_to(backup)

    await bot.send("/forget")
    confirm = await bot.next(containing="Delete everything")
    await bot.press(confirm, data="forget:yes")
    await bot.find("Everything is deleted")  # the confirmation is edited, not followed
    db = bot.services.db
    for table in ("people", "worksheet_progress", "answer_parts", "chat_messages"):
        row = await db.fetch_one(
            f"SELECT COUNT(*) AS n FROM {table} WHERE person_id = ?",
            (person.person_id,),
        )
        assert row is not None and row["n"] == 0, table
    assert await bot.services.keys.data_key(person.person_id) is None

    with sqlite3.connect(backup) as old:
        rows = old.execute(
            "SELECT question_id, text_enc FROM answer_parts WHERE person_id = ?",
            (person.person_id,),
        ).fetchall()
    assert len(rows) == 1
    question_id, blob = rows[0]
    assert b"something private" not in blob

    await bot.onboard()  # the same person comes back: a new key, nothing carried over
    again = await person_of(bot)
    # A new random row id: nothing links the old rows (in the backup) to the new ones.
    assert (
        again.person_id != person.person_id
        and again.profile.part(WorksheetPrefs).active_worksheet is None
    )
    with pytest.raises(CryptoError):
        again.cipher.open_text(answer_slot(WS, question_id, answer_id), blob)
    await bot.send("/resume")
    await bot.next(containing="no worksheet in progress")


async def test_a_crisis_word_in_an_answer_is_kept_on_request_and_continue_stays(
    bot: BotUnderTest,
) -> None:
    await bot.onboard()
    await begin(bot)
    words = "most days I feel unsafe at home"
    await bot.send(words)
    reply = await bot.next(predicate=has_button("Continue the worksheet"))
    assert "More support lines" in labels(reply)  # the crisis reply keeps its own buttons
    assert labels(reply)[-4:] == [
        "Keep as my answer",
        "Don't keep",
        "Continue the worksheet",
        "Pause",
    ]
    await bot.settle()
    assert not [
        m for m in bot.unread() if "Saved" in (m.text or "") or "Question" in (m.text or "")
    ]
    assert await saved_answers(bot) == {}
    await bot.press(reply, "Keep as my answer")
    await bot.next(containing="Kept with your answer")
    assert await saved_answers(bot) == {sheet(bot).questions[0].id: (words,)}

    await bot.press(reply, "Continue the worksheet")
    await bot.next(containing="Question 1 of")
    refreshed = await bot.find("emergency")
    assert "Continue the worksheet" not in labels(refreshed)
    assert "Keep as my answer" not in labels(refreshed)


async def test_deep_link_for_a_new_person_opens_after_onboarding(bot: BotUnderTest) -> None:
    await bot.send(f"/start ws_{OTHER}")
    ask = await bot.next(containing="Which country")
    await bot.press(ask, data="cty:GB")
    ask_time = await bot.next(containing="check-in once a day")
    await bot.press(ask_time, data="time:off")
    safety = await bot.next(containing="Could someone else read")
    await bot.press(safety, data="safe:no")
    intro = await bot.next(predicate=has_button("Start"))
    assert sheet(bot, OTHER).intro[:40] in (intro.text or "")
    assert (await person_of(bot)).profile.part(WorksheetPrefs).pending_worksheet is None


async def test_deep_link_for_an_existing_person(bot: BotUnderTest) -> None:
    await bot.onboard()
    await bot.send(f"/start ws_{WS}")
    intro = await bot.next(predicate=has_button("Start"))
    assert sheet(bot).intro[:40] in (intro.text or "")
    await bot.press(intro, "Not now")
    await bot.next(containing="whenever you want")
    await bot.send("/start ws_no_such_sheet")
    listing = await bot.next(containing="couldn't find that worksheet")
    assert len(buttons_of(listing)) == len(bot.services.content.worksheets)


async def test_forged_and_stale_buttons_do_no_harm(
    bot: BotUnderTest, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    await bot.onboard()
    q1 = await begin(bot)
    await answer(bot, "kept safe")
    for data in (
        "ws:open:nonexistent",
        "ws:garbage",
        "ws:" + "x" * 300,
        "ws:next:bond_or_love:abc",
        "ws:next:bond_or_love:99999",
        "ws:back:bond_or_love:0",
        "ws:rev:nonexistent:0",
        "ws:rev:bond_or_love:9999",
        "ws:delok",
        "ws:delok:bond_or_love:1",
        "ws:clr:bond_or_love:200",
        "ws:exp:extra",
        "ws:open:BOND_OR_LOVE",
        "ws:cont:bond_or_love:-1",
        "ws:next:bond_or_love:0:0",
        "ws::",
        "ws:open:bond_or_love\n",
    ):
        await bot.press(q1, data=data)
    await bot.settle()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert await saved_answers(bot) == {sheet(bot).questions[0].id: ("kept safe",)}
    row = await svc(bot).progress(await person_of(bot), sheet(bot))
    assert row is not None and row.position == 0

    await bot.press(q1, "Skip")  # fresh: moves on
    q2 = await bot.next(containing="Question 2 of")
    await bot.press(q1, data="ws:next:bond_or_love:0")  # stale: says so, moves nothing
    await bot.next(containing="earlier question")
    await bot.next(containing="Question 2 of")  # the question they are on, again
    await bot.press(q2, "Skip")
    await bot.next(containing="Question 3 of")


async def test_whitespace_stickers_and_helpers(bot: BotUnderTest) -> None:
    await bot.onboard()
    await begin(bot)
    await bot.send("   ")
    await bot.next(containing="looked empty")
    await bot.send(sticker=True)
    await bot.next(containing="don't keep stickers")
    await bot.settle()
    assert await saved_answers(bot) == {}


async def test_a_slow_crisis_reply_does_not_misfile_the_answer(bot: BotUnderTest) -> None:
    """Crisis text typed at question 1, then Next tapped at once while the crisis reply is
    slow: the text belongs to question 1, and question 2 stays empty."""
    await bot.onboard()
    await begin(bot)
    saved = await answer(bot, "first part")
    # Slow (5 s, within the 10 s HTTP timeout) so the test's next step lands while it is
    # held even on a loaded machine.
    bot.emu.inject_fault("sendMessage", "timeout", times=1, chat_id=USER, delay=5.0)
    await bot.send("and some days I want to die")
    await bot.press(saved, "Next")
    await bot.settle()
    choice = await bot.find("help is possible")
    await bot.press(choice, "Keep as my answer")
    await bot.next(containing="Kept with your answer")
    answers = await saved_answers(bot)
    first, second = (q.id for q in sheet(bot).questions[:2])
    assert answers[first] == ("first part", "and some days I want to die")
    assert second not in answers


async def test_the_answer_is_held_when_the_crisis_reply_fails(bot: BotUnderTest) -> None:
    await bot.onboard()
    await begin(bot)
    bot.emu.inject_fault("sendMessage", "400", times=2, chat_id=USER)
    await bot.send("most days I feel unsafe at home")
    choice = await bot.next(containing="keep what you just wrote")  # offered on its own
    await bot.press(choice, "Keep as my answer")
    await bot.next(containing="Kept with your answer")
    first = sheet(bot).questions[0].id
    assert (await saved_answers(bot))[first] == ("most days I feel unsafe at home",)


async def test_callback_data_with_a_trailing_newline_is_refused(bot: BotUnderTest) -> None:
    await bot.onboard()
    await bot.send("/worksheets")
    listing = await bot.next(containing="Worksheets")
    await bot.press(listing, data=f"ws:open:{WS}\n")
    await bot.settle()
    assert not [m for m in bot.unread() if sheet(bot).title in (m.text or "")]


async def test_a_failed_acknowledgement_says_the_answer_is_saved(bot: BotUnderTest) -> None:
    await bot.onboard()
    await begin(bot)
    bot.emu.inject_fault("sendMessage", "400", times=1, chat_id=USER)
    await bot.send("my answer")
    reply = await bot.next()
    assert "no need to send it again" in (reply.text or "")
    first = sheet(bot).questions[0].id
    assert (await saved_answers(bot))[first] == ("my answer",)


async def test_text_typed_before_the_next_question_arrived_stays_with_the_last(
    bot: BotUnderTest,
) -> None:
    await bot.onboard()
    await begin(bot)
    saved = await answer(bot, "first part")
    # The next question is slow to arrive; meanwhile the person keeps writing.
    # Slow (5 s, within the 10 s HTTP timeout) so the test's next step lands while it is
    # held even on a loaded machine.
    bot.emu.inject_fault("sendMessage", "timeout", times=1, chat_id=USER, delay=5.0)
    sends = bot.emu.stats["sendMessage"]
    await bot.press(saved, "Next")
    await bot.emu.wait_for_call("sendMessage", count=sends + 1)
    late = await bot.send("and one more thought about that")
    q2 = await bot.next(containing="Question 2 of")
    assert late < q2.message_id  # typed before question 2 was on screen
    await bot.next(containing="added it to your answer to question 1")
    await bot.settle()
    answers = await saved_answers(bot)
    first, second = (q.id for q in sheet(bot).questions[:2])
    assert answers[first] == ("first part", "and one more thought about that")
    assert second not in answers


async def test_a_place_follows_its_question_when_content_changes(bot: BotUnderTest) -> None:
    """A content author removes a question someone has already passed: after the update,
    their place is still the question they were on, and answers go to it."""
    await bot.onboard()
    question = await begin(bot)
    await bot.press(question, "Skip")
    await bot.next(containing="Question 2 of")
    await bot.press(await bot.find("Question 2 of"), "Pause")
    await bot.next(containing="Paused")
    original = sheet(bot)
    removed, kept = original.questions[0], original.questions[1]
    first = original.sections[0]
    edited = dataclasses.replace(
        original,
        sections=(
            dataclasses.replace(first, questions=first.questions[1:]),
            *original.sections[1:],
        ),
    )
    content = bot.services.content
    bot.content = dataclasses.replace(content, worksheets={**content.worksheets, WS: edited})
    await bot.restart()
    bot.skip_all()
    await bot.send("/resume")
    shown = await bot.next(containing="Question 1 of")
    assert kept.text[:40] in (shown.text or "")
    await bot.send("my answer to the kept question")
    await bot.next(containing="Saved")
    answers = await saved_answers(bot)
    assert answers[kept.id] == ("my answer to the kept question",)
    assert removed.id not in answers


async def test_deleting_answers_also_removes_messages_that_showed_them(bot: BotUnderTest) -> None:
    await bot.onboard()
    ws = sheet(bot)
    question = await begin(bot)
    saved = await answer(bot, "very private words")
    await bot.press(saved, "Next")
    q2 = await bot.next(containing="Question 2 of")
    await bot.press(q2, "Back")
    quoted = await bot.next(containing="very private words")  # question 1 shown with it
    assert quoted.protect_content
    closing = await skip_to_end(bot, quoted, ws)
    await bot.press(closing, "Review answers")
    page = await bot.next(containing="very private words")
    await bot.press(page, "Done")
    await bot.send(f"/start ws_{WS}")  # reopen the finished worksheet: it offers Delete
    offer = await bot.next(predicate=has_button("Delete"))
    await bot.press(offer, "Delete")
    confirm = await bot.next(predicate=has_button("Yes"))
    await bot.press(confirm, "Yes")
    await bot.find("deleted")
    await bot.settle()
    deleted = bot.emu.deleted_ids(USER)
    assert {quoted.message_id, page.message_id} <= deleted
    assert question.message_id not in deleted  # a question without an answer may stay
