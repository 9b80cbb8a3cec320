"""The common update, parsed without PTB's general parser (issue 25: cheaper ordinary updates).

Nearly every update the bot gets is a person's plain text message in a private chat:
`{"update_id", "message": {"message_id", "from", "chat", "date", "text"}}`. PTB's
`Update.de_json` reads it by asking for each of the hundred-odd fields a message may have
and then runs `Message.__init__`, which sets every one of them through PTB's guarded
`__setattr__`: on this machine about 70-110 µs for an update the handlers read five fields
of. Here such an update becomes the very same objects (`Update`, `Message`, `User`, `Chat`,
frozen, the bot set on each, every other field at the value PTB's constructor gives it) by
copying a blank of each class made once by PTB's own constructor and setting the few fields
the update has: about 15 µs.

Anything of another shape (an entity, a reply, a photo, an edit, a button press, a field
of the wrong type, a key this module does not know) is left to `Update.de_json` (`lean_update`
answers None), so nothing is parsed differently: tests/unit/transport/test_lean_update.py
compares every slot of both parses, recursively, for each shape this module takes.
"""

from __future__ import annotations

import datetime as dt
from collections import deque
from collections.abc import Iterator, Mapping
from itertools import repeat
from typing import Any, Generic, TypeVar

from telegram import Bot, Chat, Message, TelegramObject, Update, User, constants
from telegram._utils import enum
from telegram._utils.datetime import extract_tzinfo_from_defaults, from_timestamp

T = TypeVar("T", bound=TelegramObject)
_PUT = object.__setattr__

_UPDATE_KEYS = frozenset({"update_id", "message"})
# The message's keys, each one required: a plain text message, nothing more.
_MESSAGE_KEYS = frozenset({"message_id", "from", "chat", "date", "text"})
# The sender's and the chat's, by the type each must have (PTB keeps them as given).
_USER_FIELDS: Mapping[str, type] = {
    "id": int,
    "is_bot": bool,
    "first_name": str,
    "last_name": str,
    "username": str,
    "language_code": str,
    "is_premium": bool,
}
_USER_REQUIRED = frozenset({"id", "is_bot", "first_name"})
_CHAT_FIELDS: Mapping[str, type] = {
    "id": int,
    "type": str,
    "first_name": str,
    "last_name": str,
    "username": str,
    "title": str,
}
_CHAT_REQUIRED = frozenset({"id", "type"})


def _slot_names(kind: type) -> Iterator[str]:
    """Every instance slot of `kind`, its bases' included, by the name it is set under."""
    for base in reversed(kind.__mro__):
        slots = base.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name in ("__dict__", "__weakref__"):
                continue
            if name.startswith("__") and not name.endswith("__"):
                name = f"_{base.__name__.lstrip('_')}{name}"  # noqa: PLW2901 - the mangled name
            yield name


class _Blank(Generic[T]):
    """One object of `kind` as PTB's constructor leaves it (frozen, every field at its
    default): `make` copies it and sets the given fields, without `__init__`."""

    def __init__(self, made: T) -> None:
        if hasattr(made, "__dict__"):  # every slot copied means no attribute may live elsewhere
            raise TypeError(f"{type(made).__name__} has a __dict__")
        self.kind: type[T] = type(made)
        self.names = tuple(_slot_names(self.kind))
        self.values = tuple(getattr(made, name) for name in self.names)

    def make(self, bot: Bot, fields: Mapping[str, Any]) -> T:
        made = object.__new__(self.kind)
        # Past PTB's guard (the copy is frozen like the blank), the loop in C: a message
        # has about 120 slots.
        deque(map(_PUT, repeat(made, len(self.names)), self.names, self.values), maxlen=0)
        deque(map(_PUT, repeat(made, len(fields)), fields.keys(), fields.values()), maxlen=0)
        _PUT(made, "_bot", bot)
        return made


_EPOCH = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)
_USERS = _Blank(User(id=0, first_name="", is_bot=False))
_CHATS = _Blank(Chat(id=0, type=constants.ChatType.PRIVATE))
_MESSAGES = _Blank(Message(message_id=0, date=_EPOCH, chat=Chat(id=0, type="private")))
_UPDATES = _Blank(Update(update_id=0))


def _fields(raw: object, types: Mapping[str, type], required: frozenset[str]) -> bool:
    """`raw` is an object of these fields only, each of its type, the required ones there."""
    if not isinstance(raw, dict) or not required.issubset(raw):
        return False
    for key, value in raw.items():
        kind = types.get(key)
        # bool is an int in Python, not in JSON: an id of `true` is not an id.
        if kind is None or type(value) is not kind:
            return False
    return True


def parse_update(raw: object, bot: Bot) -> Update:
    """One raw update as PTB's `Update.de_json` makes it, the common shape through
    `lean_update` (polling and the webhook both come here). Without an integer
    `update_id` it is no update: `{}` goes to PTB, which raises for it, as before. Raises
    whatever PTB's parser raises for a malformed one."""
    update_id = raw.get("update_id") if isinstance(raw, dict) else None
    if isinstance(raw, dict) and isinstance(update_id, int) and not isinstance(update_id, bool):
        return lean_update(raw, bot) or Update.de_json(raw, bot)
    return Update.de_json({}, bot)


def lean_update(raw: object, bot: Bot) -> Update | None:
    """The update, if it is a plain private-or-group text message (see the module
    docstring), as `Update.de_json(raw, bot)` would make it; else None."""
    if not isinstance(raw, dict) or raw.keys() != _UPDATE_KEYS:
        return None
    update_id = raw["update_id"]
    message = raw["message"]
    if type(update_id) is not int or not isinstance(message, dict):
        return None
    if message.keys() != _MESSAGE_KEYS:
        return None
    message_id, date, text = message["message_id"], message["date"], message["text"]
    if type(message_id) is not int or type(date) is not int or type(text) is not str:
        return None
    if date == 0:  # an inaccessible message, in PTB's reading: its parser's business
        return None
    sender, chat = message["from"], message["chat"]
    if not _fields(sender, _USER_FIELDS, _USER_REQUIRED):
        return None
    if not _fields(chat, _CHAT_FIELDS, _CHAT_REQUIRED):
        return None
    user_obj = _USERS.make(bot, {**sender, "_id_attrs": (sender["id"],)})
    chat_fields = {**chat, "_id_attrs": (chat["id"],)}
    chat_fields["type"] = enum.get_member(constants.ChatType, chat["type"], chat["type"])
    chat_obj = _CHATS.make(bot, chat_fields)
    message_obj = _MESSAGES.make(
        bot,
        {
            "message_id": message_id,
            "date": from_timestamp(date, tzinfo=extract_tzinfo_from_defaults(bot)),
            "chat": chat_obj,
            "from_user": user_obj,
            "text": text,
            "_id_attrs": (message_id, chat_obj),
        },
    )
    return _UPDATES.make(
        bot, {"update_id": update_id, "message": message_obj, "_id_attrs": (update_id,)}
    )
