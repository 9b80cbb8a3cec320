"""How every Bot API call is throttled and retried (PTB's rate-limiter hook).

- Throttling: PTB's AIORateLimiter (about 30 messages/s overall, 20/min per group), or none
  for benchmarks that measure our own cost.
- 429 Too Many Requests: the request waits out `retry_after`, then retries. On the ordinary
  bot every request pauses with it (its throttle keeps the whole bot under Telegram's
  overall limit, so a 429 there means the others would get one too). On the crisis bot
  (`per_chat=True`) only that chat pauses: Telegram also limits each chat (about one
  message a second), and one person's flood of crisis words must not hold back anyone
  else's reply (issue 27, finding 2). A 429 on a call that names no chat still pauses all.
- `stop_waiting()` (at shutdown) ends every pause at once with `SendStopped`: a process that
  is stopping cannot send later anyway, and a 30 s pause must not hold up the stop.
- 5xx and timeouts (`NetworkError`, `TimedOut`): retried with exponential backoff.
- 400/403 and the like are final and reach the caller; 403 marks the person inactive there.
- 413 Request Entity Too Large (an upload past Telegram's 50 MB) is final too: PTB raises it
  as a plain `NetworkError`, but the same bytes are refused the same way every time.

A timed-out send may have reached Telegram; retrying it can show a message twice. For
replies we accept that: a duplicate is better than a lost crisis reply. A send marked
`rate_limit_args=AT_MOST_ONCE` (the daily prompt) is not retried after a timeout: the
caller treats it as "may have arrived" and never sends it again.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from telegram.error import BadRequest, NetworkError, RetryAfter, TelegramError, TimedOut
from telegram.ext import AIORateLimiter, BaseRateLimiter

from bot.core.errors import SteadyError

log = logging.getLogger(__name__)

JSONDict = dict[str, Any]
AT_MOST_ONCE = 1  # rate_limit_args marker: no retry after a timeout
OVERALL_PER_SECOND = 30


class SendStopped(TelegramError, SteadyError):
    """A send given up because the bot is stopping while it waited out a pause."""

    def __init__(self) -> None:
        super().__init__("stopping: the send was given up during a pause")


# How Telegram (its JSON description) and PTB (the bare HTTP phrase) word a 413.
_TOO_LARGE = "request entity too large"


def is_too_large(exc: TelegramError) -> bool:
    """An upload Telegram refused for its size: sending it again cannot succeed."""
    return _TOO_LARGE in exc.message.lower()


def retry_seconds(exc: RetryAfter) -> float:
    value = exc.retry_after
    return value.total_seconds() if isinstance(value, dt.timedelta) else float(value)


class SendPolicy(BaseRateLimiter[int]):
    def __init__(
        self,
        *,
        throttle: bool = True,
        attempts: int = 6,
        base_delay: float = 0.5,
        max_delay: float = 30.0,
        per_second: float = OVERALL_PER_SECOND,
        per_chat: bool = False,
    ) -> None:
        # A bucket of one, refilled every 1/30 s: Telegram's ~30 messages/s, evenly spaced.
        # PTB's default bucket of 30 starts full, so a large pass would open with 60 in its
        # first second. Crisis replies do not pass here (their own bot, no throttle).
        # Source for the limit: https://core.telegram.org/bots/faq (broadcasting to users)
        self._throttle = (
            AIORateLimiter(overall_max_rate=1, overall_time_period=1 / per_second, max_retries=0)
            if throttle
            else None
        )
        self._attempts = attempts
        self._base_delay = base_delay
        self._max_delay = max_delay
        self._resume_at = 0.0  # monotonic time before which nothing is sent (after a 429)
        self._per_chat = per_chat
        # Per chat (per_chat=True): monotonic time before which nothing goes to that chat.
        self._chat_resume: dict[object, float] = {}
        self._stopping: asyncio.Event | None = None

    def stop_waiting(self) -> None:
        """End every pause now; the sends waiting in them raise SendStopped."""
        if self._stopping is None:
            self._stopping = asyncio.Event()
        self._stopping.set()

    def _resume_for(self, chat: object) -> float:
        if chat is None:
            return self._resume_at
        resume = self._chat_resume.get(chat)
        if resume is None:
            return self._resume_at
        if resume <= time.monotonic():
            del self._chat_resume[chat]  # a chat that was paused leaves no trace
            return self._resume_at
        return max(resume, self._resume_at)

    async def _pause(self, seconds: float) -> None:
        if seconds <= 0:
            return
        if self._stopping is None:
            self._stopping = asyncio.Event()
        if self._stopping.is_set():
            raise SendStopped
        try:
            await asyncio.wait_for(self._stopping.wait(), seconds)
        except TimeoutError:
            return
        raise SendStopped

    async def initialize(self) -> None:
        if self._throttle is not None:
            await self._throttle.initialize()

    async def shutdown(self) -> None:
        if self._throttle is not None:
            await self._throttle.shutdown()

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | JSONDict | list[JSONDict]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> bool | JSONDict | list[JSONDict]:
        delay = self._base_delay
        chat = data.get("chat_id") if self._per_chat else None
        for attempt in range(1, self._attempts + 1):
            await self._pause(self._resume_for(chat) - time.monotonic())
            try:
                if self._throttle is not None:
                    # The inner limiter reads rate_limit_args as its own retry count: retries
                    # are ours, so it gets none.
                    return await self._throttle.process_request(
                        callback, args, kwargs, endpoint, data, None
                    )
                return await callback(*args, **kwargs)
            except RetryAfter as exc:
                if attempt == self._attempts:
                    raise
                pause = retry_seconds(exc)
                until = time.monotonic() + pause
                if chat is not None:
                    self._chat_resume[chat] = max(self._chat_resume.get(chat, 0.0), until)
                else:
                    self._resume_at = max(self._resume_at, until)
                scope = "one chat" if chat is not None else "all sends"
                log.warning(
                    "telegram flood control on %s: pausing %s %.1fs", endpoint, scope, pause
                )
            except BadRequest:
                raise
            except NetworkError as exc:
                if attempt == self._attempts or is_too_large(exc):
                    raise
                if isinstance(exc, TimedOut) and rate_limit_args == AT_MOST_ONCE:
                    raise
                log.warning(
                    "telegram %s failed (%s), retry %d in %.1fs",
                    endpoint,
                    type(exc).__name__,
                    attempt,
                    delay,
                )
                await self._pause(delay)
                delay = min(delay * 2, self._max_delay)
        raise AssertionError("unreachable")  # pragma: no cover
