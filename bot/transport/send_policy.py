"""How every Bot API call is throttled and retried (PTB's rate-limiter hook).

- Throttling: PTB's AIORateLimiter (about 30 messages/s overall, 20/min per group), or none
  for benchmarks that measure our own cost.
- 429 Too Many Requests: every request pauses until `retry_after` has passed (Telegram's
  flood control is per bot, so one 429 means the others would get one too), then retries.
- 5xx and timeouts (`NetworkError`, `TimedOut`): retried with exponential backoff.
- 400/403 and the like are final and reach the caller; 403 marks the person inactive there.

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

from telegram.error import BadRequest, NetworkError, RetryAfter, TimedOut
from telegram.ext import AIORateLimiter, BaseRateLimiter

log = logging.getLogger(__name__)

JSONDict = dict[str, Any]
AT_MOST_ONCE = 1  # rate_limit_args marker: no retry after a timeout
OVERALL_PER_SECOND = 30


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
        for attempt in range(1, self._attempts + 1):
            wait = self._resume_at - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
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
                self._resume_at = max(self._resume_at, time.monotonic() + pause)
                log.warning("telegram flood control on %s: pausing %.1fs", endpoint, pause)
            except BadRequest:
                raise
            except NetworkError as exc:
                if attempt == self._attempts:
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
                await asyncio.sleep(delay)
                delay = min(delay * 2, self._max_delay)
        raise AssertionError("unreachable")  # pragma: no cover
