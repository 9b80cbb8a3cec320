"""The one source of "now", injectable so tests never sleep."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now(UTC)


class ManualClock:
    """A clock that only moves when told to (tests, benchmarks)."""

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("ManualClock needs an aware datetime")
        self.now = start.astimezone(UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> datetime:
        self.now += delta
        return self.now

    def set(self, when: datetime) -> None:
        self.now = when.astimezone(UTC)


class ShiftedClock:
    """Real time plus an offset that only grows: the sandbox's "later" command lets a
    content author see tomorrow's check-in without waiting for it."""

    def __init__(self) -> None:
        self.offset = timedelta()

    def __call__(self) -> datetime:
        return system_clock() + self.offset

    def skip(self, delta: timedelta) -> None:
        if delta < timedelta():
            raise ValueError("time only moves forward")
        self.offset += delta
