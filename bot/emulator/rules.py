"""Telegram's rules for what a bot may send, as the emulator enforces them: text and caption
length (after Telegram trims them), entity bounds, parse modes, keyboards, webhook URLs.

Sources: the Bot API reference (https://core.telegram.org/bots/api: sendMessage "1-4096
characters after entities parsing", sendDocument's caption "0-1024 characters", setWebhook
"Ports currently supported for webhooks: 443, 80, 88, 8443", MessageEntity's offset and
length "in UTF-16 code units") and the answers of Telegram's own Bot API server. Where
Telegram counts code points the emulator counts UTF-16 units, which is stricter: the bot
measures the same way, so nothing it sends passes here and fails there.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from bot.emulator.errors import CAPTION_TOO_LONG, TEXT_EMPTY, TEXT_TOO_LONG, bad_request
from bot.emulator.params import Params

TEXT_LIMIT = 4096
CAPTION_LIMIT = 1024
# What a Premium user may send in a caption; nobody can send a longer one.
PREMIUM_CAPTION_LIMIT = 4096
CALLBACK_ANSWER_LIMIT = 200
CALLBACK_DATA_LIMIT = 64  # bytes, not characters
MAX_DELETE_BATCH = 100
MAX_COMMANDS = 100
DESCRIPTION_LIMIT = 512  # setMyDescription
SHORT_DESCRIPTION_LIMIT = 120  # setMyShortDescription
# A callback query not answered within this many seconds (by the emulator's clock) is
# "too old": Telegram documents no number, clients stop waiting after about 15 s.
CALLBACK_EXPIRY_SECONDS = 15
WEBHOOK_PORTS = frozenset({443, 80, 88, 8443})
# A local Bot API server (telegram-bot-api --local, and this emulator) posts to a local
# address over plain HTTP on any port; Telegram's own servers never do.
_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})

_PARSE_MODES = frozenset({"html", "markdown", "markdownv2"})
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
_BAD_MARKUP = "Bad Request: can't parse reply keyboard markup JSON object"


def utf16_len(text: str) -> int:
    """Telegram measures text in UTF-16 code units: an emoji outside the BMP counts twice."""
    return len(text.encode("utf-16-le")) // 2


def _entities(raw: list[Any] | None, text: str) -> list[Any] | None:
    """Entities as Telegram checks them against the text they were sent with: each inside
    it, never splitting a character outside the BMP."""
    if raw is None:
        return None
    units = text.encode("utf-16-le")
    size = len(units) // 2
    for entity in raw:
        if not isinstance(entity, dict) or not isinstance(entity.get("type"), str):
            raise bad_request("Bad Request: can't parse entities JSON object")
        offset, length = entity.get("offset"), entity.get("length")
        if (
            isinstance(offset, bool)
            or isinstance(length, bool)
            or not isinstance(offset, int)
            or not isinstance(length, int)
            or offset < 0
            or length < 1
            or offset + length > size
        ):
            raise bad_request("Bad Request: can't parse entities: entity is out of the text")
        for edge in (offset, offset + length):
            if (
                edge < size
                and 0xDC00 <= int.from_bytes(units[2 * edge : 2 * edge + 2], "little") <= 0xDFFF
            ):
                raise bad_request("Bad Request: can't parse entities: entity splits a character")
    return raw


def _trim(text: str, entities: list[Any] | None) -> tuple[str, list[Any] | None]:
    """Telegram strips white space from both ends before it counts; entities move with the
    text and are cut to what is left."""
    stripped = text.strip()
    if stripped == text or entities is None:
        return stripped, entities
    start = utf16_len(text[: len(text) - len(text.lstrip())])
    end = utf16_len(stripped)
    moved: list[Any] = []
    for entity in entities:
        first = max(entity["offset"] - start, 0)
        last = min(entity["offset"] + entity["length"] - start, end)
        if last > first:
            moved.append({**entity, "offset": first, "length": last - first})
    return stripped, moved


def message_text(params: Params, entities_field: str = "entities") -> tuple[str, list[Any] | None]:
    """The text of a send or an edit, trimmed, with its entities: 1-4096 after trimming."""
    text = params.string("text")
    if text is None:
        raise bad_request(TEXT_EMPTY)
    entities = _entities(params.array(entities_field), text)
    text, entities = _trim(text, entities)
    if not text:
        raise bad_request(TEXT_EMPTY)
    if utf16_len(text) > TEXT_LIMIT:
        raise bad_request(TEXT_TOO_LONG)
    return text, entities


def caption(params: Params) -> tuple[str | None, list[Any] | None]:
    """A file's caption, trimmed, with its entities: 0-1024 after trimming; an empty one
    is no caption."""
    text = params.string("caption")
    if text is None:
        return None, None
    entities = _entities(params.array("caption_entities"), text)
    text, entities = _trim(text, entities)
    if utf16_len(text) > CAPTION_LIMIT:
        raise bad_request(CAPTION_TOO_LONG)
    return (text, entities) if text else (None, None)


def user_caption(text: str, *, premium: bool) -> str:
    """A caption a person's app could send: what the emulator refuses to deliver, Telegram
    would never have delivered."""
    limit = PREMIUM_CAPTION_LIMIT if premium else CAPTION_LIMIT
    trimmed = text.strip()
    if utf16_len(trimmed) > limit:
        raise ValueError(f"a caption of more than {limit} characters cannot be sent")
    return trimmed


def parse_mode(params: Params) -> str | None:
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


def reply_markup(params: Params, *, inline_only: bool = False) -> dict[str, Any] | None:
    markup = params.obj("reply_markup")
    if markup is None:
        return None
    if "inline_keyboard" in markup:
        _check_inline_keyboard(markup["inline_keyboard"])
        return markup
    if inline_only or not any(key in markup for key in _OTHER_MARKUPS):
        raise bad_request(_BAD_MARKUP)
    return markup


def webhook_url(url: str) -> None:
    """HTTPS on one of Telegram's four ports; a local address may be plain HTTP on any."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = -1
    if parts.hostname in _LOOPBACK and parts.scheme in ("http", "https"):
        return
    if parts.scheme != "https" or not parts.hostname:
        raise bad_request("Bad Request: bad webhook: An HTTPS URL must be provided for webhook")
    if (port or 443) not in WEBHOOK_PORTS:
        raise bad_request(
            "Bad Request: bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443"
        )


def is_valid_secret(secret: str) -> bool:
    return re.fullmatch(r"[A-Za-z0-9_-]{1,256}", secret) is not None
