"""The emulator is as strict as Telegram where the bot depends on it (issue 23): lengths
after trimming, entity bounds, captions both ways, deleteMessages all or nothing, webhook
ports, what allowed_updates=[] means, callback queries that expire, 413 for big uploads.
Driven by the real python-telegram-bot over HTTP."""

from __future__ import annotations

import pytest
from telegram import Bot, MessageEntity
from telegram.error import BadRequest, NetworkError
from telegram.ext import ExtBot

from bot.emulator import BotApiEmulator
from bot.transport.send_policy import SendPolicy
from tests.helpers import raw_emulator
from tests.helpers.raw_emulator import TOKEN, TWO_DAYS, USER, FakeClock

# The emulator-only fixtures (tests/helpers/raw_emulator.py), by name in this module.
clock = raw_emulator.clock
emu = raw_emulator.emu
bot = raw_emulator.bot


async def test_text_is_counted_after_trimming_and_entities_move_with_it(
    emu: BotApiEmulator, bot: Bot
) -> None:
    sent = await bot.send_message(USER, "\n  " + "x" * 4096 + "  \n")
    assert sent.text == "x" * 4096  # trimmed, as Telegram delivers it
    bold = MessageEntity(MessageEntity.BOLD, offset=3, length=2)
    moved = await bot.send_message(USER, "   hello", entities=[bold])
    assert moved.text == "hello"
    assert [(e.offset, e.length) for e in moved.entities] == [(0, 2)]


async def test_entities_outside_the_text_or_inside_a_character_are_refused(bot: Bot) -> None:
    past = MessageEntity(MessageEntity.BOLD, offset=3, length=5)
    with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
        await bot.send_message(USER, "hello", entities=[past])
    # "😀" is two UTF-16 units: an entity may not start between them.
    half = MessageEntity(MessageEntity.ITALIC, offset=1, length=2)
    with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
        await bot.send_message(USER, "😀ab", entities=[half])
    whole = MessageEntity(MessageEntity.ITALIC, offset=0, length=2)
    await bot.send_message(USER, "😀ab", entities=[whole])


async def test_a_bot_caption_is_1024_after_trimming(emu: BotApiEmulator, bot: Bot) -> None:
    sent = await bot.send_document(USER, b"x", filename="a.txt", caption=" " + "c" * 1024 + " ")
    assert sent.caption == "c" * 1024
    with pytest.raises(BadRequest, match=r"(?i)caption is too long"):
        await bot.send_document(USER, b"x", filename="a.txt", caption="c" * 1025)


async def test_people_send_long_captions_only_with_premium(emu: BotApiEmulator) -> None:
    with pytest.raises(ValueError, match="1024"):
        emu.user_sends(USER, photo=True, caption="c" * 1025)
    emu.user_is_premium(USER)
    update = emu.user_sends(USER, photo=True, caption="c" * 4096)
    assert update["message"]["from"]["is_premium"] is True
    with pytest.raises(ValueError, match="4096"):
        emu.user_sends(USER, photo=True, caption="c" * 4097)


async def test_delete_messages_refuses_the_whole_batch_for_one_old_id(
    emu: BotApiEmulator, bot: Bot, clock: FakeClock
) -> None:
    old = await bot.send_message(USER, "from two days ago")
    clock.now += TWO_DAYS + 1
    fresh = [(await bot.send_message(USER, f"new {n}")).message_id for n in range(3)]
    with pytest.raises(BadRequest, match=r"(?i)message can't be deleted"):
        await bot.delete_messages(USER, [old.message_id, *fresh])
    assert emu.deleted_ids(USER) == set()  # nothing went
    assert await bot.delete_messages(USER, [*fresh, 999])  # ids not found are skipped
    assert emu.deleted_ids(USER) == set(fresh)


async def test_webhooks_only_on_telegrams_ports(emu: BotApiEmulator, bot: Bot) -> None:
    with pytest.raises(BadRequest, match="ports 80, 88, 443 or 8443"):
        await bot.set_webhook("https://bot.example.org:8080/hook")
    with pytest.raises(BadRequest, match=r"(?i)https url"):
        await bot.set_webhook("http://bot.example.org/hook")
    for url in ("https://bot.example.org/hook", "https://bot.example.org:8443/hook"):
        assert await bot.set_webhook(url)
        assert emu.webhook is not None and emu.webhook.url == url
    # A local address is what a local Bot API server may post to, on any port.
    assert await bot.set_webhook("http://127.0.0.1:8081/hook")


async def test_an_empty_allowed_updates_means_the_default_set(
    emu: BotApiEmulator, bot: Bot
) -> None:
    member = {"chat": {"id": USER, "type": "private"}, "date": 1}
    emu.deliver_raw("chat_member", member)  # off by default: never queued
    assert emu.pending_updates() == 0
    await bot.get_updates(timeout=0, allowed_updates=["message", "chat_member"])
    emu.deliver_raw("chat_member", member)
    assert emu.pending_updates() == 1
    await bot.get_updates(offset=-0, timeout=0, allowed_updates=[])
    emu.deliver_raw("chat_member", member)
    emu.user_sends(USER, "hello")
    # The one queued before the call stays; after it, [] is everything but the default-off.
    kinds = [next(k for k in u.to_dict() if k != "update_id") for u in await bot.get_updates()]
    assert kinds == ["chat_member", "message"]


async def test_a_callback_query_answered_too_late_is_too_old(
    emu: BotApiEmulator, bot: Bot, clock: FakeClock
) -> None:
    sent = await bot.send_message(USER, "Choose")
    emu.user_presses(USER, sent.message_id, "a")
    emu.user_presses(USER, sent.message_id, "b")
    first, second = await bot.get_updates(timeout=0)
    assert first.callback_query is not None and second.callback_query is not None
    assert await first.callback_query.answer()
    clock.now += 60
    with pytest.raises(BadRequest, match=r"(?i)query is too old"):
        await second.callback_query.answer()


async def test_a_413_is_not_retried_by_the_send_policy(emu: BotApiEmulator) -> None:
    emu.add_user(USER)
    policy = SendPolicy(throttle=False, base_delay=0.0)
    emu.inject_fault("sendDocument", "413", times=6)
    async with ExtBot(TOKEN, base_url=emu.base_url, rate_limiter=policy) as client:
        with pytest.raises(NetworkError, match=r"(?i)entity too large"):
            await client.send_document(USER, b"big", filename="big.md")
    assert emu.stats["sendDocument"] == 1  # before: six uploads of the same refused bytes
