"""The Bot API methods the emulator answers, with Telegram's rules and refusals."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Any

from bot.emulator.errors import (
    BLOCKED,
    CANNOT_DELETE,
    CANNOT_EDIT,
    CAPTION_TOO_LONG,
    CHAT_NOT_FOUND,
    CONFLICT,
    DELETE_NOT_FOUND,
    EDIT_NOT_FOUND,
    MESSAGE_ID_MISSING,
    NO_TEXT_TO_EDIT,
    NOT_MODIFIED,
    QUERY_INVALID,
    REPLY_NOT_FOUND,
    TEXT_EMPTY,
    TEXT_TOO_LONG,
    WEBHOOK_ACTIVE,
    ApiError,
    bad_request,
)
from bot.emulator.params import Params
from bot.emulator.render import BotProfile, bot_message_dict
from bot.emulator.state import (
    DELETE_WINDOW_SECONDS,
    ChatLog,
    EmulatorState,
    SentDocument,
    SentMessage,
    WebhookConfig,
    commands_key,
)

Handler = Callable[[int, Params], Awaitable[Any]]

TEXT_LIMIT = 4096
CAPTION_LIMIT = 1024
CALLBACK_ANSWER_LIMIT = 200
CALLBACK_DATA_LIMIT = 64  # bytes, not characters
MAX_DELETE_BATCH = 100
MAX_COMMANDS = 100
DESCRIPTION_LIMIT = 512  # setMyDescription
SHORT_DESCRIPTION_LIMIT = 120  # setMyShortDescription
# Telegram answers a long poll by 50 s at the latest, whatever timeout was asked for.
MAX_POLL_SECONDS = 50.0

_PARSE_MODES = frozenset({"html", "markdown", "markdownv2"})
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
_BUTTON_ACTIONS = frozenset(
    {
        "url",
        "callback_data",
        "web_app",
        "login_url",
        "switch_inline_query",
        "switch_inline_query_current_chat",
        "switch_inline_query_chosen_chat",
        "copy_text",
        "callback_game",
        "pay",
    }
)
_OTHER_MARKUPS = ("keyboard", "remove_keyboard", "force_reply")
_COMMAND = re.compile(r"[a-z0-9_]{1,32}")
_LANGUAGE_CODE = re.compile(r"[a-z]{2}")  # ISO 639-1, as the Bot API asks
_BAD_MARKUP = "Bad Request: can't parse reply keyboard markup JSON object"


# Telegram's limit for a file a bot downloads (https://core.telegram.org/bots/api#getfile).
DOWNLOAD_LIMIT = 20_000_000
FILE_FOLDER = "files"


def utf16_len(text: str) -> int:
    """Telegram measures text in UTF-16 code units: an emoji outside the BMP counts twice."""
    return len(text.encode("utf-16-le")) // 2


def _message_text(params: Params) -> str:
    text = params.string("text")
    if text is None or not text.strip():
        raise bad_request(TEXT_EMPTY)
    if utf16_len(text) > TEXT_LIMIT:
        raise bad_request(TEXT_TOO_LONG)
    return text


def _caption(params: Params) -> str | None:
    caption = params.string("caption")
    if caption is not None and utf16_len(caption) > CAPTION_LIMIT:
        raise bad_request(CAPTION_TOO_LONG)
    return caption


def _parse_mode(params: Params) -> str | None:
    mode = params.string("parse_mode")
    if mode is not None and mode.lower() not in _PARSE_MODES:
        raise bad_request("Bad Request: unsupported parse_mode")
    return mode


def _check_inline_keyboard(rows: object) -> None:
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise bad_request(_BAD_MARKUP)
    for row in rows:
        for button in row:
            if not isinstance(button, dict) or not isinstance(button.get("text"), str):
                raise bad_request("Bad Request: can't parse inline keyboard button")
            if not _BUTTON_ACTIONS.intersection(button):
                raise bad_request("Bad Request: text buttons are unallowed in the inline keyboard")
            data = button.get("callback_data")
            # Real bots break on this limit in production; the emulator must refuse too.
            if data is not None and (
                not isinstance(data, str)
                or not 1 <= len(data.encode("utf-8")) <= CALLBACK_DATA_LIMIT
            ):
                raise bad_request("Bad Request: BUTTON_DATA_INVALID")


def _reply_markup(params: Params, *, inline_only: bool = False) -> dict[str, Any] | None:
    markup = params.obj("reply_markup")
    if markup is None:
        return None
    if "inline_keyboard" in markup:
        _check_inline_keyboard(markup["inline_keyboard"])
        return markup
    if inline_only or not any(key in markup for key in _OTHER_MARKUPS):
        raise bad_request(_BAD_MARKUP)
    return markup


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
            "setmycommands": self.set_my_commands,
            "getmycommands": self.get_my_commands,
            "deletemycommands": self.delete_my_commands,
            "setmydescription": self.set_my_description,
            "getmydescription": self.get_my_description,
            "setmyshortdescription": self.set_my_short_description,
            "getmyshortdescription": self.get_my_short_description,
            "sendchataction": self.send_chat_action,
            "setwebhook": self.set_webhook,
            "deletewebhook": self.delete_webhook,
            "getwebhookinfo": self.get_webhook_info,
            "close": self.close,
            "logout": self.close,
        }

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

    def _delete(self, log: ChatLog, message_id: int) -> None:
        found = log.find(message_id)
        if found is None or found.deleted:
            raise bad_request(DELETE_NOT_FOUND)
        if self._state.clock() - found.date > DELETE_WINDOW_SECONDS:
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
        allowed = params.array("allowed_updates")
        if allowed is not None:
            updates.allowed = frozenset(str(kind) for kind in allowed) or None

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
        text = _message_text(params)
        parse_mode = _parse_mode(params)
        markup = _reply_markup(params)
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
            entities=params.array("entities"),
            link_preview_options=params.obj("link_preview_options"),
            bot_id=bot_id,
        )
        self._state.add_bot_message(log, message)
        return self._render(log, message)

    async def send_document(self, bot_id: int, params: Params) -> dict[str, Any]:
        log = self._chat(params)
        caption = _caption(params)
        parse_mode = _parse_mode(params)
        markup = _reply_markup(params)
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
            entities=params.array("caption_entities"),
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
        caption = _caption(params)
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
            reply_markup=_reply_markup(params),
            protect_content=params.flag("protect_content"),
            disable_notification=params.flag("disable_notification"),
            reply_to_message_id=self._reply_to(log, params),
            photo=photo,
            date=self._state.now(),
            parse_mode=_parse_mode(params),
            entities=params.array("caption_entities"),
            bot_id=bot_id,
        )
        self._state.add_bot_message(log, message)
        return self._render(log, message)

    async def edit_message_text(self, bot_id: int, params: Params) -> dict[str, Any]:
        if params.values.get("inline_message_id") is not None:
            raise bad_request("Bad Request: inline messages are not supported by the emulator")
        log = self._chat(params)
        message = self._own_message(log, params)
        if message.document is not None:
            raise bad_request(NO_TEXT_TO_EDIT)
        text = _message_text(params)
        parse_mode = _parse_mode(params)
        entities = params.array("entities")
        # Leaving reply_markup out of an edit removes the keyboard, as in Telegram.
        markup = _reply_markup(params, inline_only=True)
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
        markup = _reply_markup(params, inline_only=True)
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
        if len(message_ids) > MAX_DELETE_BATCH:
            raise bad_request("Bad Request: too many message identifiers specified")
        if any(isinstance(m, bool) or not isinstance(m, int) for m in message_ids):
            raise bad_request("Bad Request: can't parse message_ids JSON object")
        # Documented: messages that cannot be found (or deleted) are skipped, not reported.
        for message_id in message_ids:
            try:
                self._delete(log, message_id)
            except ApiError:
                continue
        return True

    async def answer_callback_query(self, bot_id: int, params: Params) -> bool:
        query_id = params.string("callback_query_id")
        pending = self._state.callbacks.pop(query_id, None) if query_id else None
        if query_id is None or pending is None:
            raise bad_request(QUERY_INVALID)
        text = params.string("text")
        if text is not None and utf16_len(text) > CALLBACK_ANSWER_LIMIT:
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

    def _commands_key(self, params: Params) -> tuple[str, str]:
        return commands_key(params.obj("scope"), params.string("language_code") or "")

    async def set_my_commands(self, bot_id: int, params: Params) -> bool:
        commands = params.array("commands")
        if commands is None:
            raise bad_request('Bad Request: parameter "commands" is required')
        if len(commands) > MAX_COMMANDS:
            raise bad_request("Bad Request: too many commands specified")
        cleaned: list[dict[str, Any]] = []
        for entry in commands:
            if not isinstance(entry, dict):
                raise bad_request("Bad Request: can't parse commands JSON object")
            command, description = entry.get("command"), entry.get("description")
            if not isinstance(command, str) or not _COMMAND.fullmatch(command):
                raise bad_request("Bad Request: BOT_COMMAND_INVALID")
            if not isinstance(description, str) or not 1 <= len(description.strip()) <= 256:
                raise bad_request("Bad Request: command description is empty or too long")
            cleaned.append({"command": command, "description": description})
        self._state.commands_by_scope[self._commands_key(params)] = cleaned
        self._state.commands = cleaned
        return True

    async def get_my_commands(self, bot_id: int, params: Params) -> list[dict[str, Any]]:
        return list(self._state.commands_by_scope.get(self._commands_key(params), []))

    async def delete_my_commands(self, bot_id: int, params: Params) -> bool:
        self._state.commands_by_scope.pop(self._commands_key(params), None)
        return True

    async def set_my_description(self, bot_id: int, params: Params) -> bool:
        return self._set_profile_text(params, "description", DESCRIPTION_LIMIT)

    async def get_my_description(self, bot_id: int, params: Params) -> dict[str, str]:
        language = params.string("language_code") or ""
        text = self._state.descriptions.get(language, self._state.descriptions.get("", ""))
        return {"description": text}

    async def set_my_short_description(self, bot_id: int, params: Params) -> bool:
        return self._set_profile_text(params, "short_description", SHORT_DESCRIPTION_LIMIT)

    async def get_my_short_description(self, bot_id: int, params: Params) -> dict[str, str]:
        language = params.string("language_code") or ""
        texts = self._state.short_descriptions
        return {"short_description": texts.get(language, texts.get("", ""))}

    def _set_profile_text(self, params: Params, name: str, limit: int) -> bool:
        language = params.string("language_code") or ""
        if language and not _LANGUAGE_CODE.fullmatch(language):
            raise bad_request("Bad Request: invalid language code specified")
        text = params.string(name) or ""
        if len(text) > limit:
            raise bad_request(f"Bad Request: {name} is too long")
        store = (
            self._state.descriptions if name == "description" else self._state.short_descriptions
        )
        if text:
            store[language] = text
        else:
            store.pop(language, None)  # an empty text removes it, as in Telegram
        return True

    async def send_chat_action(self, bot_id: int, params: Params) -> bool:
        self._chat(params)
        action = params.string("action")
        if action not in _CHAT_ACTIONS:
            raise bad_request("Bad Request: wrong parameter action in request")
        return True

    async def set_webhook(self, bot_id: int, params: Params) -> bool:
        url = params.string("url")
        if not url:
            return await self.delete_webhook(bot_id, params)
        if not re.match(r"^https?://", url):
            raise bad_request("Bad Request: bad webhook: An HTTPS URL must be provided for webhook")
        secret = params.string("secret_token")
        if secret is not None and not re.match(r"^[A-Za-z0-9_-]{1,256}$", secret):
            raise bad_request("Bad Request: secret token contains unallowed characters")
        allowed = params.array("allowed_updates")
        kinds = frozenset(str(kind) for kind in allowed) if allowed else None
        if allowed is not None:
            self._state.updates.allowed = kinds
        raw = params.string("max_connections")  # a form field arrives as text
        if raw is not None and (not raw.isdigit() or not 1 <= int(raw) <= 100):
            raise bad_request("Bad Request: wrong parameter max_connections specified")
        self._state.webhook = WebhookConfig(url, secret, int(raw) if raw else 40, kinds)
        if params.flag("drop_pending_updates"):
            self._state.updates.drop_all()
        return True

    async def delete_webhook(self, bot_id: int, params: Params) -> bool:
        self._state.webhook = None
        if params.flag("drop_pending_updates"):
            self._state.updates.drop_all()
        return True

    async def get_webhook_info(self, bot_id: int, params: Params) -> dict[str, Any]:
        hook = self._state.webhook
        info: dict[str, Any] = {
            "url": hook.url if hook else "",
            "has_custom_certificate": False,
            "pending_update_count": len(self._state.updates),
        }
        if hook is not None:
            info["max_connections"] = hook.max_connections
            if hook.allowed_updates is not None:
                info["allowed_updates"] = sorted(hook.allowed_updates)
        return info

    async def close(self, bot_id: int, params: Params) -> bool:
        return True
