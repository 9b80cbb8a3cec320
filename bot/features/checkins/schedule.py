"""Timezone maths for daily prompts: pure functions, standard-library ``zoneinfo`` only.

A person picks a wall-clock time ("07:30"), an IANA zone and the weekdays they want. Every
due instant is derived from a *local date*, never by adding 24 hours to the previous UTC
instant: a day that contains a clock change is 23 or 25 hours long, and stepping in UTC
would drift the prompt by an hour after every change.

Clock-change policy (the only two cases where a wall time does not name exactly one
instant):

* **Gap (spring forward).** The wall time does not exist on that date, e.g. 01:30 in
  Europe/London on 2026-03-29, when clocks jump from 01:00 to 02:00. The prompt is due at
  the first valid minute after the gap, i.e. the instant of the change (02:00 BST). It is
  not skipped, and it is not sent an hour "late" at 02:30, which is what ``fold=0`` alone
  would give.
* **Overlap (fall back).** The wall time happens twice, e.g. 01:30 in Europe/London on
  2026-10-25. The prompt is due at the first occurrence only (``fold=0``, 01:30 BST). The
  second 01:30 belongs to the same local date, so the occurrence after the first one is on
  the next date: a person never gets the same day's prompt twice.

Each occurrence is reported together with the local date it belongs to. Delivery records
use that date as the "one prompt per person per day" key, which stays correct even when
the due instant of a gap day falls on the following local date (Pacific/Apia skipped the
whole of 2011-12-30).
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import re
from dataclasses import dataclass
from zoneinfo import ZoneInfo, available_timezones

__all__ = [
    "DailySchedule",
    "is_valid_timezone",
    "lateness_allowed",
    "local_date_of",
    "next_occurrence",
    "parse_local_time",
]

_UTC = dt.UTC
_ONE_DAY = dt.timedelta(days=1)
_ONE_MINUTE = dt.timedelta(minutes=1)
# One day before the local date of `after` up to eight after it covers every weekday at
# least once beyond `after`, even when that weekday's occurrence this week has just passed.
_SEARCH_DAYS = 10

# Present on some systems' zone paths but not zones a person lives in.
_NOT_PLACES = frozenset({"localtime", "Factory"})


@dataclass(frozen=True)
class DailySchedule:
    """When a person wants their prompt: a wall time in a zone, on some weekdays."""

    local_time: dt.time
    timezone: str
    # 0 = Monday ... 6 = Sunday, as `date.weekday()`. Empty means "paused": no occurrences.
    days: frozenset[int]

    def __post_init__(self) -> None:
        if self.local_time.tzinfo is not None:
            # The zone lives in `timezone`; a second offset on the time would contradict it.
            raise ValueError("local_time must be a naive wall time")
        if not is_valid_timezone(self.timezone):
            raise ValueError(f"unknown timezone: {self.timezone!r}")
        if any(not isinstance(d, int) or not 0 <= d <= 6 for d in self.days):
            raise ValueError(f"days must be weekday numbers 0..6, got {sorted(self.days)!r}")


@functools.cache
def _known_zones() -> frozenset[str]:
    # Checking against the list (rather than just trying ZoneInfo) rejects file-system
    # accidents such as a case-insensitive match or a stray file on the zone path.
    return frozenset(available_timezones()) - _NOT_PLACES


def is_valid_timezone(name: str) -> bool:
    """True if `name` is an IANA zone key this system can load, e.g. ``"Europe/London"``."""
    return isinstance(name, str) and name in _known_zones()


def local_date_of(instant: dt.datetime, timezone: str) -> dt.date:
    """The calendar date on the wall in `timezone` at `instant` (which must be aware)."""
    _require_aware(instant, "instant")
    return instant.astimezone(ZoneInfo(timezone)).date()


def _require_aware(value: dt.datetime, name: str) -> None:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{name} must be timezone-aware")


def _due_instant(day: dt.date, local_time: dt.time, zone: ZoneInfo) -> dt.datetime:
    """The UTC instant at which `local_time` on `day` is due in `zone` (see module docs)."""
    wall = dt.datetime.combine(day, local_time)
    # fold=0 is the earlier of two instants in an overlap, which is exactly our policy.
    first = wall.replace(tzinfo=zone, fold=0).astimezone(_UTC)
    if first.astimezone(zone).replace(tzinfo=None) == wall:
        return first
    # In a gap fold=0 and fold=1 land on either side of the change; find the change itself.
    second = wall.replace(tzinfo=zone, fold=1).astimezone(_UTC)
    change = _transition_between(min(first, second), max(first, second), zone)
    return _ceil_to_local_minute(change, zone)


def _transition_between(low: dt.datetime, high: dt.datetime, zone: ZoneInfo) -> dt.datetime:
    """The first whole second in (low, high] whose offset differs from the offset at `low`.

    Bisects over whole seconds since the epoch: tz data records changes to the second, and
    a gap is at most a day wide, so this takes under twenty steps.
    """
    before = low.astimezone(zone).utcoffset()
    lo = math.floor(low.timestamp())
    hi = math.ceil(high.timestamp())
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if dt.datetime.fromtimestamp(mid, _UTC).astimezone(zone).utcoffset() == before:
            lo = mid
        else:
            hi = mid
    return dt.datetime.fromtimestamp(hi, _UTC)


def _ceil_to_local_minute(instant: dt.datetime, zone: ZoneInfo) -> dt.datetime:
    # Only historical local-mean-time changes fall mid-minute; modern ones are on the minute.
    local = instant.astimezone(zone)
    if local.second == 0 and local.microsecond == 0:
        return instant
    trimmed = local.replace(second=0, microsecond=0) + _ONE_MINUTE
    return trimmed.astimezone(_UTC)


def next_occurrence(
    schedule: DailySchedule, after: dt.datetime
) -> tuple[dt.datetime, dt.date] | None:
    """The first due instant strictly after `after`, and the local date it belongs to.

    `after` must be aware (any zone; UTC is expected). The returned instant is in UTC. None
    when `schedule.days` is empty. Clock changes are handled as the module docstring says.
    """
    _require_aware(after, "after")
    if not schedule.days:
        return None
    zone = ZoneInfo(schedule.timezone)
    # Start a day early: a gap can push a date's due instant past the end of that date.
    day = after.astimezone(zone).date() - _ONE_DAY
    for _ in range(_SEARCH_DAYS):
        if day.weekday() in schedule.days:
            due = _due_instant(day, schedule.local_time, zone)
            if due > after:
                return due, day
        day += _ONE_DAY
    # Unreachable for non-empty days: the window holds every weekday after `after`.
    raise AssertionError("no occurrence found within the search window")


_TIME_RE = re.compile(
    r"""
    ^(?:
        (?P<hour>\d{1,2}) (?: [:.] (?P<minute>\d{2}) )?     # 7, 07, 7:30, 7.30, 19:05
      | (?P<hhmm>\d{4})                                     # 0730, 1905
    )
    \s* (?: (?P<half>[ap]) \.? \s* m \.? )? $               # am, pm, a.m., p.m.
    """,
    re.VERBOSE | re.IGNORECASE,
)

_WORDS = {"noon": dt.time(12, 0), "midday": dt.time(12, 0), "midnight": dt.time(0, 0)}


def parse_local_time(text: str) -> dt.time | None:
    """Read a wall-clock time as a person might type it; None if it is not one.

    Accepted: ``7:30``, ``07:30``, ``19:05``, ``7.30``, ``0730`` (four digits, 24-hour),
    a bare hour ``7`` or ``19`` (24-hour, so ``7`` is 07:00; the bot echoes the time back
    for the person to confirm), ``7pm``, ``7:30 pm``, ``7.30 a.m.``, and the words ``noon``,
    ``midday`` and ``midnight``. With am/pm the hour must be 1-12 (``12am`` is 00:00).
    Rejected: anything out of range (``24:00``, ``7:60``, ``13pm``), one-digit minutes
    (``7:5``), three digits (``730``, too easy to mistype), seconds, and anything else.
    """
    cleaned = text.strip().lower()
    if cleaned in _WORDS:
        return _WORDS[cleaned]
    # A time is short; bounding the length keeps odd input from reaching the regex at all.
    if len(cleaned) > 12:
        return None
    match = _TIME_RE.match(cleaned)
    if match is None:
        return None
    if match["hhmm"] is not None:
        if match["half"] is not None:
            return None  # "0730pm" mixes two conventions; better to ask again.
        hour, minute = int(match["hhmm"][:2]), int(match["hhmm"][2:])
    else:
        hour = int(match["hour"])
        minute = int(match["minute"]) if match["minute"] is not None else 0
    if match["half"] is not None:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if match["half"] == "p" else 0)
    if not (0 <= hour <= 23 and 0 <= minute <= 59):
        return None
    return dt.time(hour, minute)


def lateness_allowed(
    due: dt.datetime, now: dt.datetime, grace: dt.timedelta = dt.timedelta(hours=2)
) -> bool:
    """Whether a prompt due at `due` may still be sent at `now` (both aware).

    After downtime, a prompt at most `grace` late (inclusive) is still worth sending; an
    older one would arrive at a time the person did not choose, so it is skipped. A prompt
    that is not yet due is not late, so this returns True; whether it is due is the
    caller's question.
    """
    _require_aware(due, "due")
    _require_aware(now, "now")
    if grace < dt.timedelta(0):
        raise ValueError("grace must not be negative")
    return now - due <= grace
