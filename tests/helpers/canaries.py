"""Writing a distinctive canary everywhere a person can write, and the forms in which a
stray copy of it would be found (the SQLite and PostgreSQL canary tests)."""

from __future__ import annotations

import base64
import struct
from datetime import UTC, datetime

from tests.helpers.bot import BotUnderTest, buttons_of

PERSON = 7_654_321_987  # distinctive, so a stray copy of it is findable

CANARY = "CANARY-zebra-quartz-4411"


def id_encodings(value: int) -> list[bytes]:
    return [str(value).encode(), struct.pack(">q", value), struct.pack("<q", value)]


async def write_everywhere(bot: BotUnderTest) -> None:
    """Every path by which a person's words reach the bot, with the canary in each."""
    await bot.send("/start", user=PERSON)
    await bot.next(PERSON, containing="Which country")
    await bot.send(f"{CANARY} land", user=PERSON)  # typed country, unknown
    await bot.next(PERSON, containing="couldn't find")
    await bot.send("Portugal", user=PERSON)
    await bot.next(PERSON, containing="time zone")
    await bot.send(f"{CANARY} city", user=PERSON)
    await bot.next(PERSON, containing="couldn't match")
    await bot.send("Lisbon", user=PERSON)
    await bot.next(PERSON, containing="check-in once a day")
    await bot.send("07:30", user=PERSON)
    safety = await bot.next(PERSON, containing="Could someone")
    await bot.press(safety, data="safe:no", user=PERSON)
    await bot.next(PERSON, containing="All set")
    await bot.send(f"help {CANARY} he is outside", user=PERSON)
    await bot.next(PERSON, containing="112")
    await bot.send(f"just a note {CANARY}", user=PERSON)
    await bot.send(photo=True, caption=f"{CANARY} caption", user=PERSON)
    await ride_a_wave(bot)
    await answer_a_worksheet(bot)
    await write_a_record_entry(bot)
    await reply_to_a_check_in(bot)
    await set_a_panic_word(bot)
    await bot.settle()


async def write_a_record_entry(bot: BotUnderTest) -> None:
    """A record entry: a typed date, two parts (one edited: an amendment), a photo whose
    bytes carry the canary, and its export (built in memory)."""
    await bot.send("/record", user=PERSON)
    menu = await bot.next(PERSON, containing="Your record")
    await bot.press(menu, "New entry", user=PERSON)
    await bot.next(PERSON, containing="When did it happen?")
    await bot.send("yesterday 21:30", user=PERSON)
    await bot.next(PERSON, containing="What happened?")
    part = await bot.send(f"record {CANARY}", user=PERSON)
    await bot.next(PERSON, containing="Saved")
    await bot.send(f"more {CANARY}", user=PERSON)
    await bot.edit(part, f"record, edited {CANARY}", user=PERSON)
    await bot.send(photo_bytes=CANARY.encode() * 4, caption=f"{CANARY} evidence", user=PERSON)
    await bot.next(PERSON, containing="Kept with this entry")
    await bot.send("/record", user=PERSON)
    menu = await bot.next(PERSON, containing="Your record")
    await bot.press(menu, "Copy for an advocate", user=PERSON)
    exported = await bot.next(PERSON, predicate=lambda m: m.document is not None)
    assert exported.document is not None and CANARY.encode() in exported.document.data


async def set_a_panic_word(bot: BotUnderTest) -> None:
    """The canary as a panic word (and a return word): only keyed hashes may be stored."""
    await bot.send("/settings", user=PERSON)
    menu = await bot.next(PERSON, predicate=lambda m: "dsc:menu" in str(m.reply_markup))
    await bot.press(menu, data="dsc:panic", user=PERSON)
    await bot.settle()
    await bot.send(CANARY, user=PERSON)
    shown = await bot.next(PERSON, containing="panic word is set")
    await bot.press(shown, data="dsc:return", user=PERSON)
    await bot.settle()
    await bot.send(f"{CANARY}x", user=PERSON)
    await bot.next(PERSON, containing="return word is set")


async def reply_to_a_check_in(bot: BotUnderTest) -> None:
    """A journal entry by Telegram reply, then edited."""
    bot.clock.set(datetime(2026, 12, 1, 7, 30, tzinfo=UTC))  # 07:30 in Lisbon
    await bot.settle()
    await bot.dispatcher.run_once()
    prompt = await bot.emu.wait_for_message(
        PERSON, predicate=lambda m: "Remind me" in str(m.reply_markup)
    )
    # The pass above need not be the one that sends the prompt: on PostgreSQL on a loaded
    # machine the bot's own tick sent it, after the test's pass had returned. A pass waits
    # for the one running, which records the prompt's message id before it ends, and only a
    # recorded id makes the reply a journal entry rather than the open record step's text.
    await bot.dispatcher.run_once()
    reply = await bot.send(f"journal {CANARY}", user=PERSON, reply_to_message_id=prompt.message_id)
    await bot.next(PERSON, containing="Saved to your journal")
    await bot.edit(reply, f"journal, edited {CANARY}", user=PERSON)


async def ride_a_wave(bot: BotUnderTest) -> None:
    """The urge flow's typed words: a trigger, a held draft, My reasons; and a mood tap."""
    await bot.send("/urge", user=PERSON)
    ask = await bot.next(PERSON, containing="How strong is the pull")
    await bot.press(ask, "7", user=PERSON)
    trigger = await bot.next(PERSON, containing="What set it off")
    await bot.press(trigger, "Something else", user=PERSON)
    await bot.next(PERSON, containing="In a few words")
    await bot.send(f"trigger {CANARY}", user=PERSON)
    offer = await bot.next(PERSON, containing="I'll hold it")
    await bot.press(offer, "Write it here", user=PERSON)
    await bot.next(PERSON, containing="as much or as little")
    await bot.send(f"draft {CANARY}", user=PERSON)
    await bot.next(PERSON, containing="I'm holding it")
    await bot.send("/reasons", user=PERSON)
    none = await bot.next(PERSON, containing="haven't written your reasons")
    await bot.press(none, "Write them", user=PERSON)
    await bot.next(PERSON, containing="Write your reasons")
    await bot.send(f"reasons {CANARY}", user=PERSON)
    await bot.next(PERSON, containing="Kept, encrypted")
    await bot.send("/nocontact", user=PERSON)
    count = await bot.next(PERSON, containing="count the days")
    await bot.press(count, "Start counting", user=PERSON)
    await bot.press(count, data="mood:2026-11-30:4", user=PERSON)
    await bot.next(PERSON, containing="Noted: 4 of 5")


async def answer_a_worksheet(bot: BotUnderTest) -> None:
    """A worksheet answer in two parts, one part edited, one with a crisis word, then an
    export (built in memory: it must leave nothing on disk either)."""
    await bot.send("/worksheets", user=PERSON)
    listing = await bot.next(PERSON, containing="Worksheets")
    await bot.press(listing, data="ws:open:bond_or_love", user=PERSON)
    intro = await bot.next(PERSON, predicate=lambda m: any("Start" in b for b, _ in buttons_of(m)))
    await bot.press(intro, "Start", user=PERSON)
    await bot.next(PERSON, containing="Question 1 of")
    first = await bot.send(f"first part {CANARY}", user=PERSON)
    await bot.next(PERSON, containing="Saved")
    await bot.send(f"second part {CANARY}", user=PERSON)
    await bot.edit(first, f"first part, edited {CANARY}", user=PERSON)
    await bot.send(f"I want to die {CANARY}", user=PERSON)
    await bot.next(PERSON, containing="help is possible")
    await bot.settle()
    await bot.send("/export", user=PERSON)
    await bot.next(PERSON, predicate=lambda m: m.document is not None)


def printed_forms(blob: bytes) -> list[str]:
    """How a blob shows in a log line: repr (SQL parameters), hex, base64; a prefix of each
    long enough never to occur by chance."""
    inner = repr(blob)[2:-1]
    return [inner[:48], blob.hex()[:32], base64.b64encode(blob).decode()[:32]]
