"""Stored messages turned into Bot API JSON objects."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.emulator.state import ChatLog, SentDocument, SentMessage, UserMessage


@dataclass(frozen=True, slots=True)
class BotProfile:
    first_name: str = "Steady (emulated)"
    username: str = "steady_emulator_bot"

    def user_dict(self, bot_id: int) -> dict[str, Any]:
        return {
            "id": bot_id,
            "is_bot": True,
            "first_name": self.first_name,
            "username": self.username,
        }

    def me_dict(self, bot_id: int) -> dict[str, Any]:
        return {
            **self.user_dict(bot_id),
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }


def document_dict(document: SentDocument) -> dict[str, Any]:
    return {
        "file_id": document.file_id,
        "file_unique_id": document.file_unique_id,
        "file_name": document.filename,
        "mime_type": document.mime_type,
        "file_size": len(document.data),
    }


def image_size(data: bytes) -> tuple[int, int]:
    """A PNG's width and height from its header (IHDR); 0, 0 for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    return 0, 0


def bot_message_dict(
    message: SentMessage, log: ChatLog, profile: BotProfile, *, quote: bool = True
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "message_id": message.message_id,
        "from": profile.user_dict(message.bot_id),
        "chat": log.chat.to_dict(),
        "date": message.date,
    }
    if message.document is not None:
        out["document"] = document_dict(message.document)
        if message.document.caption is not None:
            out["caption"] = message.document.caption
    if message.photo is not None:
        width, height = image_size(message.photo.data)
        out["photo"] = [
            {
                "file_id": message.photo.file_id,
                "file_unique_id": message.photo.file_unique_id,
                "width": width,
                "height": height,
                "file_size": len(message.photo.data),
            }
        ]
        if message.photo.caption is not None:
            out["caption"] = message.photo.caption
    if message.text is not None:
        out["text"] = message.text
    if message.entities:
        out["entities" if message.text is not None else "caption_entities"] = message.entities
    if message.link_preview_options is not None:
        out["link_preview_options"] = message.link_preview_options
    # A Message only ever carries an inline keyboard; reply keyboards are not echoed back.
    if message.reply_markup is not None and "inline_keyboard" in message.reply_markup:
        out["reply_markup"] = message.reply_markup
    if message.protect_content:
        out["has_protected_content"] = True
    if message.edit_date is not None:
        out["edit_date"] = message.edit_date
    if quote and message.reply_to_message_id is not None:
        replied = quoted_message(log, message.reply_to_message_id, profile)
        if replied is not None:
            out["reply_to_message"] = replied
    return out


def quoted_message(log: ChatLog, message_id: int, profile: BotProfile) -> dict[str, Any] | None:
    """The replied-to message as Telegram nests it: one level deep, absent once deleted."""
    found = log.find(message_id)
    if found is None or found.deleted:
        return None
    if isinstance(found, UserMessage):
        return {k: v for k, v in found.payload.items() if k != "reply_to_message"}
    return bot_message_dict(found, log, profile, quote=False)
