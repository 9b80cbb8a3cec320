"""Telegram's answers to a send, read once at the transport edge into typed outcomes."""

from __future__ import annotations

from typing import Any

import pytest
from telegram.error import (
    BadRequest,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)

from bot.transport.send_outcome import Delivered, Failure, Undelivered, failure_of, outcome_of
from bot.transport.send_policy import SendStopped


@pytest.mark.parametrize(
    ("error", "failure"),
    [
        (Forbidden("Forbidden: bot was blocked by the user"), Failure.BLOCKED),
        (Forbidden("Forbidden: user is deactivated"), Failure.BLOCKED),
        (BadRequest("Bad Request: chat not found"), Failure.CHAT_GONE),
        (BadRequest("Bad Request: message is too long"), Failure.REJECTED),
        (TimedOut(), Failure.UNKNOWN),
        (NetworkError("Bad Gateway"), Failure.GAVE_UP),
        (RetryAfter(30), Failure.GAVE_UP),
        (SendStopped(), Failure.STOPPED),
        (TelegramError("something new"), Failure.GAVE_UP),
    ],
)
def test_each_final_error_has_one_meaning(error: TelegramError, failure: Failure) -> None:
    assert failure_of(error) is failure


def test_only_a_timeout_may_have_arrived() -> None:
    assert [f for f in Failure if f.maybe_delivered] == [Failure.UNKNOWN]


async def test_an_answer_becomes_its_message_id() -> None:
    async def raw() -> dict[str, Any]:
        return {"message_id": 41, "chat": {"id": 7}}

    assert await outcome_of(raw()) == Delivered(41)


async def test_an_error_becomes_an_outcome_naming_its_type_only() -> None:
    async def refused() -> Any:
        raise BadRequest("Bad Request: chat not found (a chat's words could be here)")

    outcome = await outcome_of(refused())
    assert outcome == Undelivered(Failure.CHAT_GONE, "BadRequest")


async def test_an_error_that_is_not_telegrams_is_not_swallowed() -> None:
    async def broken() -> Any:
        raise KeyError("message_id")

    with pytest.raises(KeyError):
        await outcome_of(broken())
