"""The people on the other side of the emulator: what they send (texts, files, captions,
edits, button presses), each queued as the update Telegram would deliver."""

from __future__ import annotations

from typing import Any

from bot.emulator import rules
from bot.emulator.render import BotProfile, bot_message_dict, quoted_message
from bot.emulator.state import (
    ChatLog,
    EmulatorState,
    PendingCallback,
    SentMessage,
    User,
    UserMessage,
)

_GROUP_TYPES = ("group", "supergroup")


def _chat_instance(chat_id: int) -> str:
    # Stable per chat and opaque, like Telegram's.
    return str((chat_id * 2_654_435_761) % 2**63)


def _text_fields(text: str, with_commands: bool) -> dict[str, Any]:
    fields: dict[str, Any] = {"text": text}
    if with_commands and text.startswith("/"):
        # Telegram marks the leading command, "@botname" included, so CommandHandler fires.
        command = text.split(maxsplit=1)[0]
        fields["entities"] = [
            {"type": "bot_command", "offset": 0, "length": rules.utf16_len(command)}
        ]
    return fields


class ActingAsPeople:
    """BotApiEmulator's side of the people: `user_sends`, `user_presses` and the rest."""

    _state: EmulatorState
    _profile: BotProfile

    def add_user(
        self, user_id: int, *, first_name: str = "Test", language_code: str = "en"
    ) -> None:
        """Open a private chat without a message, so the bot may write first (as after a
        /start in an earlier run)."""
        self._state.private_chat(self._state.user(user_id, first_name, language_code))

    def user_is_premium(self, user_id: int, premium: bool = True) -> None:
        """The person has Telegram Premium: their captions may be up to 4,096 characters,
        four times what a bot may send."""
        self._state.user(user_id).is_premium = premium

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
        if text is not None and rules.utf16_len(text.strip()) > rules.TEXT_LIMIT:
            raise ValueError("no app sends a text over 4,096 characters: it splits it")
        if caption is not None and kinds[0] not in ("photo", "voice", "document"):
            raise ValueError("only a photo, a voice message or a document carries a caption")

        state = self._state
        user = state.user(user_id, first_name, language_code)
        if caption is not None:
            caption = rules.user_caption(caption, premium=user.is_premium) or None
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
            premium = self._state.user(user_id).is_premium
            payload["caption"] = rules.user_caption(new_text, premium=premium)
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
        state.callbacks[query_id] = PendingCallback(log.chat.id, message_id, user_id, state.clock())
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
