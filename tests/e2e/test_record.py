"""The record (/record), end to end against the emulator: a back-dated entry written over
several messages with a photo and an amendment, exported, every part found with both
timestamps; the photo's bytes never on disk in plaintext; restart mid-entry; deletion
takes the files along; the look-back offer for self-doubt and not for ordinary text."""

from __future__ import annotations

import base64
import io
import random
from datetime import timedelta

import pytest
from PIL import Image, PngImagePlugin
from pypdf import PdfReader

from bot.core import telegram_text
from bot.emulator import SentMessage
from bot.features.record.prefs import RecordPrefs
from tests.helpers.bot import USER, BotUnderTest, buttons_of

PHOTO_CANARY = b"PHOTO-CANARY-okapi-7781"


def photo_bytes(marker: bytes = PHOTO_CANARY) -> bytes:
    """A real PNG (so the PDF can embed it) carrying a marker findable in any copy."""
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", marker.decode())
    out = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 120, 40)).save(out, "PNG", pnginfo=info)
    return out.getvalue()


def labels(message: SentMessage) -> list[str]:
    return [label for label, _ in buttons_of(message)]


def has_button(label: str) -> object:
    return lambda m: any(label in text for text, _ in buttons_of(m))


async def new_entry(bot: BotUnderTest) -> SentMessage:
    await bot.send("/record")
    menu = await bot.next(containing="Your record")
    await bot.press(menu, "New entry")
    return await bot.next(containing="When did it happen?")


async def count(bot: BotUnderTest, table: str) -> int:
    row = await bot.services.db.fetch_one(f"SELECT COUNT(*) AS n FROM {table}")
    return 0 if row is None else int(row["n"])


async def write_full_entry(bot: BotUnderTest) -> int:
    """Back-dated (3 days ago, 21:00) with two messages, a quote, and a photo."""
    when = await new_entry(bot)
    await bot.press(when, "Another day")
    days = await bot.find("Which day?")
    await bot.press(days, data=next(d for _, d in buttons_of(days) if d.endswith(":3")))
    hours = await bot.find("Around what time")
    await bot.press(hours, "21:00")
    await bot.next(containing="What happened?")
    await bot.send("He read my messages again and shouted.")
    await bot.next(containing="Saved.")
    await bot.send("Then he said I was imagining things.")
    saved = await bot.find("Saved (2 messages)")
    await bot.press(saved, "Next")
    await bot.next(containing="What was said?")
    said = await bot.send("You're crazy, nobody will believe you.")
    saved = await bot.next(containing="Saved.")
    await bot.press(saved, "Next")
    body = await bot.next(containing="How did your body react?")
    await bot.press(body, "Skip")
    seen = await bot.next(containing="Did anyone see it")
    await bot.press(seen, "Skip")
    hurt = await bot.next(containing="Was anyone hurt?")
    await bot.press(hurt, "Skip")
    files = await bot.next(containing="Any photos")
    photo = await bot.send(photo_bytes=photo_bytes(), caption="the broken door")
    kept = await bot.next(containing="Kept with this entry")
    await bot.press(kept, "Remove from the chat")
    await bot.find("Removed from the chat")
    await bot.settle()
    assert photo in bot.emu.deleted_ids(USER)
    assert said not in bot.emu.deleted_ids(USER)  # only what they chose to remove
    await bot.press(files, "Done")
    await bot.next(containing="Saved to your record: 27 November 2026, ~21:00")
    return said


async def test_a_back_dated_entry_with_a_photo_and_an_amendment_is_exported_whole(
    bot: BotUnderTest,
) -> None:
    await bot.onboard()  # UK: London time, UTC in November
    await write_full_entry(bot)
    assert await count(bot, "record_files") == 1
    assert await count(bot, "record_parts") == 3

    bot.clock.advance(timedelta(days=1, hours=2))  # 1 December, 11:0x
    await bot.send("/record list")
    listing = await bot.next(containing="newest first")
    assert "27 November 2026, ~21:00: He read my messages" in (listing.text or "")
    await bot.press(listing, "1")
    entry = await bot.next(containing="Happened: 27 November 2026, ~21:00")
    assert entry.protect_content
    assert "Written: 30 November 2026, 09:0" in (entry.text or "")
    await bot.press(entry, "Add a correction")
    ask = await bot.next(containing="Type the correction")
    await bot.send("It was 22:00, not 21:00.")
    added = await bot.next(containing="Added, dated 1 December 2026, 11:0")
    await bot.press(added, "Done")
    again = await bot.next(containing="Added later")
    assert "It was 22:00" in (again.text or "") and ask.message_id != again.message_id
    # The original is untouched beside it: nothing is overwritten.
    assert "He read my messages again and shouted." in (again.text or "")

    await bot.send("/record")
    menu = await bot.next(containing="Entries so far: 1")
    await bot.press(menu, "Copy for an advocate")
    md_message = await bot.next(predicate=lambda m: m.document is not None)
    assert md_message.protect_content and "Remove this file from the chat" in labels(md_message)
    assert md_message.document is not None
    markdown = md_message.document.data.decode()
    for piece in (
        "Happened: 27 November 2026, ~21:00",
        "Written: 30 November 2026, 09:0",
        "He read my messages again and shouted.",
        "Then he said I was imagining things.",
        "You're crazy, nobody will believe you.",
        "Added 1 December 2026, 11:0",
        "It was 22:00, not 21:00.",
        "the broken door",
        base64.b64encode(photo_bytes()).decode()[:40],
    ):
        assert piece in markdown, piece
    assert md_message.document.filename.startswith("notes-")  # neutral name

    await bot.press(md_message, "As a PDF")
    pdf_message = await bot.next(predicate=lambda m: m.document is not None)
    assert pdf_message.document is not None
    reader = PdfReader(io.BytesIO(pdf_message.document.data))
    text = " ".join((page.extract_text() or "") for page in reader.pages)
    flat = " ".join(text.split())
    for piece in ("27 November 2026, ~21:00", "30 November 2026, 09:0", "imagining things",
                  "nobody will believe you", "1 December 2026, 11:0", "It was 22:00"):  # fmt: skip
        assert piece in flat, piece
    assert sum(len(page.images) for page in reader.pages) == 1  # the photo, embedded

    await bot.press(pdf_message, "Remove this file from the chat")
    await bot.settle()
    assert pdf_message.message_id in bot.emu.deleted_ids(USER)

    # /export (the journal's) covers the record too: its file comes alongside.
    await bot.send("/export")
    await bot.next(predicate=lambda m: m.document is not None and "dated" in m.document.filename)

    # The photo's bytes are on disk only sealed: not in the database, nor in its WAL.
    data_dir = bot.settings.data_dir
    await bot.stop()
    for path in data_dir.iterdir():
        if path.is_file():
            blob = path.read_bytes()
            assert PHOTO_CANARY not in blob, path.name
            assert b"imagining things" not in blob, path.name


async def test_a_typed_date_in_words_and_a_file_too_big(bot: BotUnderTest) -> None:
    await bot.onboard()
    await new_entry(bot)
    await bot.send("no idea")
    await bot.next(containing="couldn't find a date")
    await bot.send("12 March 21:30")
    await bot.next(containing="Noted: 12 March 2026, 21:30")
    await bot.send(photo=True, file_size=25 * 1024 * 1024)
    await bot.next(containing="over 20 MB")
    await bot.send(document=("letter.pdf", b"%PDF-1.4 a letter", "application/pdf"))
    await bot.next(containing="Kept with this entry")
    assert await count(bot, "record_files") == 1


async def test_restart_mid_entry_resumes_where_it_was(bot: BotUnderTest) -> None:
    await bot.onboard()
    when = await new_entry(bot)
    await bot.press(when, "Just now")
    await bot.next(containing="What happened?")
    await bot.send("first part")
    await bot.next(containing="Saved.")
    await bot.restart()
    await bot.send("second part, after a restart")
    await bot.find("Saved (2 messages)")
    await bot.restart()
    await bot.send("/record")
    menu = await bot.next(containing="Your record")
    await bot.press(menu, "Continue the unfinished entry")
    resumed = await bot.next(containing="Picking up your unfinished entry")
    assert "What happened?" in (resumed.text or "")
    await bot.send("third part")
    await bot.next(containing="Saved (3 messages)")
    person = await bot.services.people.load(USER)
    assert person is not None
    page = await bot.record.page(person, 0, 5)
    parts = [p.text for p in page.entries[0].answers["what"]]
    assert parts == ["first part", "second part, after a restart", "third part"]


async def test_a_crisis_word_in_an_entry_keeps_it_and_continue_goes_on(bot: BotUnderTest) -> None:
    await bot.onboard()
    when = await new_entry(bot)
    await bot.press(when, "Just now")
    await bot.next(containing="What happened?")
    await bot.send("he hit me and I am in danger")
    reply = await bot.next(predicate=has_button("Continue the entry"))
    await bot.settle()
    assert not [m for m in bot.unread() if "What was said?" in (m.text or "")]
    await bot.press(reply, "Continue the entry")
    await bot.next(containing="What was said?")
    person = await bot.services.people.load(USER)
    assert person is not None
    entry = (await bot.record.page(person, 0, 5)).entries[0]
    assert [p.text for p in entry.answers["what"]] == ["he hit me and I am in danger"]


async def test_deleting_an_entry_removes_its_files(bot: BotUnderTest) -> None:
    await bot.onboard()
    said = await write_full_entry(bot)
    await bot.send("/record list")
    listing = await bot.next(containing="newest first")
    await bot.press(listing, "1")
    entry = await bot.next(containing="Happened:")
    await bot.press(entry, "Delete this entry")
    confirm = await bot.next(containing="Delete this entry, with its files?")
    await bot.press(confirm, "Yes, delete it")
    await bot.find("Deleted, with its files.")
    await bot.settle()
    for table in ("record_entries", "record_parts", "record_files"):
        assert await count(bot, table) == 0, table
    # The messages it was written in leave the chat too.
    assert said in bot.emu.deleted_ids(USER)
    wal = bot.settings.data_dir / "steady.sqlite3-wal"
    assert PHOTO_CANARY not in (wal.read_bytes() if wal.exists() else b"")


async def test_the_look_back_offer(bot: BotUnderTest) -> None:
    await bot.onboard()
    when = await new_entry(bot)
    await bot.press(when, "Just now")
    await bot.next(containing="What happened?")
    await bot.send("He threw my keys across the room.")
    saved = await bot.next(containing="Saved.")
    await bot.press(saved, "Next")
    for _ in range(4):  # what was said, the body, who saw, anyone hurt
        question = await bot.next(predicate=has_button("Skip"))
        await bot.press(question, "Skip")
    files = await bot.next(containing="Any photos")
    await bot.press(files, "Done")
    await bot.next(containing="Saved to your record")

    await bot.send("I had soup for lunch and went for a walk")  # ordinary: no offer
    await bot.next(containing="")  # the plain-message reply
    await bot.settle()
    assert not [m for m in bot.unread() if "Want to read it?" in (m.text or "")]

    await bot.send("maybe I overreacted")
    offer = await bot.next(containing="You wrote this down on 30 November 2026. Want to read it?")
    await bot.press(offer, "Read it")
    await bot.next(containing="He threw my keys")

    await bot.send("maybe it wasn't that bad")  # the same day: once is enough
    await bot.settle()
    assert not [m for m in bot.unread() if "Want to read it?" in (m.text or "")]

    bot.clock.advance(timedelta(days=1))
    await bot.send("help, maybe it was my fault")  # a crisis reply: never beside it
    await bot.settle()
    assert not [m for m in bot.unread() if "Want to read it?" in (m.text or "")]

    # The pull back is the urge flow's to offer: one offer for one message, not two.
    await bot.send("Ich vermisse ihn so sehr")
    await bot.next(containing="That sounds like a hard moment")
    await bot.settle()
    assert not [m for m in bot.unread() if "Want to read it?" in (m.text or "")]
    await bot.send("vielleicht habe ich übertrieben")  # self-doubt, in German, the next day
    offer = await bot.next(containing="Want to read it?")
    await bot.press(offer, "Don't offer this again")
    await bot.find("won't offer that again")
    bot.clock.advance(timedelta(days=1))
    await bot.send("maybe I overreacted")
    await bot.settle()
    assert not [m for m in bot.unread() if "Want to read it?" in (m.text or "")]
    person = await bot.services.people.load(USER)
    assert person is not None and not person.profile.part(RecordPrefs).record_offers


async def test_neutral_wording_keeps_the_record_plain(bot: BotUnderTest) -> None:
    await bot.onboard()
    person = await bot.services.people.load(USER)
    assert person is not None
    person.profile.neutral_wording = True
    await bot.services.people.save(person)
    await bot.send("/record")
    menu = await bot.next(containing="Your dated notes")
    assert "Copy for an advocate" not in labels(menu)


async def test_pause_keeps_the_entry_and_the_menu_picks_it_up(bot: BotUnderTest) -> None:
    await bot.onboard()
    when = await new_entry(bot)
    await bot.press(when, "Just now")
    await bot.next(containing="What happened?")
    await bot.send("the first thing")
    saved = await bot.next(containing="Saved.")
    await bot.press(saved, "Pause")
    await bot.next(containing="Paused")
    await bot.send("just chatting now")  # no longer an answer
    await bot.settle()
    person = await bot.services.people.load(USER)
    assert person is not None
    entry = (await bot.record.page(person, 0, 5)).entries[0]
    assert [p.text for p in entry.answers["what"]] == ["the first thing"]
    await bot.send("/record")
    menu = await bot.next(containing="Your record")
    await bot.press(menu, "Continue the unfinished entry")
    await bot.next(containing="Picking up your unfinished entry")


async def test_an_edit_is_added_as_an_amendment_and_settings_turn_offers_off(
    bot: BotUnderTest,
) -> None:
    await bot.onboard()
    when = await new_entry(bot)
    await bot.press(when, "Just now")
    await bot.next(containing="What happened?")
    part = await bot.send("he shouted at 8")
    await bot.next(containing="Saved.")
    bot.clock.advance(timedelta(hours=3))
    await bot.edit(part, "he shouted at 9")
    await bot.settle()
    person = await bot.services.people.load(USER)
    assert person is not None
    entry = (await bot.record.page(person, 0, 5)).entries[0]
    assert [p.text for p in entry.answers["what"]] == ["he shouted at 8"]  # never overwritten
    assert [a.text for a in entry.amendments] == ["he shouted at 9"]
    assert entry.amendments[0].at - entry.answers["what"][0].at == 3 * 3600

    await bot.send("/settings")
    settings = await bot.next(containing="Your settings")
    await bot.press(settings, "Offer my notes when I doubt myself: on")
    await bot.settle()
    assert "Offer my notes when I doubt myself: off" in labels(settings)  # edited in place
    person = await bot.services.people.load(USER)
    assert person is not None and not person.profile.part(RecordPrefs).record_offers


async def test_a_long_premium_caption_is_cut_so_the_file_can_always_be_shown(
    bot: BotUnderTest,
) -> None:
    """Premium users may send a caption of up to 4,096 characters; a bot may send back
    only 1,024. The stored caption is cut at a word for the file, and given whole after it
    (issue 23: before, "Show files" failed with 400 every time)."""
    await bot.onboard()
    await new_entry(bot)
    await bot.send("yesterday 21:30")
    await bot.next(containing="Noted")
    words = "the broken door and the hallway mirror " * 60  # ~2,340 characters
    bot.emu.user_is_premium(USER)
    await bot.send(photo_bytes=photo_bytes(), caption="  " + words + "  ")
    await bot.next(containing="Kept with this entry")
    await bot.send("/record list")
    listing = await bot.next(containing="newest first")
    await bot.press(listing, "1")
    entry = await bot.next(containing="Happened:")
    await bot.press(entry, "Show files")
    shown = await bot.next(predicate=lambda m: m.document is not None)
    assert shown.document is not None and shown.document.caption is not None
    caption = shown.document.caption
    assert len(caption) <= 1024 and caption.endswith("…")
    assert words.strip().startswith(caption[:-1].rstrip())
    whole = await bot.next(containing="hallway mirror")
    assert whole.text == words.strip() and whole.protect_content
    assert "Hide" in labels(whole)


def big_photo(seed: int) -> bytes:
    """A phone photo at full size, in miniature: random pixels compress worst."""
    rng = random.Random(seed)
    pixels = bytes(rng.getrandbits(8) for _ in range(2400 * 1800 * 3 // 64))
    image = Image.frombytes("RGB", (300, 225), pixels).resize((2400, 1800))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=95)
    return out.getvalue()


async def test_an_export_over_the_upload_limit_comes_in_parts_with_photos_scaled(
    bot: BotUnderTest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 27, finding 10: twenty phone photos made a 500 MB export Telegram refuses.
    Photos are scaled as they are opened, and a file over the limit (injected small here)
    comes in parts of whole entries, each under it."""
    await bot.onboard()
    photos = [big_photo(n) for n in range(2)]
    for photo in photos:
        await new_entry(bot)
        await bot.send("yesterday 21:30")
        await bot.next(containing="Noted")
        await bot.send(photo_bytes=photo, caption="the door")
        await bot.next(containing="Kept with this entry")
    sent = bot.emu.sent_count(USER)
    await bot.send("/record")
    menu = await bot.next(containing="Entries so far: 2")
    whole = await record_export_size(bot, menu)
    limit = whole * 2 // 3
    monkeypatch.setattr(telegram_text, "EXPORT_PART_LIMIT", limit)
    await bot.press(menu, "Copy for an advocate")
    first = await bot.next(predicate=lambda m: m.document is not None)
    second = await bot.next(predicate=lambda m: m.document is not None)
    parts = [first.document, second.document]
    assert [p.filename.rsplit("-", 3)[1:] for p in parts if p] == [
        ["1", "of", "2.md"],
        ["2", "of", "2.md"],
    ]
    for part in parts:
        assert part is not None and len(part.data) <= limit
        markdown = part.data.decode()
        assert markdown.count("## Happened") == 1  # one whole entry in each
        encoded = markdown.split(";base64,")[1].split(")")[0]
        with Image.open(io.BytesIO(base64.b64decode(encoded))) as image:
            assert max(image.size) <= 1600  # scaled from 2400
        assert len(encoded) * 3 // 4 < min(len(p) for p in photos) / 2
    assert bot.emu.sent_count(USER) > sent


async def record_export_size(bot: BotUnderTest, menu: SentMessage) -> int:
    """The size of the whole export as one file, sent and removed again."""
    await bot.press(menu, "Copy for an advocate")
    whole = await bot.next(predicate=lambda m: m.document is not None)
    assert whole.document is not None and "-of-" not in whole.document.filename
    await bot.press(whole, "Remove this file from the chat")
    await bot.settle()
    return len(whole.document.data)
