"""A wake-everyone signal that synchronous code can fire.

asyncio.Condition would do, except that notify() needs its lock held and the user-side
helpers (`user_sends`, ...) are plain functions that cannot await the lock. Waiters here
re-check their own condition after every wake-up, exactly as with a Condition.
"""

from __future__ import annotations

import asyncio
import contextlib


class Signal:
    def __init__(self) -> None:
        self._event = asyncio.Event()

    def notify(self) -> None:
        self._event.set()
        self._event = asyncio.Event()

    async def wait(self, seconds: float) -> None:
        """Return on the next notify() or after `seconds`, whichever comes first.

        Take the event before any await: a notify() after the caller's check and before
        this call would otherwise be missed.
        """
        event = self._event
        if seconds <= 0:
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await event.wait()
