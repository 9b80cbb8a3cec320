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
import json
import re
from collections.abc import Awaitable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, NoReturn

from telegram import Bot
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Conflict,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)
from telegram.ext import BaseRateLimiter

from bot.transport.http import BotApiRequest
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


# Telegram's answer to a send opens with the message's id (both the Bot API and the
# emulator write it first); read straight from the bytes, the rest of the echo is never
# decoded. Anything else is decoded whole.
_SENT = re.compile(
    rb'\{\s*"ok"\s*:\s*true\s*,\s*"result"\s*:\s*\{\s*"message_id"\s*:\s*(\d+)\s*[,}]'
)
# The same, with the date: Telegram writes a message's `from` and `chat` next, then its
# `date`. Neither object nests another, and a quote inside a name is escaped, so text in
# them can never end a match early or fake one; a name with a brace only falls back to
# decoding the echo whole.
_SENT_DATED = re.compile(
    rb'\{\s*"ok"\s*:\s*true\s*,\s*"result"\s*:\s*\{\s*"message_id"\s*:\s*(\d+)\s*,'
    rb'\s*"from"\s*:\s*\{[^{}]*\}\s*,\s*"chat"\s*:\s*\{[^{}]*\}\s*,\s*"date"\s*:\s*(\d+)\s*[,}]'
)


def _decoded(payload: bytes) -> dict[str, Any] | None:
    try:
        data = json.loads(payload)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def message_id_of(status: int, payload: bytes) -> int:
    """The sent message's id from Telegram's answer to sendMessage, or the PTB error that
    answer means (the ones PTB's own request wrapper raises, read from the status, the
    `description` and `parameters`), so the send policy retries and pauses as for any
    other call. Messages carry Telegram's description, never the answer's bytes."""
    if 200 <= status <= 299:
        found = _SENT.match(payload)
        if found is not None:
            return int(found[1])
        data = _decoded(payload)
        result = None if data is None else data.get("result")
        if not isinstance(result, dict) or not isinstance(result.get("message_id"), int):
            raise TelegramError("Invalid server response")
        return int(result["message_id"])
    raise_for(status, payload)


def sent_of(status: int, payload: bytes) -> tuple[int, int]:
    """The sent message's id and date (Unix seconds, Telegram's) from the answer to a
    send, or the PTB error that answer means, as `message_id_of`. The echo is decoded with
    the standard library's JSON alone, and then only when its head is not the usual one:
    no PTB `Message` is built from it."""
    if not 200 <= status <= 299:
        raise_for(status, payload)
    found = _SENT_DATED.match(payload)
    if found is not None:
        return int(found[1]), int(found[2])
    data = _decoded(payload)
    result = None if data is None else data.get("result")
    if not isinstance(result, dict):
        raise TelegramError("Invalid server response")
    message_id, date = result.get("message_id"), result.get("date")
    if not isinstance(message_id, int) or not isinstance(date, int):
        raise TelegramError("Invalid server response")
    return message_id, date


def raise_for(status: int, payload: bytes) -> NoReturn:
    """The PTB error a refused call's answer means (as PTB's request wrapper raises it)."""
    try:
        message = f"{HTTPStatus(status).phrase} ({status})"
    except ValueError:
        message = f"Unknown HTTPError ({status})"
    data = _decoded(payload)
    if data is not None:
        description = data.get("description")
        if isinstance(description, str) and description:
            message = description
        parameters = data.get("parameters")
        if isinstance(parameters, dict):
            if migrate_to := parameters.get("migrate_to_chat_id"):
                raise ChatMigrated(int(migrate_to))
            if retry_after := parameters.get("retry_after"):
                raise RetryAfter(int(retry_after))
    if status == HTTPStatus.FORBIDDEN:
        raise Forbidden(message)
    if status in (HTTPStatus.NOT_FOUND, HTTPStatus.UNAUTHORIZED):
        raise InvalidToken(message)
    if status == HTTPStatus.BAD_REQUEST:
        raise BadRequest(message)
    if status == HTTPStatus.CONFLICT:
        raise Conflict(message)
    raise NetworkError(message)  # 5xx and the rest: retried by the policy (413 is final)


async def post_send(bot: Bot, method: str, params: dict[str, Any]) -> tuple[int, int] | None:
    """A send (`method`, e.g. sendMessage) with its parameters already in the Bot API's
    JSON form, through the bot's own send policy (throttle, 429 pauses, 5xx and timeout
    retries, exactly as a PTB send: not marked at most once): the message's id and date.
    None when the bot has no JSON transport (http.py's), for the caller to send through
    PTB instead.

    For the replies whose returned message nobody reads but its id (the keep offer on
    every ordinary update): PTB's own path turns each parameter into a `RequestParameter`
    (an inline keyboard's every button through `to_dict`) and parses the echo into a
    `Message` with its keyboard, about a third of an ordinary update's CPU (issue 25)."""
    request = bot.request
    if not isinstance(request, BotApiRequest):
        return None
    url = f"{bot.base_url}/{method}"
    body = json.dumps(params, separators=(",", ":")).encode()

    async def post() -> Any:  # the policy's callbacks answer with PTB's JSON types
        status, payload = await request.post_json(url, body)
        return sent_of(status, payload)

    policy: BaseRateLimiter[int] | None = getattr(bot, "rate_limiter", None)
    if policy is None:
        sent: Any = await post()
    else:
        # The policy reads the chat from `data` (per-chat pauses, group limits).
        sent = await policy.process_request(post, (), {}, method, params, None)
    message_id, date = sent
    return int(message_id), int(date)


class JsonMessageSender:
    """sendMessage with a body already encoded as JSON, through the bot's own send policy
    (its rate limiter, 429 pauses, 5xx retries), marked at most once: a timed-out message
    is not retried, as it may have arrived.

    For a caller that sends many alike messages (the check-in pass): PTB's own path turns
    every parameter into a `RequestParameter`, encodes the body and parses the echo into a
    `Message`; this one posts bytes already encoded over the transport's small client
    (json_post.py) and reads the message id alone.
    """

    def __init__(self, bot: Bot) -> None:
        request = bot.request
        if not isinstance(request, BotApiRequest):
            raise TypeError("the JSON send needs the bot's own HTTP transport (http.py)")
        self._http = request
        self._url = f"{bot.base_url}/sendMessage"
        self._policy: BaseRateLimiter[int] | None = getattr(bot, "rate_limiter", None)

    async def __call__(self, chat_id: int, body: bytes) -> SendOutcome:
        try:
            return Delivered(await self._send(chat_id, body))
        except TelegramError as exc:
            return Undelivered(failure_of(exc), type(exc).__name__)

    async def _send(self, chat_id: int, body: bytes) -> int:
        async def post() -> Any:  # the policy's callbacks answer with PTB's JSON types
            status, payload = await self._http.post_json(self._url, body)
            return message_id_of(status, payload)

        if self._policy is None:
            return int(await post())
        # The policy reads the chat from `data` (per-chat pauses, group limits).
        sent: Any = await self._policy.process_request(
            post, (), {}, "sendMessage", {"chat_id": chat_id}, AT_MOST_ONCE
        )
        return int(sent)
