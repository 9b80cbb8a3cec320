"""A German date is written with dots ("21.11.", "21.11.2026"): it was read as the time
21:11 today, so "/nocontact 21.11." began the count today and a record entry got the wrong
day. A dotted time ("21.30", "um 14.30") is still a time."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.features.record.dates import parse_when

TODAY = dt.date(2026, 11, 30)


@pytest.mark.parametrize(
    ("typed", "day", "time"),
    [
        ("21.11.", dt.date(2026, 11, 21), None),
        ("21.11.2026", dt.date(2026, 11, 21), None),
        ("am 21.11. um 14.30", dt.date(2026, 11, 21), dt.time(14, 30)),
        ("21.30", TODAY, dt.time(21, 30)),
        ("um 21.30 Uhr", TODAY, dt.time(21, 30)),
        ("12.3. 21:30", dt.date(2026, 3, 12), dt.time(21, 30)),
    ],
)
def test_dotted_dates_and_times(typed: str, day: dt.date, time: dt.time | None) -> None:
    found = parse_when(typed, ["de", "en"], TODAY, country="DE")
    assert found is not None
    assert (found.day, found.time) == (day, time)
