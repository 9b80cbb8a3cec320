"""An overloaded replica still answers a crisis first (issue 25): fetched updates wait in
the update processor's admission queue (bot/transport/admission.py), raw, per chat, and
reach the handlers as slots free, while a crisis message fetched behind them has its reply
sent at once; past the queue's bounds an ordinary update is shed and its chat told,
kindly, to send it again. Order is read from the emulator's own record of sends."""

from __future__ import annotations

import asyncio

from bot.emulator import SentMessage
from bot.transport.ordering import MAX_CONCURRENT_UPDATES, CrisisFirstUpdateProcessor
from tests.helpers.bot import USER, BotUnderTest
from tests.helpers.reporting import report

CHATS = [USER + 100 + i for i in range(12)]
EACH = 50  # 600 ordinary updates: six polls' worth, far more than the slots
BUSY = "a lot of people are writing"


def processor(bot: BotUnderTest) -> CrisisFirstUpdateProcessor:
    assert bot.runtime is not None and bot.runtime.app is not None
    found = bot.runtime.app.update_processor
    assert isinstance(found, CrisisFirstUpdateProcessor)
    return found


def record_sends(bot: BotUnderTest) -> list[SentMessage]:
    sent: list[SentMessage] = []

    def on_event(message: SentMessage, event: str) -> None:
        if event == "sent":
            sent.append(message)

    bot.emu.add_listener(on_event)
    return sent


async def test_the_crisis_reply_goes_out_ahead_of_a_fetched_backlog(bot: BotUnderTest) -> None:
    assert len(CHATS) * EACH > 10 * MAX_CONCURRENT_UPDATES
    sent = record_sends(bot)
    seen: dict[str, int] = {}
    crisis_chat = CHATS[0]

    def at_the_crisis_reply(message: SentMessage, event: str) -> None:
        if event == "sent" and "999" in (message.text or "") and not seen:
            # The bot and the emulator share this loop: its tasks, at this moment.
            seen["tasks"] = len(asyncio.all_tasks())
            seen["waiting"] = processor(bot).admission.waiting
            seen["unfetched"] = bot.emu.pending_updates()

    bot.emu.add_listener(at_the_crisis_reply)
    for chat in CHATS:
        for i in range(EACH):
            await bot.send(f"note {i}: a quiet day, nothing much", user=chat)
    # Last of all, from a chat with 50 updates of its own ahead of it.
    await bot.send("help, he is outside", user=crisis_chat)
    await bot.find("999", chat=crisis_chat)
    await bot.settle(timeout=300)
    own = [m for m in sent if m.chat_id == crisis_chat]
    crisis_at = next(i for i, m in enumerate(own) if "999" in (m.text or ""))
    # Its reply went out ahead of its own chat's backlog (which runs one at a time, in
    # order), not in its turn after the 50.
    assert crisis_at < EACH // 2, crisis_at
    before = [m for m in sent[: sent.index(own[crisis_at])] if m.chat_id in CHATS]
    backlog = [m for m in sent if m.chat_id in CHATS and "999" not in (m.text or "")]
    assert len(before) < len(backlog) // 2, (len(before), len(backlog))
    # Everything was fetched by then, and the backlog waited as data in the admission
    # queue, not as hundreds of tasks parked on a semaphore (the code before made one
    # task per fetched update).
    assert seen["unfetched"] == 0, seen
    assert seen["waiting"] > len(backlog) // 2, seen
    assert seen["tasks"] < seen["waiting"] // 2, seen
    # Nothing shed (the queue's bounds are far above this) and nothing lost.
    assert processor(bot).shed_updates == 0
    for chat in CHATS:
        assert bot.emu.sent_count(chat) >= EACH, chat
    assert not [m for m in backlog if BUSY in (m.text or "")]
    report(
        f"overload: crisis reply {crisis_at} replies into its own chat's {EACH},"
        f" after {len(before)} of {len(backlog)} backlog replies;"
        f" {seen['waiting']} waiting, {seen['tasks']} tasks then"
    )


async def test_past_the_bounds_a_chat_is_told_once_to_send_again(bot: BotUnderTest) -> None:
    queue = processor(bot).admission
    queue.per_chat = 10
    sent = record_sends(bot)
    burst = CHATS[:4]
    for chat in burst:
        for i in range(50):
            await bot.send(f"note {i}: a quiet day, nothing much", user=chat)
    await bot.send("help, he is outside")  # never shed, however full the queue
    await bot.next(USER, containing="999")
    await bot.settle(timeout=300)
    shed = processor(bot).shed_updates
    assert shed > 0
    for chat in burst:
        notices = [m for m in sent if m.chat_id == chat and BUSY in (m.text or "")]
        assert len(notices) == 1, (chat, len(notices))
    # Every update was handled or shed, and its chat told: none dropped without a word.
    handled = [m for m in sent if m.chat_id in burst and BUSY not in (m.text or "")]
    per_update = len(handled) / (len(burst) * 50 - shed)
    assert per_update >= 1, (len(handled), shed)
    report(f"overload: {shed} of {len(burst) * 50} shed, {len(handled)} replies to the rest")
