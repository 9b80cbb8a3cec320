"""What became of one send, said once at the transport edge.

Telegram answers a send with a message, or with one of PTB's error types. Callers above
the transport (the check-in pass) act on the result; they should not each know which
exception means "blocked" or "may have arrived". `outcome_of` reads the answer or the
error once and returns a `SendOutcome`: `Delivered` with the message id, or `Undelivered`
with a `Failure` saying what the caller may assume.

The send policy (send_policy.py) has already waited out 429s and retried 5xx and network
errors by the time an error reaches here, so any error here is final for this attempt.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

from telegram import Bot
from telegram.error import BadRequest, Forbidden, RetryAfter, TelegramError, TimedOut
from telegram.ext import BaseRateLimiter

from bot.transport.http import EncodedJson
from bot.transport.send_policy import AT_MOST_ONCE, SendStopped


class Failure(enum.Enum):
    """Why a send did not deliver, grouped by what the caller may assume."""

    BLOCKED = "blocked"  # 403: the person blocked the bot (or deleted their account)
    CHAT_GONE = "chat_gone"  # 400 chat not found: nobody there to send to
    REJECTED = "rejected"  # another final 4xx: Telegram will not take this message
    GAVE_UP = "gave_up"  # 429 or 5xx/network errors past the policy's last retry
    UNKNOWN = "unknown"  # timed out: it may have arrived; sending again could repeat it
    STOPPED = "stopped"  # the bot stopped during a pause: certainly not sent

    @property
    def maybe_delivered(self) -> bool:
        return self is Failure.UNKNOWN


@dataclass(frozen=True, slots=True)
class Delivered:
    message_id: int


@dataclass(frozen=True, slots=True)
class Undelivered:
    failure: Failure
    # The exception's type name, for logs: never its message, which may quote a chat.
    reason: str


SendOutcome = Delivered | Undelivered


def failure_of(exc: TelegramError) -> Failure:
    """The meaning of a final Telegram error for the message it was sending."""
    if isinstance(exc, SendStopped):
        return Failure.STOPPED
    if isinstance(exc, Forbidden):
        return Failure.BLOCKED
    if isinstance(exc, TimedOut):
        return Failure.UNKNOWN
    if isinstance(exc, BadRequest):
        # PTB keeps Telegram's description as the message; only its kind is read here.
        if "chat not found" in exc.message.lower():
            return Failure.CHAT_GONE
        return Failure.REJECTED
    if isinstance(exc, RetryAfter):
        return Failure.GAVE_UP
    # NetworkError (5xx, connection lost) past its retries, or anything else Telegram said.
    return Failure.GAVE_UP


async def outcome_of(answer: Awaitable[Any]) -> SendOutcome:
    """Await a sendMessage call (typed or raw) and say what became of it."""
    try:
        sent = await answer
    except TelegramError as exc:
        return Undelivered(failure_of(exc), type(exc).__name__)
    message_id = sent["message_id"] if isinstance(sent, dict) else sent.message_id
    return Delivered(int(message_id))


class JsonMessageSender:
    """sendMessage with a body already encoded as JSON, through the bot's own send policy
    (its rate limiter, 429 pauses and retries) and PTB's reading of Telegram's answers,
    marked at most once: a timed-out message is not retried, as it may have arrived.

    For a caller that sends many alike messages (the check-in pass): PTB's own path turns
    every parameter into a `RequestParameter`, form-encodes the body and parses the echo
    into a `Message`; this one sends bytes and reads the message id.
    """

    def __init__(self, bot: Bot) -> None:
        self._request = bot.request
        self._url = f"{bot.base_url}/sendMessage"
        self._policy: BaseRateLimiter[int] | None = getattr(bot, "rate_limiter", None)

    async def __call__(self, chat_id: int, body: bytes) -> SendOutcome:
        return await outcome_of(self._send(chat_id, body))

    async def _send(self, chat_id: int, body: bytes) -> Any:
        async def post() -> Any:
            return await self._request.post(self._url, request_data=EncodedJson(body))

        if self._policy is None:
            return await post()
        # The policy reads the chat from `data` (per-chat pauses, group limits).
        return await self._policy.process_request(
            post, (), {}, "sendMessage", {"chat_id": chat_id}, AT_MOST_ONCE
        )
