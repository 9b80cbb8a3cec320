"""Request parameters, whatever encoding the client chose.

The Bot API accepts a query string, a JSON body, an url-encoded form or multipart form data.
Only JSON carries types; in the other three every value is a string and nested objects are
JSON text. PTB never sends a JSON body: it posts a form (multipart when a file is attached)
in which ints and booleans are JSON-dumped ("42", "true") and strings are sent raw. So a
field's type has to come from its name, exactly as Telegram's own server decides it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.emulator.errors import CHAT_ID_EMPTY, CHAT_NOT_FOUND, bad_request

_INT_FIELDS = frozenset(
    {
        "message_id",
        "offset",
        "limit",
        "reply_to_message_id",
        "cache_time",
        "message_thread_id",
        "user_id",
    }
)
# Long-poll timeouts may be fractional: PTB sends a timedelta's seconds as given.
_NUMBER_FIELDS = frozenset({"timeout"})
# A chat may be named by a numeric id or by "@username"; only the first is an int.
_CHAT_FIELDS = frozenset({"chat_id", "from_chat_id"})
_BOOL_FIELDS = frozenset(
    {
        "protect_content",
        "disable_notification",
        "show_alert",
        "drop_pending_updates",
        "disable_web_page_preview",
        "allow_sending_without_reply",
        "disable_content_type_detection",
        "allow_paid_broadcast",
    }
)
_JSON_FIELDS = frozenset(
    {
        "reply_markup",
        "reply_parameters",
        "link_preview_options",
        "entities",
        "caption_entities",
        "commands",
        "scope",
        "allowed_updates",
        "message_ids",
    }
)


@dataclass(frozen=True, slots=True)
class UploadedFile:
    filename: str
    content: bytes
    content_type: str


def _as_int(value: object) -> object:
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return value
    return value


def _as_number(value: object) -> object:
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return value
        return int(number) if number.is_integer() else number
    return value


def _as_bool(value: object) -> object:
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in {"true", "1"}:
            return True
        if lowered in {"false", "0", ""}:
            return False
    return value


def _as_json(value: object) -> object:
    # A JSON body may still carry nested objects as JSON text; Telegram accepts both.
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def normalize(raw: Mapping[str, object]) -> dict[str, Any]:
    """Give known fields their types; leave anything malformed as it came so the method
    reports it in Telegram's words (and `calls` still shows what was sent)."""
    out: dict[str, Any] = {}
    for name, value in raw.items():
        if name in _INT_FIELDS or name in _CHAT_FIELDS:
            out[name] = _as_int(value)
        elif name in _NUMBER_FIELDS:
            out[name] = _as_number(value)
        elif name in _BOOL_FIELDS:
            out[name] = _as_bool(value)
        elif name in _JSON_FIELDS:
            out[name] = _as_json(value)
        else:
            out[name] = value
    return out


class Params:
    """Typed, validating access to one call's normalized parameters."""

    def __init__(
        self, values: dict[str, Any], files: Mapping[str, UploadedFile] | None = None
    ) -> None:
        self.values = values
        self.files: Mapping[str, UploadedFile] = files or {}

    def chat_id(self) -> int:
        value = self.values.get("chat_id")
        if value is None or value == "":
            raise bad_request(CHAT_ID_EMPTY)
        if isinstance(value, bool) or not isinstance(value, int):
            # "@channelusername": the emulator has no public chats, so none is found.
            raise bad_request(CHAT_NOT_FOUND)
        return value

    def optional_int(self, name: str) -> int | None:
        value = self.values.get(name)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad_request(f"Bad Request: wrong parameter {name} specified")
        return value

    def optional_number(self, name: str) -> float | None:
        value = self.values.get(name)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise bad_request(f"Bad Request: wrong parameter {name} specified")
        return float(value)

    def required_int(self, name: str, missing: str) -> int:
        value = self.optional_int(name)
        if value is None:
            raise bad_request(missing)
        return value

    def string(self, name: str) -> str | None:
        value = self.values.get(name)
        if value is None:
            return None
        if isinstance(value, str):
            return value
        if isinstance(value, int | float) and not isinstance(value, bool):
            # A JSON body may send a numeric text as a number; Telegram takes it as text.
            return str(value)
        raise bad_request(f"Bad Request: wrong parameter {name} specified")

    def flag(self, name: str) -> bool:
        value = self.values.get(name)
        if value is None:
            return False
        if not isinstance(value, bool):
            raise bad_request(f"Bad Request: wrong parameter {name} specified")
        return value

    def obj(self, name: str) -> dict[str, Any] | None:
        value = self.values.get(name)
        if value is None:
            return None
        if not isinstance(value, dict):
            if name == "reply_markup":
                raise bad_request("Bad Request: can't parse reply keyboard markup JSON object")
            raise bad_request(f"Bad Request: can't parse {name} JSON object")
        return value

    def array(self, name: str) -> list[Any] | None:
        value = self.values.get(name)
        if value is None:
            return None
        if not isinstance(value, list):
            raise bad_request(f"Bad Request: can't parse {name} JSON object")
        return value
