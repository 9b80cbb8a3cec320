"""`BotApiEmulator`: a local Telegram Bot API for end-to-end tests and the sandbox.

The real python-telegram-bot `Application` talks to it over HTTP (set
``base_url=emulator.base_url``), while the test plays the people on the other side
(`user_sends`, `user_presses`, ...) and reads back what the bot did (`messages_to`,
`wait_for_message`, ...). Everything runs in the caller's event loop.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any, Self

from aiohttp import web

from bot.emulator.faults import FaultKind, FaultPlan
from bot.emulator.methods import BotApi, utf16_len
from bot.emulator.render import BotProfile, bot_message_dict, quoted_message
from bot.emulator.server import ApiServer
from bot.emulator.state import (
    ChatLog,
    EmulatorState,
    MessageListener,
    MessagePredicate,
    PendingCallback,
    SentMessage,
    User,
    UserMessage,
    WebhookConfig,
    commands_key,
)
from bot.emulator.webhook import WebhookPusher

_GROUP_TYPES = ("group", "supergroup")

# The default outer bound of every wait_* below: what the bot reports ends a wait, this
# only ends a hung one. On a loaded 2-core machine one reply can take seconds, so it is
# generous; a test that expects nothing to arrive asserts that after an event, not a time.
WAIT_SECONDS = 60.0


def _chat_instance(chat_id: int) -> str:
    # Stable per chat and opaque, like Telegram's.
    return str((chat_id * 2_654_435_761) % 2**63)


def _text_fields(text: str, with_commands: bool) -> dict[str, Any]:
    fields: dict[str, Any] = {"text": text}
    if with_commands and text.startswith("/"):
        # Telegram marks the leading command, "@botname" included, so CommandHandler fires.
        command = text.split(maxsplit=1)[0]
        fields["entities"] = [{"type": "bot_command", "offset": 0, "length": utf16_len(command)}]
    return fields


def _describe(message: SentMessage) -> str:
    if message.document is not None:
        body = f"[document {message.document.filename!r}]"
    else:
        text = message.text or ""
        body = repr(text if len(text) <= 80 else text[:77] + "...")
    keyboard = (message.reply_markup or {}).get("inline_keyboard")
    if keyboard:
        labels = " | ".join(str(button.get("text")) for row in keyboard for button in row)
        body += f" [buttons: {labels}]"
    flags = " (deleted)" if message.deleted else ""
    return f"  #{message.index} id={message.message_id}{flags}: {body}"


class BotApiEmulator:
    """An in-process Telegram Bot API server.

    `clock` gives unix seconds; it dates messages and decides the 48-hour delete rule.
    `keep_per_chat` bounds the bot messages remembered per chat (older ones are forgotten,
    but `SentMessage.index` and `after` keep counting). `record_calls=False` stops `calls`
    growing during long benchmarks; `stats` always counts.
    """

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.time,
        keep_per_chat: int = 10_000,
        record_calls: bool = True,
        bot_first_name: str = "Steady (emulated)",
        bot_username: str = "steady_emulator_bot",
    ) -> None:
        if keep_per_chat < 1:
            raise ValueError("keep_per_chat must be at least 1")
        self._state = EmulatorState(clock, keep_per_chat, record_calls)
        self._profile = BotProfile(bot_first_name, bot_username)
        self._faults = FaultPlan()
        self._api = BotApi(self._state, self._profile)
        self._server = ApiServer(self._api, self._state, self._faults)
        self._runner: web.AppRunner | None = None
        self._pusher: WebhookPusher | None = None
        self.host = "127.0.0.1"
        self.port = 0
        self.base_url = ""

    # -- lifecycle ----------------------------------------------------------------------

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        if self._runner is not None:
            raise RuntimeError("the emulator is already running")
        self._api.stopping.clear()
        # access_log=None: aiohttp's access log would print the URL, and the URL holds the token.
        runner = web.AppRunner(self._server.application(), access_log=None, shutdown_timeout=2.0)
        await runner.setup()
        try:
            await web.TCPSite(runner, host, port).start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        self.host = host
        self.port = int(runner.addresses[0][1])
        self.base_url = f"http://{host}:{self.port}/bot"

    async def push_webhook(
        self,
        targets: Sequence[str] | None = None,
        *,
        reorder: bool = False,
        duplicate: bool = False,
        seed: int = 0,
    ) -> WebhookPusher:
        """Start posting queued updates as Telegram does once setWebhook was called: to its
        URL, or to `targets` in turn (the emulator as the load balancer too)."""
        config = self._state.webhook
        if config is None:
            raise RuntimeError("the bot has not called setWebhook")
        if self._pusher is not None:
            await self._pusher.stop()
        pusher = WebhookPusher(
            self._state.updates,
            config,
            targets=targets,
            reorder=reorder,
            duplicate=duplicate,
            seed=seed,
        )
        pusher.start()
        self._pusher = pusher
        return pusher

    def set_webhook(self, url: str, secret: str | None) -> None:
        """What a setWebhook call records, for tests that start pushing without the bot."""
        self._state.webhook = WebhookConfig(url, secret)

    @property
    def webhook(self) -> WebhookConfig | None:
        return self._state.webhook

    async def stop(self) -> None:
        if self._pusher is not None:
            await self._pusher.stop()
            self._pusher = None
        runner, self._runner = self._runner, None
        if runner is None:
            return
        self._api.stop_waiting()
        await runner.cleanup()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()

    # -- acting as people ---------------------------------------------------------------

    def add_user(
        self, user_id: int, *, first_name: str = "Test", language_code: str = "en"
    ) -> None:
        """Open a private chat without a message, so the bot may write first (as after a
        /start in an earlier run)."""
        self._state.private_chat(self._state.user(user_id, first_name, language_code))

    def user_language(self, user_id: int, language_code: str) -> None:
        """The person's Telegram app is now in another language: later updates carry it."""
        self._state.user(user_id).language_code = language_code

    def user_sends(
        self,
        user_id: int,
        text: str | None = None,
        *,
        chat_id: int | None = None,
        chat_type: str = "private",
        first_name: str = "Test",
        language_code: str = "en",
        reply_to_message_id: int | None = None,
        sticker: bool = False,
        photo: bool = False,
        voice: bool = False,
        caption: str | None = None,
        entities_for_commands: bool = True,
        photo_bytes: bytes | None = None,
        document: tuple[str, bytes, str] | None = None,
        file_size: int | None = None,
        other: tuple[str, dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """Queue a `message` update and return the whole update (``["message"]`` is the
        Message). Exactly one of text, sticker, photo, voice, document, or `other`: any
        other kind as its Message field and value (("location", {"latitude": 1.0,
        "longitude": 2.0})); a file's ids are filled in. A caption only with a photo, voice
        or document. `photo_bytes` are the largest size's bytes (getFile serves them);
        `document` is (file name, bytes, MIME type); `file_size` overrides the size
        announced (a file too big to fetch)."""
        kinds = [
            kind
            for kind, present in (
                ("text", text is not None),
                ("sticker", sticker),
                ("photo", photo or photo_bytes is not None),
                ("voice", voice),
                ("document", document is not None),
                ("other", other is not None),
            )
            if present
        ]
        if len(kinds) != 1:
            raise ValueError(
                "a message is exactly one of: text, sticker, photo, voice, document, other"
            )
        if text is not None and not text:
            raise ValueError("Telegram never delivers an empty text message")
        if caption is not None and kinds[0] not in ("photo", "voice", "document"):
            raise ValueError("only a photo, a voice message or a document carries a caption")

        state = self._state
        user = state.user(user_id, first_name, language_code)
        log = self._chat_for_sender(user, chat_id, chat_type)
        quoted = None
        if reply_to_message_id is not None:
            quoted = quoted_message(log, reply_to_message_id, self._profile)
            if quoted is None:
                raise LookupError(f"no message {reply_to_message_id} in chat {log.chat.id}")

        message_id = log.next_message_id()
        payload: dict[str, Any] = {
            "message_id": message_id,
            "from": user.to_dict(),
            "chat": log.chat.to_dict(),
            "date": state.now(),
        }
        if text is not None:
            payload.update(_text_fields(text, entities_for_commands))
        elif sticker:
            payload["sticker"] = self._media(
                type="regular", width=512, height=512, is_animated=False, is_video=False
            )
        elif other is not None:
            field, value = other
            is_file = field in ("video", "document", "audio", "animation", "video_note")
            payload[field] = self._media(**value) if is_file else value
        elif kinds[0] == "photo":
            data = photo_bytes if photo_bytes is not None else b"\xff\xd8emulator-photo\xff\xd9"
            small = self._media(b"\xff\xd8thumb\xff\xd9", width=90, height=90)
            large = self._media(data, width=800, height=800)
            if file_size is not None:
                large["file_size"] = file_size
            payload["photo"] = [small, large]
        elif document is not None:
            name, data, mime = document
            payload["document"] = self._media(data, file_name=name, mime_type=mime)
            if file_size is not None:
                payload["document"]["file_size"] = file_size
        else:
            payload["voice"] = self._media(
                b"OggS-emulator-voice", duration=3, mime_type="audio/ogg"
            )
        if caption is not None:
            payload["caption"] = caption
        if quoted is not None:
            payload["reply_to_message"] = quoted
        state.add_user_message(
            log, UserMessage(message_id, log.chat.id, user_id, payload["date"], payload)
        )
        return state.updates.push("message", payload)

    def user_edits(
        self, user_id: int, message_id: int, new_text: str, *, chat_id: int | None = None
    ) -> dict[str, Any]:
        """Queue an `edited_message` update for one of the person's own messages; a photo's
        or voice's caption is what gets edited."""
        log = self._existing_chat(chat_id if chat_id is not None else user_id)
        found = log.find(message_id)
        if not isinstance(found, UserMessage) or found.user_id != user_id or found.deleted:
            raise LookupError(f"user {user_id} has no message {message_id} in chat {log.chat.id}")
        payload = {k: v for k, v in found.payload.items() if k not in ("entities", "edit_date")}
        if "text" in payload:
            payload.update(_text_fields(new_text, with_commands=True))
        elif "photo" in payload or "voice" in payload:
            payload["caption"] = new_text
        else:
            raise ValueError("a sticker has no text to edit")
        payload["edit_date"] = self._state.now()
        found.payload = payload
        return self._state.updates.push("edited_message", payload)

    def user_presses(
        self, user_id: int, message_id: int, data: str, *, chat_id: int | None = None
    ) -> dict[str, Any]:
        """Queue a `callback_query` update for a button on a bot message. `data` is sent
        as given, whether or not the message has such a button: forged data is the point."""
        state = self._state
        log = self._existing_chat(chat_id if chat_id is not None else user_id)
        found = log.find(message_id)
        if not isinstance(found, SentMessage) or found.deleted:
            raise LookupError(f"no bot message {message_id} in chat {log.chat.id}")
        user = state.users.get(user_id) or state.user(user_id)
        query_id = state.new_callback_id()
        state.callbacks[query_id] = PendingCallback(log.chat.id, message_id, user_id)
        payload = {
            "id": query_id,
            "from": user.to_dict(),
            "message": bot_message_dict(found, log, self._profile),
            "chat_instance": _chat_instance(log.chat.id),
            "data": data,
        }
        return state.updates.push("callback_query", payload)

    def deliver_raw(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Queue an update exactly as given: for shapes a client may fail to parse (Bot API
        drift: a field it requires that Telegram no longer sends). Unsubscribed kinds are
        dropped, as Telegram does."""
        return self._state.updates.push(kind, payload)

    def _chat_for_sender(self, user: User, chat_id: int | None, chat_type: str) -> ChatLog:
        if chat_type == "private":
            if chat_id is not None and chat_id != user.id:
                raise ValueError("a private chat's id is the user's id")
            return self._state.private_chat(user)
        if chat_type not in _GROUP_TYPES:
            raise ValueError(
                f"chat_type must be 'private', 'group' or 'supergroup', not {chat_type!r}"
            )
        if chat_id is None:
            raise ValueError("a group message needs chat_id (negative, like Telegram's)")
        return self._state.group_chat(chat_id, chat_type)

    def _existing_chat(self, chat_id: int) -> ChatLog:
        log = self._state.chats.get(chat_id)
        if log is None:
            raise LookupError(f"no chat {chat_id}: nobody has written there yet")
        return log

    def _media(self, data: bytes | None = None, **fields: Any) -> dict[str, Any]:
        file_id, unique_id = self._state.new_file_ids()
        if data is not None:
            self._state.user_files[file_id] = data
            fields.setdefault("file_size", len(data))
        return {"file_id": file_id, "file_unique_id": unique_id, **fields}

    # -- reading what the bot did -------------------------------------------------------

    def messages_to(self, chat_id: int) -> list[SentMessage]:
        """The bot's messages to the chat, oldest first, deleted ones included (bounded by
        `keep_per_chat`)."""
        log = self._state.chats.get(chat_id)
        return list(log.bot_messages) if log is not None else []

    def sent_count(self, chat_id: int) -> int:
        """How many messages the bot ever sent to the chat: pass it as `after` to wait for
        the next one."""
        log = self._state.chats.get(chat_id)
        return log.sent_count if log is not None else 0

    def visible_ids(self, chat_id: int) -> list[int]:
        """Ids of the messages still in the chat, both directions, oldest first (bounded by
        `keep_per_chat`): what someone scrolling the chat would see."""
        log = self._state.chats.get(chat_id)
        if log is None:
            return []
        return [m.message_id for m in log.by_id.values() if not m.deleted]

    def deleted_ids(self, chat_id: int) -> set[int]:
        """Ids the bot deleted in the chat, its own messages and the person's."""
        log = self._state.chats.get(chat_id)
        return set(log.deleted_ids) if log is not None else set()

    async def wait_for_message(
        self,
        chat_id: int,
        *,
        predicate: MessagePredicate | None = None,
        # A plain argument rather than asyncio.timeout() around the call: the deadline is
        # part of the report this method raises.
        timeout: float = WAIT_SECONDS,  # noqa: ASYNC109
        after: int = 0,
    ) -> SentMessage:
        """The first bot message to the chat at index >= `after` that matches `predicate`,
        now or once it is sent or edited. Deleted messages count: they were sent."""
        watch = self._state.watch(chat_id, after, predicate)
        try:
            async with asyncio.timeout(timeout):
                return await watch.future
        except TimeoutError:
            raise TimeoutError(self._timeout_report(chat_id, timeout, after)) from None
        finally:
            self._state.unwatch(chat_id, watch)

    def add_listener(self, listener: MessageListener) -> Callable[[], None]:
        """Call `listener(message, event)` whenever the bot sends ("sent"), edits ("edited")
        or deletes ("deleted") a message, in any chat; returns a function that removes it.
        For the sandbox's live view; an exception it raises lands in `internal_errors`."""
        self._state.listeners.append(listener)

        def remove() -> None:
            if listener in self._state.listeners:
                self._state.listeners.remove(listener)

        return remove

    def _timeout_report(self, chat_id: int, timeout: float, after: int) -> str:
        sent = self.messages_to(chat_id)
        lines = [_describe(message) for message in sent[-10:]] or ["  (nothing)"]
        return (
            f"no bot message to chat {chat_id} at index >= {after} matched within {timeout}s;"
            f" {self.sent_count(chat_id)} sent, the last ones:\n" + "\n".join(lines)
        )

    async def wait_for_call(
        self,
        method: str,
        *,
        count: int = 1,
        # named in the report, like wait_for_message
        timeout: float = WAIT_SECONDS,  # noqa: ASYNC109
    ) -> None:
        """Return once `method` (as the client spells it) has been called `count` times in
        all, answered or not yet: e.g. to know a long poll has reached the server."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self._state.stats[method] < count:
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(
                    f"{method} called {self._state.stats[method]} times, not {count},"
                    f" within {timeout}s"
                )
            await self._state.calls_changed.wait(remaining)

    @property
    def callback_answers(self) -> list[dict[str, Any]]:
        """answerCallbackQuery calls: callback_query_id, text, show_alert, url, cache_time,
        and the chat_id, message_id and user_id of the press."""
        return self._state.callback_answers

    @property
    def commands(self) -> list[dict[str, Any]]:
        """The latest setMyCommands list, whatever its scope or language."""
        return self._state.commands

    def commands_for(
        self, scope: dict[str, Any] | None = None, language_code: str = ""
    ) -> list[dict[str, Any]]:
        """The commands set for exactly this scope (default: all private chats) and language,
        as getMyCommands would answer."""
        key = commands_key(scope, language_code)
        return list(self._state.commands_by_scope.get(key, []))

    def description(self, language_code: str = "") -> str | None:
        """What setMyDescription stored for exactly this language ("" = the default)."""
        return self._state.descriptions.get(language_code)

    def short_description(self, language_code: str = "") -> str | None:
        return self._state.short_descriptions.get(language_code)

    @property
    def calls(self) -> list[tuple[str, dict[str, Any]]]:
        """Every call as (method name as sent, decoded params); an upload appears as
        {"filename", "size"}. Faulted calls are included: they were made."""
        return self._state.calls

    @property
    def stats(self) -> Counter[str]:
        return self._state.stats

    @property
    def messages_total(self) -> int:
        """Bot messages sent since start, across chats; not reset by `clear_messages`."""
        return self._state.messages_total

    @property
    def internal_errors(self) -> list[BaseException]:
        """Bugs in the emulator itself (answered as 500); a test may assert it is empty."""
        return self._state.internal_errors

    def clear_messages(self) -> None:
        """Forget stored messages, calls and callback answers (for benchmarks); chats,
        people, counters and pending updates stay."""
        self._state.clear_messages()

    # -- updates ------------------------------------------------------------------------

    def pending_updates(self) -> int:
        """Updates queued and not yet confirmed by a getUpdates offset."""
        return len(self._state.updates)

    async def wait_until_consumed(self, timeout: float = WAIT_SECONDS) -> None:  # noqa: ASYNC109
        """Return once every queued update is confirmed, i.e. the bot has fetched it and
        asked for the ones after it. Its handler may still be running."""
        updates = self._state.updates
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while len(updates):
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(
                    f"updates {updates.pending_ids()} not consumed within {timeout}s;"
                    " is the bot polling?"
                )
            await updates.changed.wait(remaining)

    # -- faults -------------------------------------------------------------------------

    def inject_fault(
        self,
        method: str,
        kind: FaultKind,
        *,
        times: int = 1,
        chat_id: int | None = None,
        retry_after: int = 1,
        delay: float = 0.0,
    ) -> None:
        """Make the next `times` calls of `method` (only those to `chat_id`, if given) fail.

        "429" answers Too Many Requests with parameters.retry_after, "500" Internal Server
        Error, "403" bot blocked, "400" a generic Bad Request, "401" Unauthorized (a token
        Telegram refuses): none of these perform the
        call, so nothing is sent. "timeout" holds the answer back for `delay` seconds and
        then performs the call normally, so the message IS recorded even though the
        client gave up: Telegram may deliver a message whose answer never arrived.
        """
        if self._api.handler(method) is None:
            # A typo here would make a fault test pass without anything failing.
            raise ValueError(f"the emulator does not implement {method!r}")
        self._faults.add(
            method, kind, times=times, chat_id=chat_id, retry_after=retry_after, delay=delay
        )

    def clear_faults(self) -> None:
        self._faults.clear()

    def block(self, user_id: int) -> None:
        """Until `unblock`, every call aimed at this person's chat answers 403."""
        self._state.blocked.add(user_id)

    def unblock(self, user_id: int) -> None:
        self._state.blocked.discard(user_id)
