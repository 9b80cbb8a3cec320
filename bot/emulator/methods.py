"""The Bot API methods for messages the emulator answers, with Telegram's rules and
refusals (the rules themselves: rules.py; commands, descriptions and the webhook:
profile_methods.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from bot.emulator import rules
from bot.emulator.errors import (
    BLOCKED,
    CANNOT_DELETE,
    CANNOT_EDIT,
    CHAT_NOT_FOUND,
    CONFLICT,
    DELETE_NOT_FOUND,
    EDIT_NOT_FOUND,
    MESSAGE_ID_MISSING,
    NO_TEXT_TO_EDIT,
    NOT_MODIFIED,
    QUERY_INVALID,
    REPLY_NOT_FOUND,
    WEBHOOK_ACTIVE,
    ApiError,
    bad_request,
)
from bot.emulator.params import Params
from bot.emulator.profile_methods import ProfileApi
from bot.emulator.render import BotProfile, bot_message_dict
from bot.emulator.state import (
    DELETE_WINDOW_SECONDS,
    ChatLog,
    EmulatorState,
    SentDocument,
    SentMessage,
)

Handler = Callable[[int, Params], Awaitable[Any]]

# Telegram answers a long poll by 50 s at the latest, whatever timeout was asked for.
MAX_POLL_SECONDS = 50.0

_CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)

# Telegram's limit for a file a bot downloads (https://core.telegram.org/bots/api#getfile).
DOWNLOAD_LIMIT = 20_000_000
FILE_FOLDER = "files"


class BotApi:
    def __init__(self, state: EmulatorState, profile: BotProfile) -> None:
        self._state = state
        self._profile = profile
        self._poll_generation = 0
        self.stopping = asyncio.Event()
        self._handlers: dict[str, Handler] = {
            "getme": self.get_me,
            "getupdates": self.get_updates,
            "sendmessage": self.send_message,
            "senddocument": self.send_document,
            "getfile": self.get_file,
            "sendphoto": self.send_photo,
            "editmessagetext": self.edit_message_text,
            "editmessagereplymarkup": self.edit_message_reply_markup,
            "deletemessage": self.delete_message,
            "deletemessages": self.delete_messages,
            "answercallbackquery": self.answer_callback_query,
            "sendchataction": self.send_chat_action,
        }
        self._handlers.update(ProfileApi(state).handlers())

    def handler(self, method: str) -> Handler | None:
        # Telegram matches method names case-insensitively.
        return self._handlers.get(method.lower())

    def stop_waiting(self) -> None:
        """Release long polls and delayed answers so the server can shut down at once."""
        self.stopping.set()
        self._state.updates.changed.notify()

    # -- chats and messages -------------------------------------------------------------

    def _chat(self, params: Params) -> ChatLog:
        chat_id = params.chat_id()
        log = self._state.chats.get(chat_id)
        if log is None:
            raise bad_request(CHAT_NOT_FOUND)
        if chat_id in self._state.blocked:
            raise ApiError(403, BLOCKED)
        return log

    def _reply_to(self, log: ChatLog, params: Params) -> int | None:
        reply = params.obj("reply_parameters")
        if reply is not None:
            message_id = reply.get("message_id")
            allow_missing = reply.get("allow_sending_without_reply") is True
            if message_id is None:
                return None
            if isinstance(message_id, bool) or not isinstance(message_id, int):
                raise bad_request("Bad Request: can't parse reply_parameters JSON object")
        else:
            message_id = params.optional_int("reply_to_message_id")
            allow_missing = params.flag("allow_sending_without_reply")
            if message_id is None:
                return None
        found = log.find(message_id)
        if found is None or found.deleted:
            if allow_missing:
                return None
            raise bad_request(REPLY_NOT_FOUND)
        return message_id

    def _own_message(self, log: ChatLog, params: Params) -> SentMessage:
        message_id = params.required_int("message_id", MESSAGE_ID_MISSING)
        found = log.find(message_id)
        if found is None or found.deleted:
            raise bad_request(EDIT_NOT_FOUND)
        if not isinstance(found, SentMessage):
            raise bad_request(CANNOT_EDIT)
        return found

    def _render(self, log: ChatLog, message: SentMessage) -> dict[str, Any]:
        return bot_message_dict(message, log, self._profile)

    @staticmethod
    def _present(log: ChatLog, message_id: int) -> bool:
        found = log.find(message_id)
        return found is not None and not found.deleted

    def _deletable(self, log: ChatLog, message_id: int) -> bool:
        found = log.find(message_id)
        return found is not None and self._state.clock() - found.date <= DELETE_WINDOW_SECONDS

    def _delete(self, log: ChatLog, message_id: int) -> None:
        found = log.find(message_id)
        if found is None or found.deleted:
            raise bad_request(DELETE_NOT_FOUND)
        if not self._deletable(log, message_id):
            raise bad_request(CANNOT_DELETE)
        found.deleted = True
        log.deleted_ids.add(message_id)
        if isinstance(found, SentMessage):
            self._state.message_changed(found, "deleted")

    # -- methods ------------------------------------------------------------------------

    async def get_me(self, bot_id: int, params: Params) -> dict[str, Any]:
        return self._profile.me_dict(bot_id)

    async def get_updates(self, bot_id: int, params: Params) -> list[dict[str, Any]]:
        if self._state.webhook is not None:
            raise ApiError(409, WEBHOOK_ACTIVE)
        updates = self._state.updates
        offset = params.optional_int("offset")
        limit = min(max(params.optional_int("limit") or 100, 1), 100)
        timeout = min(max(params.optional_number("timeout") or 0.0, 0.0), MAX_POLL_SECONDS)
        updates.subscribe(params.array("allowed_updates"))

        # A newer poll ends any older one with 409, as Telegram does; it also releases
        # polls left behind by a client that gave up waiting.
        self._poll_generation += 1
        generation = self._poll_generation
        updates.changed.notify()

        if offset is not None:
            updates.confirm(offset)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if generation != self._poll_generation:
                raise ApiError(409, CONFLICT)
            batch = updates.take(limit)
            remaining = deadline - loop.time()
            if batch or remaining <= 0 or self.stopping.is_set():
                return batch
            await updates.changed.wait(remaining)

    async def send_message(self, bot_id: int, params: Params) -> dict[str, Any]:
        log = self._chat(params)
        text, entities = rules.message_text(params)
        parse_mode = rules.parse_mode(params)
        markup = rules.reply_markup(params)
        reply_to = self._reply_to(log, params)
        message = SentMessage(
            message_id=log.next_message_id(),
            chat_id=log.chat.id,
            text=text,
            reply_markup=markup,
            protect_content=params.flag("protect_content"),
            disable_notification=params.flag("disable_notification"),
            reply_to_message_id=reply_to,
            date=self._state.now(),
            parse_mode=parse_mode,
            entities=entities,
            link_preview_options=params.obj("link_preview_options"),
            bot_id=bot_id,
        )
        self._state.add_bot_message(log, message)
        return self._render(log, message)

    async def send_document(self, bot_id: int, params: Params) -> dict[str, Any]:
        log = self._chat(params)
        caption, caption_entities = rules.caption(params)
        parse_mode = rules.parse_mode(params)
        markup = rules.reply_markup(params)
        reply_to = self._reply_to(log, params)
        upload = params.files.get("document")
        if upload is not None:
            if not upload.content:
                raise bad_request("Bad Request: file must be non-empty")
            file_id, unique_id = self._state.new_file_ids()
            filename, content, mime_type = upload.filename, upload.content, upload.content_type
        else:
            # Re-sending by file_id: only files this emulator handed out exist.
            reference = params.string("document")
            if reference is None:
                raise bad_request("Bad Request: there is no document in the request")
            known = self._state.documents.get(reference)
            if known is None:
                raise bad_request("Bad Request: wrong file identifier/HTTP URL specified")
            file_id, unique_id = known.file_id, known.file_unique_id
            filename, content, mime_type = known.filename, known.data, known.mime_type
        document = SentDocument(filename, content, caption, mime_type, file_id, unique_id)
        self._state.documents[file_id] = document
        message = SentMessage(
            message_id=log.next_message_id(),
            chat_id=log.chat.id,
            reply_markup=markup,
            protect_content=params.flag("protect_content"),
            disable_notification=params.flag("disable_notification"),
            reply_to_message_id=reply_to,
            document=document,
            date=self._state.now(),
            parse_mode=parse_mode,
            entities=caption_entities,
            bot_id=bot_id,
        )
        self._state.add_bot_message(log, message)
        return self._render(log, message)

    async def get_file(self, bot_id: int, params: Params) -> dict[str, Any]:
        """Describe a file for download at /file/bot<token>/<file_path>, as Telegram does;
        it refuses files over the 20 MB a bot may download."""
        file_id = params.string("file_id") or ""
        data = self._state.file_bytes(file_id)
        if data is None:
            raise bad_request("Bad Request: invalid file_id")
        if len(data) > DOWNLOAD_LIMIT:
            raise bad_request("Bad Request: file is too big")
        return {
            "file_id": file_id,
            "file_unique_id": f"U{file_id[-10:]}",
            "file_size": len(data),
            "file_path": f"{FILE_FOLDER}/{file_id}",
        }

    async def send_photo(self, bot_id: int, params: Params) -> dict[str, Any]:
        """An uploaded photo only (no file ids, no URLs): PNG or JPEG, as Telegram accepts."""
        log = self._chat(params)
        caption, caption_entities = rules.caption(params)
        upload = params.files.get("photo")
        if upload is None or not upload.content:
            raise bad_request("Bad Request: there is no photo in the request")
        if not upload.content.startswith((b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff")):
            raise bad_request("Bad Request: IMAGE_PROCESS_FAILED")
        file_id, unique_id = self._state.new_file_ids()
        photo = SentDocument(
            upload.filename, upload.content, caption, upload.content_type, file_id, unique_id
        )
        message = SentMessage(
            message_id=log.next_message_id(),
            chat_id=log.chat.id,
            reply_markup=rules.reply_markup(params),
            protect_content=params.flag("protect_content"),
            disable_notification=params.flag("disable_notification"),
            reply_to_message_id=self._reply_to(log, params),
            photo=photo,
            date=self._state.now(),
            parse_mode=rules.parse_mode(params),
            entities=caption_entities,
            bot_id=bot_id,
        )
        self._state.add_bot_message(log, message)
        return self._render(log, message)

    async def edit_message_text(self, bot_id: int, params: Params) -> dict[str, Any]:
        if params.values.get("inline_message_id") is not None:
            raise bad_request("Bad Request: inline messages are not supported by the emulator")
        log = self._chat(params)
        message = self._own_message(log, params)
        if message.document is not None or message.photo is not None:
            raise bad_request(NO_TEXT_TO_EDIT)
        text, entities = rules.message_text(params)
        parse_mode = rules.parse_mode(params)
        # Leaving reply_markup out of an edit removes the keyboard, as in Telegram.
        markup = rules.reply_markup(params, inline_only=True)
        if (text, entities, markup) == (message.text, message.entities, message.reply_markup):
            raise bad_request(NOT_MODIFIED)
        message.text = text
        message.entities = entities
        message.parse_mode = parse_mode
        message.reply_markup = markup
        message.link_preview_options = params.obj("link_preview_options")
        self._mark_edited(message)
        return self._render(log, message)

    async def edit_message_reply_markup(self, bot_id: int, params: Params) -> dict[str, Any]:
        if params.values.get("inline_message_id") is not None:
            raise bad_request("Bad Request: inline messages are not supported by the emulator")
        log = self._chat(params)
        message = self._own_message(log, params)
        markup = rules.reply_markup(params, inline_only=True)
        if markup == message.reply_markup:
            raise bad_request(NOT_MODIFIED)
        message.reply_markup = markup
        self._mark_edited(message)
        return self._render(log, message)

    def _mark_edited(self, message: SentMessage) -> None:
        message.edits += 1
        message.edit_date = self._state.now()
        self._state.message_changed(message, "edited")

    async def delete_message(self, bot_id: int, params: Params) -> bool:
        log = self._chat(params)
        self._delete(log, params.required_int("message_id", MESSAGE_ID_MISSING))
        return True

    async def delete_messages(self, bot_id: int, params: Params) -> bool:
        log = self._chat(params)
        message_ids = params.array("message_ids")
        if not message_ids:
            raise bad_request("Bad Request: message identifiers are not specified")
        if len(message_ids) > rules.MAX_DELETE_BATCH:
            raise bad_request("Bad Request: too many message identifiers specified")
        if any(isinstance(m, bool) or not isinstance(m, int) for m in message_ids):
            raise bad_request("Bad Request: can't parse message_ids JSON object")
        # Documented: messages that cannot be found are skipped. One that is there but
        # cannot be deleted (past 48 hours) refuses the whole batch: nothing is deleted.
        present = [m for m in message_ids if self._present(log, m)]
        if any(not self._deletable(log, m) for m in present):
            raise bad_request(CANNOT_DELETE)
        for message_id in present:
            self._delete(log, message_id)
        return True

    async def answer_callback_query(self, bot_id: int, params: Params) -> bool:
        query_id = params.string("callback_query_id")
        pending = self._state.callbacks.pop(query_id, None) if query_id else None
        if query_id is None or pending is None:
            raise bad_request(QUERY_INVALID)
        text = params.string("text")
        if self._state.clock() - pending.at > rules.CALLBACK_EXPIRY_SECONDS:
            raise bad_request(QUERY_INVALID)
        if text is not None and rules.utf16_len(text) > rules.CALLBACK_ANSWER_LIMIT:
            raise bad_request("Bad Request: MESSAGE_TOO_LONG")
        self._state.callback_answers.append(
            {
                "callback_query_id": query_id,
                "text": text,
                "show_alert": params.flag("show_alert"),
                "url": params.string("url"),
                "cache_time": params.optional_int("cache_time"),
                "chat_id": pending.chat_id,
                "message_id": pending.message_id,
                "user_id": pending.user_id,
            }
        )
        return True

    async def send_chat_action(self, bot_id: int, params: Params) -> bool:
        self._chat(params)
        action = params.string("action")
        if action not in _CHAT_ACTIONS:
            raise bad_request("Bad Request: wrong parameter action in request")
        return True
