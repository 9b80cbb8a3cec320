"""A conversation with no dead ends (issue 12), end to end.

The walk: each of the natural messages below (the words people use to steer, in several
languages; greetings; questions to the bot; emoji alone; media of every kind; commands that
do not exist) is sent in each of five states: idle, an onboarding step, a worksheet
question, a settings step, and just after a daily check-in. Every one must get a reply
that names a next step (a button, or a /command), and none may become a journal entry or a
worksheet answer. A message that leaves its state ("cancel") is followed by the button or
command the reply offers to go back, which the walk checks too.

One bot, five people (one per state, so a state left in one does not disturb the others),
each state reached once; the messages go out in a loop.
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.emulator import SentMessage
from bot.features.checkins.handlers import JOB_NAME
from bot.features.checkins.prefs import CheckinPrefs
from bot.features.setup.state import setup_state
from bot.features.worksheets.state import worksheet_state
from bot.people.service import Person
from tests.helpers.bot import BotUnderTest, buttons_of
from tests.helpers.codecs import decode_state
from tests.helpers.reporting import report

IDLE, ONBOARDING, WORKSHEET, SETTINGS, CHECKED_IN = 3001, 3002, 3003, 3004, 3005
WORKSHEET_ID = "untangling_the_bond"
NEXT_STEP = re.compile(r"/[a-z]{3,}")

# (label, what to send): text, or a media kind for the emulator.
Message = tuple[str, dict[str, Any]]


def text(value: str) -> Message:
    return (value, {"text": value})


def media(kind: str, value: dict[str, Any] | None = None) -> Message:
    if kind in ("photo", "voice", "sticker"):
        return (kind, {kind: True})
    return (kind, {"other": (kind, value or {})})


WORDS = [
    # stop and pause, in several languages
    "stop", "Stop please", "STOP!", "basta", "arrête", "hör auf", "pause", "pausa", "pauze",
    # cancel and back
    "cancel", "never mind", "cancelar", "annuler", "abbrechen", "annulla", "annuleren",
    "back", "go back", "atrás", "retour", "zurück", "indietro", "terug", "voltar",
    # menu
    "menu", "Menu", "menú", "opciones",
    # greetings
    "hi", "Hello!", "hey there", "good morning", "hola", "bonjour", "hallo", "ciao", "hoi",
    "olá",
    # thanks and goodbyes
    "thanks", "thank you", "gracias", "merci", "danke", "grazie", "bedankt", "obrigada", "ok",
    "bye",
    # questions to the bot
    "what can you do?", "How does this work?", "who are you?", "are you a bot?",
    "¿Qué puedes hacer?", "que peux-tu faire ?", "Was kannst du?", "cosa puoi fare?",
    "wat kun je doen?", "o que você pode fazer?",
    # emoji and punctuation alone
    "👋", "🙂", "👍👍", "❤️", "...",
]  # fmt: skip
COMMANDS = ["/stop", "/cancel", "/menu", "/hello", "/quit", "/options", "/foo"]
MEDIA = [
    media("photo"),
    media("voice"),
    media("sticker"),
    media("video", {"width": 640, "height": 360, "duration": 4}),
    media("video_note", {"length": 240, "duration": 3}),
    media("animation", {"width": 320, "height": 240, "duration": 2}),
    media("audio", {"duration": 30}),
    media("document", {"file_name": "notes.pdf", "mime_type": "application/pdf"}),
    media("location", {"latitude": 51.5, "longitude": -0.12}),
    media("venue", {
        "location": {"latitude": 51.5, "longitude": -0.12},
        "title": "Library", "address": "1 High St",
    }),
    media("contact", {"phone_number": "+441234567890", "first_name": "Sam"}),
]  # fmt: skip
MESSAGES: list[Message] = [text(w) for w in WORDS + COMMANDS] + MEDIA


def test_the_walk_is_big_enough() -> None:
    assert len(MESSAGES) >= 60
    assert len({label for label, _ in MESSAGES}) == len(MESSAGES)


@dataclass
class Walker:
    bot: BotUnderTest

    async def person(self, user: int) -> Person:
        found = await self.bot.services.people.load(user)
        assert found is not None
        return found

    async def journal_size(self, user: int) -> int:
        return (await self.bot.offers.journal.page(await self.person(user), 0, 1)).total

    async def answers(self, user: int) -> int:
        found = await self.bot.offers.worksheets.answers(await self.person(user), WORKSHEET_ID)
        return sum(len(a.parts) for a in found.values())

    async def say(self, user: int, message: Message) -> list[SentMessage]:
        """Send, wait until the bot is done, and return what it sent (new messages)."""
        _, fields = message
        edits = {m.message_id: m.edits for m in self.bot.emu.messages_to(user)}
        await self.bot.send(user=user, **fields)
        await self.bot.settle()
        replies = self.bot.unread(user)
        self.bot.skip_all(user)
        # An edit is a reply too ("Saved." becoming "Saved (2 messages).").
        edited = [
            m
            for m in self.bot.emu.messages_to(user)
            if m.message_id in edits and m.edits > edits[m.message_id] and not m.deleted
        ]
        return edited + replies

    async def press(self, user: int, message: SentMessage, label: str) -> list[SentMessage]:
        await self.bot.press(message, label, user=user)
        await self.bot.settle()
        replies = self.bot.unread(user)
        self.bot.skip_all(user)
        return replies


def has_next_step(replies: list[SentMessage]) -> bool:
    return any(buttons_of(m) or NEXT_STEP.search(m.text or "") for m in replies)


def offered(replies: list[SentMessage], label: str) -> SentMessage | None:
    for message in reversed(replies):
        if any(label in text for text, _ in buttons_of(message)):
            return message
    return None


async def reach_onboarding(w: Walker) -> None:
    await w.say(ONBOARDING, text("/start"))


async def in_onboarding(w: Walker, replies: list[SentMessage]) -> None:
    if setup_state((await w.person(ONBOARDING)).state) is not None:
        return
    carry = offered(replies, "Carry on setting up")
    assert carry is not None, [m.text for m in replies]
    back = await w.press(ONBOARDING, carry, "Carry on setting up")
    assert any("Which country" in (m.text or "") for m in back)


async def onboard(w: Walker, user: int, *, daily: str | None) -> None:
    bot = w.bot
    await bot.send("/start", user=user)
    ask = await bot.next(user, containing="Which country")
    await bot.press(ask, data="cty:GB", user=user)
    ask_time = await bot.next(user, containing="check-in once a day")
    if daily is None:
        await bot.press(ask_time, data="time:off", user=user)
    else:
        await bot.press(ask_time, data=f"time:{daily}", user=user)
    safety = await bot.next(user, containing="Could someone else read")
    await bot.press(safety, data="safe:no", user=user)
    await bot.next(user, containing="All set")
    await bot.settle()
    bot.skip_all(user)


async def reach_worksheet(w: Walker) -> None:
    await onboard(w, WORKSHEET, daily="07:30")
    await w.say(WORKSHEET, text("/worksheets"))
    await w.bot.press(
        w.bot.emu.messages_to(WORKSHEET)[-1], data=f"ws:open:{WORKSHEET_ID}", user=WORKSHEET
    )
    intro = await w.bot.next(WORKSHEET, predicate=lambda m: bool(buttons_of(m)))
    await w.press(WORKSHEET, intro, "Start")
    assert worksheet_state((await w.person(WORKSHEET)).state) is not None


async def in_worksheet(w: Walker, replies: list[SentMessage]) -> None:
    if worksheet_state((await w.person(WORKSHEET)).state) is not None:
        return
    resume = offered(replies, "Continue my worksheet")
    back = (
        await w.press(WORKSHEET, resume, "Continue my worksheet")
        if resume is not None
        else await w.say(WORKSHEET, text("/resume"))
    )
    assert any("Question" in (m.text or "") for m in back), [m.text for m in back]
    assert worksheet_state((await w.person(WORKSHEET)).state) is not None


async def reach_settings(w: Walker) -> None:
    await onboard(w, SETTINGS, daily="07:30")
    panel = (await w.say(SETTINGS, text("/settings")))[-1]
    await w.press(SETTINGS, panel, "Change check-in time")
    assert (await w.person(SETTINGS)).state == "setup:time:settings"


async def in_settings(w: Walker, replies: list[SentMessage]) -> None:
    if (await w.person(SETTINGS)).state == "setup:time:settings":
        return
    panel = offered(replies, "Change check-in time")
    assert panel is not None, [m.text for m in replies]
    asked = await w.press(SETTINGS, panel, "Change check-in time")
    assert asked == []  # the panel itself became the question: nothing piles up
    assert (await w.person(SETTINGS)).state == "setup:time:settings"


async def reach_checked_in(w: Walker) -> None:
    await onboard(w, CHECKED_IN, daily="07:30")
    w.bot.clock.set(datetime(2026, 12, 1, 7, 30, tzinfo=UTC))
    await w.bot.dispatcher.run_once()
    await w.bot.settle()
    w.bot.skip_all(CHECKED_IN)


async def stays(w: Walker, replies: list[SentMessage]) -> None:
    return None


async def test_every_natural_message_in_every_state_has_a_next_step(bot: BotUnderTest) -> None:
    tick = bot.runtime.jobs.get(JOB_NAME) if bot.runtime is not None else None
    if tick is not None:
        tick.enabled = False  # the walk decides when the check-in goes out
    w = Walker(bot)
    await onboard(w, IDLE, daily="07:30")
    await reach_onboarding(w)
    await reach_worksheet(w)
    await reach_settings(w)
    await reach_checked_in(w)
    states: list[tuple[str, int, Callable[[Walker, list[SentMessage]], Awaitable[None]]]] = [
        ("idle", IDLE, stays),
        ("onboarding step", ONBOARDING, in_onboarding),
        ("worksheet question", WORKSHEET, in_worksheet),
        ("settings step", SETTINGS, in_settings),
        ("after a check-in", CHECKED_IN, stays),
    ]
    started = time.perf_counter()
    sent = 0
    for name, user, keep in states:
        answers_before = await w.answers(user) if user == WORKSHEET else 0
        for message in MESSAGES:
            label = message[0]
            replies = await w.say(user, message)
            sent += 1
            assert replies, f"{name}: no reply to {label!r}"
            assert has_next_step(replies), f"{name}: {label!r} got {[m.text for m in replies]}"
            assert await w.journal_size(user) == 0, f"{name}: {label!r} went into the journal"
            if user == WORKSHEET and label not in ("👋", "🙂", "👍👍", "❤️", "..."):
                # Emoji alone can answer a worksheet question; words that steer never do.
                assert await w.answers(user) == answers_before, f"{label!r} became an answer"
            answers_before = await w.answers(user) if user == WORKSHEET else 0
            await keep(w, replies)
    elapsed = time.perf_counter() - started
    report(f"conversation walk: {sent} messages in 5 states, {elapsed:.1f} s")

    # Still just after the check-in: the first real sentence is the journal entry, and
    # Undo removes exactly that entry.
    replies = await w.say(CHECKED_IN, text("The kettle, the window, a blue mug."))
    saved = offered(replies, "Undo")
    assert saved is not None and "Saved to your journal" in (saved.text or "")
    assert await w.journal_size(CHECKED_IN) == 1
    # Only the first free text: the next one is not swept in; it is offered to keep.
    more = await w.say(CHECKED_IN, text("And the rain on the roof."))
    assert await w.journal_size(CHECKED_IN) == 1
    assert any("Would you like it in your journal?" in (m.text or "") for m in more)
    await w.press(CHECKED_IN, saved, "Undo")
    assert await w.journal_size(CHECKED_IN) == 0
    assert "Removed from your journal" in (bot.emu.messages_to(CHECKED_IN)[saved.index].text or "")
    # After Undo, free text that day is not taken for the journal again.
    await w.say(CHECKED_IN, text("Just talking to myself."))
    assert await w.journal_size(CHECKED_IN) == 0


async def test_crisis_words_alone_are_never_journal_entries(bot: BotUnderTest) -> None:
    tick = bot.runtime.jobs.get(JOB_NAME) if bot.runtime is not None else None
    if tick is not None:
        tick.enabled = False
    w = Walker(bot)
    await reach_checked_in(w)
    prompt = [m for m in bot.emu.messages_to(CHECKED_IN) if "Your words are kept" in (m.text or "")]
    for word in ("help", "ayuda", "sos", "danger", "I need help please", "🆘"):
        await w.say(CHECKED_IN, text(word))
        assert await w.journal_size(CHECKED_IN) == 0, word
    # Even as a Telegram reply to the check-in.
    await bot.send("help", user=CHECKED_IN, reply_to_message_id=prompt[-1].message_id)
    await bot.settle()
    assert await w.journal_size(CHECKED_IN) == 0
    # A sentence of their own with a crisis word in it is theirs to keep, once they say so.
    bot.skip_all(CHECKED_IN)
    await bot.send("I was in danger last night and I got out", user=CHECKED_IN)
    await bot.settle()
    assert await w.journal_size(CHECKED_IN) == 0
    reply = bot.unread(CHECKED_IN)[0]
    await w.press(CHECKED_IN, reply, "Keep in my journal")
    assert await w.journal_size(CHECKED_IN) == 1
    kept = bot.emu.messages_to(CHECKED_IN)[reply.index]
    assert kept.text == reply.text and buttons_of(kept)  # the lines and their buttons stay
    assert "Take that out" not in str(buttons_of(kept))


async def test_stop_offers_to_pause_or_end_and_end_ends(bot: BotUnderTest) -> None:
    w = Walker(bot)
    await onboard(w, IDLE, daily="07:30")
    replies = await w.say(IDLE, text("stop"))
    offer = offered(replies, "End check-ins")
    assert offer is not None and offered(replies, "Pause check-ins") is not None
    await w.press(IDLE, offer, "End check-ins")
    p = await w.person(IDLE)
    assert not p.profile.part(CheckinPrefs).daily_enabled and p.next_due_utc is None
    assert "Check-ins have ended" in (bot.emu.messages_to(IDLE)[offer.index].text or "")
    # With nothing left to stop, "stop" says so, and what else there is.
    replies = await w.say(IDLE, text("stop"))
    assert any("no daily check-ins to stop" in (m.text or "") for m in replies)
    assert has_next_step(replies)


async def test_cancel_in_settings_keeps_what_was_saved_and_one_panel(bot: BotUnderTest) -> None:
    w = Walker(bot)
    await onboard(w, SETTINGS, daily="07:30")
    panel = (await w.say(SETTINGS, text("/settings")))[-1]
    assert "Turn neutral wording on" in [label for label, _ in buttons_of(panel)]
    assert "what a tap" not in (panel.text or "")
    # A toggle edits the panel in place and says nothing else.
    assert await w.press(SETTINGS, panel, "Turn neutral wording on") == []
    assert (await w.person(SETTINGS)).profile.neutral_wording
    assert await w.press(SETTINGS, panel, "Change check-in time") == []
    question = bot.emu.messages_to(SETTINGS)[panel.index]
    assert "once a day" not in (question.text or "")  # not asked again whether they want them
    replies = await w.say(SETTINGS, text("19:30"))
    assert [m.text and "Check-in time: 19:30" in m.text for m in replies] == [True]
    assert panel.message_id in bot.emu.deleted_ids(SETTINGS)  # the old one does not linger
    new_panel = replies[0]
    replies = await w.press(SETTINGS, new_panel, "Close")
    assert replies == []
    closed = bot.emu.messages_to(SETTINGS)[new_panel.index].text or ""
    assert "saved" not in closed.lower()
    p = await w.person(SETTINGS)
    assert p.profile.part(CheckinPrefs).daily_time == "19:30" and p.profile.neutral_wording
    assert decode_state(p.state) is None


async def test_snooze_says_what_comes_back(bot: BotUnderTest) -> None:
    w = Walker(bot)
    tick = bot.runtime.jobs.get(JOB_NAME) if bot.runtime is not None else None
    if tick is not None:
        tick.enabled = False
    await reach_checked_in(w)
    prompt = [m for m in bot.emu.messages_to(CHECKED_IN) if "Your words are kept" in (m.text or "")]
    replies = await w.press(CHECKED_IN, prompt[-1], "Remind me in an hour")
    assert any("today's check-in again" in (m.text or "") for m in replies)
    bot.clock.advance(timedelta(minutes=1))


async def test_not_now_in_onboarding_is_acknowledged(bot: BotUnderTest) -> None:
    await bot.send("/start")
    ask = await bot.next(containing="Which country")
    await bot.press(ask, data="cty:GB")
    ask_time = await bot.next(containing="check-in once a day")
    await bot.press(ask_time, "Not now")
    await bot.find("no daily check-ins")  # the question itself says so, buttons gone
    safety = await bot.next(containing="Could someone else read")
    await bot.press(safety, "Yes, maybe")
    advice = await bot.next(containing="passcode")
    await bot.press(advice, "Not now")
    await bot.find("turn these on at any time")
    await bot.next(containing="All set")


async def test_menu_buttons_run_their_commands(bot: BotUnderTest) -> None:
    w = Walker(bot)
    await onboard(w, IDLE, daily=None)
    menu = (await w.say(IDLE, text("/menu")))[-1]
    assert "/worksheets" in (menu.text or "")
    await w.press(IDLE, menu, "Settings")
    assert "Your settings" in (bot.emu.messages_to(IDLE)[menu.index].text or "")  # in place
    replies = await w.say(IDLE, text("/nonsense"))
    assert "don't know that command" in (replies[0].text or "") and buttons_of(replies[0])
    journal = await w.press(IDLE, replies[0], "My journal")
    assert any("journal is empty" in (m.text or "") for m in journal)
