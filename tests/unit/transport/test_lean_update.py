"""The common update parsed without PTB's general parser (bot/transport/lean_update.py):
the same objects, slot for slot, as `Update.de_json`; every other shape left to it."""

from __future__ import annotations

import copy
import datetime as dt
from typing import Any

import pytest
from telegram import Message, TelegramObject, Update
from telegram.ext import Defaults, ExtBot

from bot.transport.intake import MainBot
from bot.transport.lean_update import _slot_names, lean_update

TOKEN = "123456:TEST-token-abcdefghijklmnopqrstuvw"


def _plain(**message: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "message_id": 41,
        "from": {"id": 7001, "is_bot": False, "first_name": "Ana", "language_code": "pt"},
        "chat": {"id": 7001, "type": "private", "first_name": "Ana"},
        "date": 1764700000,
        "text": "I went for a walk today",
    }
    body.update(message)
    return {"update_id": 900, "message": body}


TAKEN = {
    "plain": _plain(),
    "no language": _plain(
        **{
            "from": {"id": 5, "is_bot": False, "first_name": "B"},
            "chat": {"id": 5, "type": "private"},
        }
    ),
    "every user field": _plain(
        **{
            "from": {
                "id": 6,
                "is_bot": False,
                "first_name": "C",
                "last_name": "D",
                "username": "cd",
                "language_code": "es",
                "is_premium": True,
            },
            "chat": {
                "id": 6,
                "type": "private",
                "first_name": "C",
                "last_name": "D",
                "username": "cd",
            },
        }
    ),
    "group": _plain(chat={"id": -100123, "type": "supergroup", "title": "Friends"}),
    "empty text": _plain(text=""),
    "an unknown chat type": _plain(chat={"id": 8, "type": "some_new_kind"}),
}

LEFT = {
    "entities": _plain(text="/start", entities=[{"type": "bot_command", "offset": 0, "length": 6}]),
    "a reply": _plain(reply_to_message=_plain()["message"]),
    "a photo": {
        "update_id": 1,
        "message": {
            k: v
            for k, v in _plain(
                photo=[{"file_id": "a", "file_unique_id": "b", "width": 1, "height": 1}]
            )["message"].items()
            if k != "text"
        },
    },
    "an edit": {"update_id": 2, "edited_message": _plain()["message"]},
    "a button": {
        "update_id": 3,
        "callback_query": {
            "id": "q",
            "from": {"id": 1, "is_bot": False, "first_name": "A"},
            "chat_instance": "c",
            "data": "x",
        },
    },
    "an unknown user field": _plain(
        **{"from": {"id": 1, "is_bot": False, "first_name": "A", "added_later": True}}
    ),
    "an id of the wrong type": _plain(message_id="41"),
    "a bool for an int": _plain(**{"from": {"id": True, "is_bot": False, "first_name": "A"}}),
    "no sender": {
        "update_id": 4,
        "message": {k: v for k, v in _plain()["message"].items() if k != "from"},
    },
    "an inaccessible date": _plain(date=0),
    "not an object": [1, 2],
    "no id": {"message": _plain()["message"]},
}


def _same(ours: object, theirs: object, path: str) -> None:
    assert type(ours) is type(theirs), path
    if isinstance(theirs, TelegramObject):
        names = list(_slot_names(type(theirs)))
        assert names, path
        for name in names:
            if name == "_bot":
                assert getattr(ours, name) is getattr(theirs, name), path
                continue
            _same(getattr(ours, name), getattr(theirs, name), f"{path}.{name}")
    elif isinstance(theirs, tuple):
        assert len(ours) == len(theirs), path  # type: ignore[arg-type]
        for index, (a, b) in enumerate(zip(ours, theirs, strict=True)):  # type: ignore[call-overload]
            _same(a, b, f"{path}[{index}]")
    else:
        assert ours == theirs, path


@pytest.mark.parametrize(
    "bot_defaults", [None, Defaults(tzinfo=dt.timezone(dt.timedelta(hours=2)))]
)
@pytest.mark.parametrize("name", sorted(TAKEN))
def test_the_common_shapes_are_the_objects_ptb_makes(
    name: str, bot_defaults: Defaults | None
) -> None:
    bot = ExtBot(TOKEN, defaults=bot_defaults)
    raw = TAKEN[name]
    before = copy.deepcopy(raw)
    ours = lean_update(raw, bot)
    assert ours is not None, name
    theirs = Update.de_json(copy.deepcopy(raw), bot)
    _same(ours, theirs, "update")
    assert ours.to_dict() == theirs.to_dict()
    assert raw == before  # the raw update is not altered
    # Frozen as PTB's are, and what the handlers read.
    with pytest.raises(AttributeError):
        ours.message.text = "changed"  # type: ignore[misc, union-attr]
    assert ours.effective_user is ours.message.from_user  # type: ignore[union-attr]
    assert ours.effective_chat is ours.message.chat  # type: ignore[union-attr]
    assert ours.effective_message is ours.message
    assert ours.message.date.tzinfo == theirs.message.date.tzinfo  # type: ignore[union-attr]


@pytest.mark.parametrize("name", sorted(LEFT))
def test_every_other_shape_is_left_to_ptb(name: str) -> None:
    assert lean_update(LEFT[name], ExtBot(TOKEN)) is None


def test_polling_parses_the_common_update_without_ptbs_parser(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The intake takes the lean path: with PTB's message constructor broken, the common
    update still parses (without the lean path it is skipped), and another still goes to
    PTB's parser."""

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("PTB's parser")

    bot = MainBot(TOKEN)
    monkeypatch.setattr(Message, "__init__", broken)
    update = bot.parse(_plain())
    assert update is not None
    assert update.message is not None
    assert update.message.text == "I went for a walk today"
    assert bot.parse(LEFT["a reply"]) is None  # PTB's parser it was
    assert bot.skipped_updates == 1
