"""The Bot API emulator, driven by the real python-telegram-bot over HTTP."""

from __future__ import annotations

import asyncio
import datetime as dtm
import logging
from typing import Any

import aiohttp
import pytest
from telegram import (
    Bot,
    BotCommand,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    ReplyKeyboardMarkup,
    Update,
)
from telegram.constants import ChatAction, ParseMode
from telegram.error import BadRequest, Conflict, Forbidden, NetworkError, RetryAfter, TimedOut
from telegram.ext import (
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
)
from telegram.request import HTTPXRequest

from bot.emulator import WAIT_SECONDS, BotApiEmulator, SentMessage
from tests.helpers import raw_emulator
from tests.helpers.bot import GIVE_UP, TOO_LATE
from tests.helpers.raw_emulator import BOT_ID, START, TOKEN, TWO_DAYS, USER, FakeClock

# The emulator-only fixtures (tests/helpers/raw_emulator.py), by name in this module.
clock = raw_emulator.clock
emu = raw_emulator.emu
bot = raw_emulator.bot

OTHER_USER = 1002
GROUP = -100500


def keyboard(*pairs: tuple[str, str]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(text, callback_data=data)] for text, data in pairs]
    )


async def post_raw(url: str, **kwargs: Any) -> tuple[int, dict[str, Any]]:
    async with aiohttp.ClientSession() as session, session.post(url, **kwargs) as response:
        return response.status, await response.json()


# -- identity and plain sending ---------------------------------------------------------


async def test_get_me_takes_the_bot_id_from_the_token(emu: BotApiEmulator, bot: Bot) -> None:
    me = await bot.get_me()

    assert me.id == BOT_ID
    assert me.is_bot
    assert me.username == "steady_emulator_bot"
    assert emu.base_url == f"http://127.0.0.1:{emu.port}/bot"
    assert emu.stats["getMe"] >= 1


async def test_send_message_round_trips_keyboard_and_flags(emu: BotApiEmulator, bot: Bot) -> None:
    emu.user_sends(USER, "hello")
    markup = keyboard(("Yes", "answer:yes"), ("No", "answer:no"))

    sent = await bot.send_message(
        USER,
        "<b>Ready?</b>",
        parse_mode=ParseMode.HTML,
        reply_markup=markup,
        protect_content=True,
        disable_notification=True,
    )

    assert sent.message_id == 2  # the person's message took 1: one sequence per chat
    assert sent.chat.id == USER
    assert sent.from_user is not None and sent.from_user.id == BOT_ID
    assert sent.text == "<b>Ready?</b>"  # parse_mode is stored, not applied
    assert sent.reply_markup == markup
    assert sent.has_protected_content
    assert sent.date == dtm.datetime.fromtimestamp(START, dtm.UTC)

    [stored] = emu.messages_to(USER)
    assert stored.message_id == 2
    assert stored.text == "<b>Ready?</b>"
    assert stored.parse_mode == "HTML"
    assert stored.reply_markup == markup.to_dict()
    assert stored.protect_content and stored.disable_notification
    assert stored.date == int(START)
    assert not stored.deleted and stored.edits == 0
    assert emu.messages_total == 1


async def test_reply_keyboard_is_stored_but_not_echoed(emu: BotApiEmulator, bot: Bot) -> None:
    markup = ReplyKeyboardMarkup([["A"]], one_time_keyboard=True)
    sent = await bot.send_message(USER, "Pick one", reply_markup=markup)

    assert sent.reply_markup is None
    assert emu.messages_to(USER)[0].reply_markup == markup.to_dict()
    assert markup.to_dict()["keyboard"] == [[{"text": "A"}]]


async def test_replies_quote_the_message_and_refuse_a_missing_one(
    emu: BotApiEmulator, bot: Bot
) -> None:
    update = emu.user_sends(USER, "I need help")
    asked = update["message"]["message_id"]

    reply = await bot.send_message(USER, "I'm here", reply_to_message_id=asked)

    assert reply.reply_to_message is not None
    assert reply.reply_to_message.text == "I need help"
    assert emu.messages_to(USER)[0].reply_to_message_id == asked
    with pytest.raises(BadRequest, match=r"(?i)message to be replied not found"):
        await bot.send_message(USER, "to nothing", reply_to_message_id=999)


async def test_text_limits_count_utf16_units(emu: BotApiEmulator, bot: Bot) -> None:
    await bot.send_message(USER, "x" * 4096)
    with pytest.raises(BadRequest, match=r"(?i)message is too long"):
        await bot.send_message(USER, "x" * 4097)
    # 2048 emoji are 4096 UTF-16 units; one more pushes it over.
    await bot.send_message(USER, "😀" * 2048)
    with pytest.raises(BadRequest, match=r"(?i)message is too long"):
        await bot.send_message(USER, "😀" * 2048 + "x")
    with pytest.raises(BadRequest, match=r"(?i)message text is empty"):
        await bot.send_message(USER, "   ")

    assert len(emu.messages_to(USER)) == 2


async def test_unknown_chat_and_oversized_callback_data_are_refused(
    emu: BotApiEmulator, bot: Bot
) -> None:
    with pytest.raises(BadRequest, match=r"(?i)chat not found"):
        await bot.send_message(424242, "anyone?")
    with pytest.raises(BadRequest, match=r"(?i)BUTTON_DATA_INVALID"):
        await bot.send_message(USER, "too much", reply_markup=keyboard(("B", "x" * 65)))

    assert emu.messages_to(USER) == []


async def test_send_chat_action_is_recorded(emu: BotApiEmulator, bot: Bot) -> None:
    assert await bot.send_chat_action(USER, ChatAction.TYPING)

    assert ("sendChatAction", {"chat_id": USER, "action": "typing"}) in emu.calls
    assert emu.stats["sendChatAction"] == 1


# -- editing and deleting ---------------------------------------------------------------


async def test_edits_change_text_and_markup_and_refuse_no_change(
    emu: BotApiEmulator, bot: Bot, clock: FakeClock
) -> None:
    sent = await bot.send_message(USER, "Step 1", reply_markup=keyboard(("Next", "next")))
    clock.now += 60

    edited = await bot.edit_message_text(
        "Step 2", chat_id=USER, message_id=sent.message_id, reply_markup=keyboard(("Go", "go"))
    )
    assert isinstance(edited, type(sent))
    assert edited.text == "Step 2"
    assert edited.edit_date == dtm.datetime.fromtimestamp(START + 60, dtm.UTC)

    with pytest.raises(BadRequest, match=r"(?i)message is not modified"):
        await bot.edit_message_text(
            "Step 2", chat_id=USER, message_id=sent.message_id, reply_markup=keyboard(("Go", "go"))
        )

    await bot.edit_message_reply_markup(
        chat_id=USER, message_id=sent.message_id, reply_markup=keyboard(("Back", "back"))
    )
    with pytest.raises(BadRequest, match=r"(?i)message is not modified"):
        await bot.edit_message_reply_markup(
            chat_id=USER, message_id=sent.message_id, reply_markup=keyboard(("Back", "back"))
        )

    # Telegram drops the keyboard when an edit leaves reply_markup out.
    await bot.edit_message_text("Done", chat_id=USER, message_id=sent.message_id)

    [stored] = emu.messages_to(USER)
    assert stored.text == "Done"
    assert stored.reply_markup is None
    assert stored.edits == 3
    with pytest.raises(BadRequest, match=r"(?i)message to edit not found"):
        await bot.edit_message_text("?", chat_id=USER, message_id=999)


async def test_delete_message_rules(emu: BotApiEmulator, bot: Bot, clock: FakeClock) -> None:
    mine = await bot.send_message(USER, "soon gone")
    theirs = emu.user_sends(USER, "my address is ...")["message"]["message_id"]

    assert await bot.delete_message(USER, mine.message_id)
    assert await bot.delete_message(USER, theirs)
    with pytest.raises(BadRequest, match=r"(?i)message to delete not found"):
        await bot.delete_message(USER, mine.message_id)
    with pytest.raises(BadRequest, match=r"(?i)message to delete not found"):
        await bot.delete_message(USER, 999)

    old = await bot.send_message(USER, "from two days ago")
    clock.now += TWO_DAYS + 1
    with pytest.raises(BadRequest, match=r"(?i)message can't be deleted"):
        await bot.delete_message(USER, old.message_id)

    assert emu.deleted_ids(USER) == {mine.message_id, theirs}
    messages = emu.messages_to(USER)
    assert [m.deleted for m in messages] == [True, False]


async def test_delete_messages_skips_what_it_cannot_find(emu: BotApiEmulator, bot: Bot) -> None:
    first = await bot.send_message(USER, "one")
    second = await bot.send_message(USER, "two")
    kept = await bot.send_message(USER, "three")

    assert await bot.delete_messages(USER, [first.message_id, second.message_id, 999])

    assert emu.deleted_ids(USER) == {first.message_id, second.message_id}
    assert not emu.messages_to(USER)[2].deleted
    assert kept.message_id not in emu.deleted_ids(USER)


# -- documents and commands -------------------------------------------------------------


async def test_send_document_uploads_bytes(emu: BotApiEmulator, bot: Bot) -> None:
    content = b"%PDF-1.7 not really\x00\xff"

    sent = await bot.send_document(
        USER, document=content, filename="export.pdf", caption="Your export", protect_content=True
    )

    assert sent.document is not None
    assert sent.document.file_name == "export.pdf"
    assert sent.document.file_size == len(content)
    assert sent.caption == "Your export"
    [stored] = emu.messages_to(USER)
    assert stored.text is None
    assert stored.protect_content
    assert stored.document is not None
    assert stored.document.filename == "export.pdf"
    assert stored.document.data == content == stored.document.bytes
    assert stored.document.caption == "Your export"
    assert stored.document.mime_type == "application/pdf"
    assert emu.calls[-1] == (
        "sendDocument",
        {
            "chat_id": USER,
            "caption": "Your export",
            "protect_content": True,
            "document": {"filename": "export.pdf", "size": len(content)},
        },
    )

    again = await bot.send_document(USER, document=sent.document.file_id)
    assert again.document is not None and again.document.file_name == "export.pdf"


async def test_set_my_commands_round_trips(emu: BotApiEmulator, bot: Bot) -> None:
    commands = [BotCommand("start", "Begin"), BotCommand("sos", "Get help now")]

    assert await bot.set_my_commands(commands)
    assert await bot.set_my_commands([BotCommand("start", "Anfangen")], language_code="de")

    assert tuple(await bot.get_my_commands()) == tuple(commands)
    assert emu.commands == [{"command": "start", "description": "Anfangen"}]
    assert emu.commands_for() == [c.to_dict() for c in commands]
    assert emu.commands_for(language_code="de") == [{"command": "start", "description": "Anfangen"}]
    with pytest.raises(BadRequest, match=r"(?i)BOT_COMMAND_INVALID"):
        await bot.set_my_commands([BotCommand("Not-Valid", "x")])


# -- updates ----------------------------------------------------------------------------


async def test_long_poll_returns_when_an_update_arrives(emu: BotApiEmulator, bot: Bot) -> None:
    assert await bot.get_updates(timeout=0) == ()

    polling = asyncio.create_task(bot.get_updates(timeout=50))
    await emu.wait_for_call("getUpdates", count=2)
    queued = emu.user_sends(USER, "hello")
    # Half the 50 s poll (Telegram's longest): only an answer the update woke passes.
    updates = await asyncio.wait_for(polling, timeout=25)

    assert [u.update_id for u in updates] == [queued["update_id"]]
    message = updates[0].message
    assert message is not None and message.text == "hello"
    assert message.from_user is not None and not message.from_user.is_bot

    # Unconfirmed updates come back; an offset past them confirms them.
    assert len(await bot.get_updates(timeout=0)) == 1
    assert emu.pending_updates() == 1
    assert await bot.get_updates(offset=queued["update_id"] + 1, timeout=0) == ()
    assert emu.pending_updates() == 0
    await emu.wait_until_consumed()


async def test_a_second_poll_ends_the_first_with_conflict(emu: BotApiEmulator, bot: Bot) -> None:
    first = asyncio.create_task(bot.get_updates(timeout=30))
    await emu.wait_for_call("getUpdates")

    # A second bot instance: PTB's own getUpdates pool holds one connection.
    async with Bot(TOKEN, base_url=emu.base_url) as twin:
        assert await twin.get_updates(timeout=0) == ()
    with pytest.raises(Conflict):
        await asyncio.wait_for(first, timeout=WAIT_SECONDS)


async def test_updates_for_media_edits_and_groups_parse_in_ptb(
    emu: BotApiEmulator, bot: Bot
) -> None:
    emu.user_sends(USER, photo=True, caption="look")
    emu.user_sends(USER, sticker=True)
    emu.user_sends(USER, voice=True)
    text_id = emu.user_sends(USER, "/start now")["message"]["message_id"]
    emu.user_edits(USER, text_id, "/help")
    emu.user_sends(OTHER_USER, "/start@steady_emulator_bot", chat_id=GROUP, chat_type="group")

    updates = await bot.get_updates(timeout=0)

    photo, sticker, voice, command, edit, group = updates
    assert photo.message is not None and len(photo.message.photo) == 2
    assert photo.message.caption == "look"
    assert sticker.message is not None and sticker.message.sticker is not None
    assert voice.message is not None and voice.message.voice is not None
    assert command.message is not None
    assert command.message.parse_entities() == {command.message.entities[0]: "/start"}
    assert edit.edited_message is not None
    assert edit.edited_message.text == "/help"
    assert edit.edited_message.edit_date is not None
    assert group.message is not None
    assert group.message.chat.type == "group"
    assert group.message.chat.title == "Test group"
    assert group.message.entities[0].length == len("/start@steady_emulator_bot")


async def test_callback_press_and_answer_through_get_updates(emu: BotApiEmulator, bot: Bot) -> None:
    sent = await bot.send_message(USER, "Choose", reply_markup=keyboard(("A", "pick:a")))
    emu.user_presses(USER, sent.message_id, "pick:../../not-a-button")

    [update] = await bot.get_updates(timeout=0)

    query = update.callback_query
    assert query is not None
    assert query.data == "pick:../../not-a-button"
    assert query.message is not None and query.message.message_id == sent.message_id
    assert query.from_user.id == USER
    assert await query.answer("Noted", show_alert=True)
    assert emu.callback_answers == [
        {
            "callback_query_id": query.id,
            "text": "Noted",
            "show_alert": True,
            "url": None,
            "cache_time": None,
            "chat_id": USER,
            "message_id": sent.message_id,
            "user_id": USER,
        }
    ]
    with pytest.raises(BadRequest, match=r"(?i)query is too old"):
        await query.answer()


# -- a real Application -----------------------------------------------------------------


async def test_application_answers_start_and_a_forged_callback(emu: BotApiEmulator) -> None:
    seen: list[str] = []

    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_message is not None
        await update.effective_message.reply_text("Welcome", reply_markup=keyboard(("Go", "go")))

    async def button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None and query.data is not None
        seen.append(query.data)
        await query.answer()
        await query.edit_message_text(f"pressed {query.data}")

    app = ApplicationBuilder().token(TOKEN).base_url(emu.base_url).build()
    app.add_handler(CommandHandler("start", start))
    app.add_handler(CallbackQueryHandler(button))
    async with app:
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0)
        try:
            emu.user_sends(USER, "/start")
            welcome = await emu.wait_for_message(USER, predicate=lambda m: m.text == "Welcome")
            emu.user_presses(USER, welcome.message_id, "admin:delete_everyone")
            edited = await emu.wait_for_message(USER, predicate=lambda m: m.edits == 1)
            await emu.wait_until_consumed()
        finally:
            await app.updater.stop()
            await app.stop()

    assert seen == ["admin:delete_everyone"]
    assert edited.text == "pressed admin:delete_everyone"
    assert edited.reply_markup is None
    assert len(emu.callback_answers) == 1
    assert emu.stats["deleteWebhook"] == 1


# -- faults -----------------------------------------------------------------------------


async def test_429_raises_retry_after_and_sends_nothing(
    emu: BotApiEmulator, bot: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "true")  # RetryAfter.retry_after as a timedelta
    emu.inject_fault("sendMessage", "429", retry_after=7)

    with pytest.raises(RetryAfter) as caught:
        await bot.send_message(USER, "flood")

    assert caught.value.retry_after == dtm.timedelta(seconds=7)
    assert emu.messages_to(USER) == []
    await bot.send_message(USER, "later")
    assert [m.text for m in emu.messages_to(USER)] == ["later"]


async def test_500_403_and_400_faults_raise_and_send_nothing(emu: BotApiEmulator, bot: Bot) -> None:
    emu.inject_fault("sendMessage", "500")
    emu.inject_fault("sendMessage", "403")
    emu.inject_fault("sendMessage", "400")

    with pytest.raises(NetworkError, match="Internal Server Error") as server_error:
        await bot.send_message(USER, "a")
    assert not isinstance(server_error.value, TimedOut)
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(USER, "b")
    with pytest.raises(BadRequest):
        await bot.send_message(USER, "c")

    assert emu.messages_to(USER) == []
    assert emu.stats["sendMessage"] == 3


async def test_fault_only_hits_the_named_chat(emu: BotApiEmulator, bot: Bot) -> None:
    emu.add_user(OTHER_USER)
    emu.inject_fault("sendMessage", "403", chat_id=OTHER_USER, times=2)

    await bot.send_message(USER, "fine")
    for _ in range(2):
        with pytest.raises(Forbidden):
            await bot.send_message(OTHER_USER, "no")
    await bot.send_message(OTHER_USER, "fine again")

    assert [m.text for m in emu.messages_to(OTHER_USER)] == ["fine again"]
    with pytest.raises(ValueError, match="does not implement"):
        emu.inject_fault("sendMesage", "500")


async def test_timeout_fault_times_out_but_the_message_arrives(emu: BotApiEmulator) -> None:
    emu.add_user(USER)
    emu.inject_fault("sendMessage", "timeout", delay=TOO_LATE)
    request = HTTPXRequest(read_timeout=GIVE_UP)

    async with Bot(TOKEN, base_url=emu.base_url, request=request) as impatient:
        with pytest.raises(TimedOut):
            await impatient.send_message(USER, "did it go?")

    arrived = await emu.wait_for_message(USER)
    assert arrived.text == "did it go?"


async def test_blocked_user_gets_403_until_unblocked(emu: BotApiEmulator, bot: Bot) -> None:
    emu.block(USER)
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(USER, "hello?")
    with pytest.raises(Forbidden):
        await bot.send_chat_action(USER, ChatAction.TYPING)

    emu.unblock(USER)
    await bot.send_message(USER, "hello again")
    assert [m.text for m in emu.messages_to(USER)] == ["hello again"]


# -- raw HTTP: encodings and error shapes -----------------------------------------------


async def test_json_bodies_work_with_objects_as_values_or_as_strings(
    emu: BotApiEmulator,
) -> None:
    emu.add_user(USER)
    url = f"{emu.base_url}{TOKEN}/sendMessage"
    markup = {"inline_keyboard": [[{"text": "A", "callback_data": "a"}]]}

    status, body = await post_raw(url, json={"chat_id": USER, "text": "1", "reply_markup": markup})
    assert status == 200 and body["ok"]
    assert body["result"]["reply_markup"] == markup
    status, body = await post_raw(
        url, json={"chat_id": str(USER), "text": 2, "reply_markup": '{"remove_keyboard": true}'}
    )
    assert status == 200 and body["result"]["text"] == "2"

    assert [m.reply_markup for m in emu.messages_to(USER)] == [markup, {"remove_keyboard": True}]


async def test_error_shapes_match_telegram(emu: BotApiEmulator) -> None:
    emu.add_user(USER)
    emu.inject_fault("sendMessage", "429", retry_after=3)

    assert await post_raw(f"{emu.base_url}{TOKEN}/fooBar") == (
        404,
        {"ok": False, "error_code": 404, "description": "Not Found: method not found"},
    )
    assert await post_raw(f"{emu.base_url}not-a-token/getMe") == (
        404,
        {"ok": False, "error_code": 404, "description": "Not Found"},
    )
    assert await post_raw(
        f"{emu.base_url}{TOKEN}/sendMessage", data={"chat_id": str(USER), "text": "x"}
    ) == (
        429,
        {
            "ok": False,
            "error_code": 429,
            "description": "Too Many Requests: retry after 3",
            "parameters": {"retry_after": 3},
        },
    )


# -- the test-facing API ----------------------------------------------------------------


async def test_wait_for_message_reports_what_was_sent(emu: BotApiEmulator, bot: Bot) -> None:
    await bot.send_message(USER, "first", reply_markup=keyboard(("Go", "go")))
    second = await bot.send_message(USER, "second")

    found = await emu.wait_for_message(USER, after=1)
    assert found.message_id == second.message_id
    assert emu.sent_count(USER) == 2

    with pytest.raises(TimeoutError) as caught:
        await emu.wait_for_message(USER, predicate=lambda m: m.text == "third", timeout=0.05)
    report = str(caught.value)
    assert "'first' [buttons: Go]" in report
    assert "'second'" in report


async def test_wait_for_message_sees_a_later_edit(emu: BotApiEmulator, bot: Bot) -> None:
    sent = await bot.send_message(USER, "draft")

    waiting = asyncio.create_task(emu.wait_for_message(USER, predicate=lambda m: m.text == "final"))
    await bot.edit_message_text("final", chat_id=USER, message_id=sent.message_id)

    found: SentMessage = await asyncio.wait_for(waiting, timeout=WAIT_SECONDS)
    assert found.message_id == sent.message_id


async def test_history_is_bounded_and_can_be_cleared(clock: FakeClock) -> None:
    async with BotApiEmulator(clock=clock, keep_per_chat=3) as small:
        small.add_user(USER)
        async with Bot(TOKEN, base_url=small.base_url) as client:
            for n in range(5):
                await client.send_message(USER, f"m{n}")

            assert [m.text for m in small.messages_to(USER)] == ["m2", "m3", "m4"]
            assert [m.index for m in small.messages_to(USER)] == [2, 3, 4]
            assert (await small.wait_for_message(USER, after=3)).text == "m3"

            small.clear_messages()
            assert small.messages_to(USER) == []
            assert small.calls == []
            await client.send_message(USER, "after clear")

        assert small.messages_total == 6
        assert (await small.wait_for_message(USER, after=5)).text == "after clear"


async def test_logs_name_methods_but_never_texts_or_tokens(
    emu: BotApiEmulator, bot: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    emu.inject_fault("sendMessage", "500")

    with pytest.raises(NetworkError):
        await bot.send_message(USER, "my secret plan")
    await bot.send_message(USER, "my secret plan")

    ours = [r for r in caplog.records if r.name.startswith(("bot.emulator", "aiohttp"))]
    assert any("sendMessage" in r.getMessage() for r in ours)
    for record in ours:
        assert "secret" not in record.getMessage()
        assert TOKEN.split(":")[1] not in record.getMessage()


async def test_listeners_see_sends_edits_and_deletes(emu: BotApiEmulator, bot: Bot) -> None:
    events: list[tuple[int, str]] = []
    remove = emu.add_listener(lambda message, event: events.append((message.message_id, event)))

    sent = await bot.send_message(USER, "live")
    await bot.edit_message_text("live, edited", chat_id=USER, message_id=sent.message_id)
    await bot.delete_message(USER, sent.message_id)
    remove()
    await bot.send_message(USER, "unseen")

    assert events == [
        (sent.message_id, "sent"),
        (sent.message_id, "edited"),
        (sent.message_id, "deleted"),
    ]


# -- files people send ------------------------------------------------------------------


async def test_files_people_send_can_be_fetched_into_memory(emu: BotApiEmulator) -> None:
    """getFile describes a file and /file/bot<token>/<path> serves its bytes, as Telegram
    does for a bot; unknown ids and files over 20 MB are refused."""
    update = emu.user_sends(USER, document=("a.txt", b"the bytes", "text/plain"))
    photo = emu.user_sends(USER, photo_bytes=b"\x89PNG-bytes")
    file_base = emu.base_url.removesuffix("/bot") + "/file/bot"
    async with Bot(TOKEN, base_url=emu.base_url, base_file_url=file_base) as client:
        document = await client.get_file(update["message"]["document"]["file_id"])
        assert document.file_size == len(b"the bytes")
        assert bytes(await document.download_as_bytearray()) == b"the bytes"
        largest = photo["message"]["photo"][-1]
        fetched = await client.get_file(largest["file_id"])
        assert bytes(await fetched.download_as_bytearray()) == b"\x89PNG-bytes"
        with pytest.raises(BadRequest, match=r"(?i)invalid file_id"):
            await client.get_file("no-such-file")
        big = emu.user_sends(USER, document=("big.bin", b"x" * 20_000_001, "application/zip"))
        with pytest.raises(BadRequest, match=r"(?i)too big"):
            await client.get_file(big["message"]["document"]["file_id"])
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{file_base}{TOKEN}/files/unknown") as response:
            assert response.status == 404


async def test_descriptions_per_language_round_trip(emu: BotApiEmulator, bot: Bot) -> None:
    assert await bot.set_my_description("A quiet companion.")
    assert await bot.set_my_description("Una compañía tranquila.", language_code="es")
    assert await bot.set_my_short_description("Quiet.")
    assert await bot.set_my_short_description("Tranquila.", language_code="es")

    assert (await bot.get_my_description(language_code="es")).description == (
        "Una compañía tranquila."
    )
    # A language with none of its own gets the default, as in Telegram.
    assert (await bot.get_my_description(language_code="fr")).description == "A quiet companion."
    assert (await bot.get_my_short_description()).short_description == "Quiet."
    assert emu.description("es") == "Una compañía tranquila."
    assert emu.short_description("es") == "Tranquila."

    assert await bot.set_my_description("", language_code="es")  # empty removes it
    assert emu.description("es") is None
    with pytest.raises(BadRequest, match="too long"):
        await bot.set_my_short_description("x" * 121)
    with pytest.raises(BadRequest, match="language code"):
        await bot.set_my_description("x", language_code="español")
