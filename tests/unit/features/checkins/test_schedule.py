"""Timezone maths for daily prompts. Every instant is explicit: no clock, no sleeping."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.features.checkins.schedule import (
    DailySchedule,
    is_valid_timezone,
    lateness_allowed,
    local_date_of,
    next_occurrence,
    parse_local_time,
)

UTC = dt.UTC
EVERY_DAY = frozenset(range(7))


def utc(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0
) -> dt.datetime:
    return dt.datetime(year, month, day, hour, minute, second, tzinfo=UTC)


def daily(hour: int, minute: int, zone: str, days: frozenset[int] = EVERY_DAY) -> DailySchedule:
    return DailySchedule(dt.time(hour, minute), zone, days)


def occurrences(schedule: DailySchedule, after: dt.datetime, count: int) -> list[dt.date]:
    """Local dates of `count` consecutive occurrences, each found strictly after the last."""
    dates = []
    for _ in range(count):
        found = next_occurrence(schedule, after)
        assert found is not None
        after, day = found
        dates.append(day)
    return dates


# -- Europe/London: clocks go forward 2026-03-29 01:00 GMT, back 2026-10-25 02:00 BST ------


def test_london_ordinary_days_either_side_of_spring_forward() -> None:
    schedule = daily(7, 30, "Europe/London")
    assert next_occurrence(schedule, utc(2026, 3, 28, 0, 0)) == (
        utc(2026, 3, 28, 7, 30),
        dt.date(2026, 3, 28),
    )
    # The day of the change: 07:30 BST, one hour earlier in UTC, not 24 h after the last.
    assert next_occurrence(schedule, utc(2026, 3, 28, 7, 30)) == (
        utc(2026, 3, 29, 6, 30),
        dt.date(2026, 3, 29),
    )


def test_london_time_in_spring_gap_is_sent_at_end_of_gap() -> None:
    schedule = daily(1, 30, "Europe/London")
    # 01:30 does not exist on 2026-03-29: sent at 02:00 BST, the first valid minute.
    assert next_occurrence(schedule, utc(2026, 3, 28, 1, 30)) == (
        utc(2026, 3, 29, 1, 0),
        dt.date(2026, 3, 29),
    )
    # The day before and the day after are ordinary.
    assert next_occurrence(schedule, utc(2026, 3, 27, 12, 0)) == (
        utc(2026, 3, 28, 1, 30),
        dt.date(2026, 3, 28),
    )
    assert next_occurrence(schedule, utc(2026, 3, 29, 1, 0)) == (
        utc(2026, 3, 30, 0, 30),
        dt.date(2026, 3, 30),
    )


def test_london_time_in_repeated_hour_is_sent_once_at_first_occurrence() -> None:
    schedule = daily(1, 30, "Europe/London")
    first = utc(2026, 10, 25, 0, 30)  # 01:30 BST
    assert next_occurrence(schedule, utc(2026, 10, 24, 23, 0)) == (first, dt.date(2026, 10, 25))
    # Not the second 01:30 (GMT, 01:30 UTC) on the same date: the next date.
    assert next_occurrence(schedule, first) == (utc(2026, 10, 26, 1, 30), dt.date(2026, 10, 26))
    # Between the two 01:30s: still the next date.
    assert next_occurrence(schedule, utc(2026, 10, 25, 1, 0)) == (
        utc(2026, 10, 26, 1, 30),
        dt.date(2026, 10, 26),
    )


def test_london_ordinary_days_either_side_of_fall_back() -> None:
    schedule = daily(7, 30, "Europe/London")
    assert next_occurrence(schedule, utc(2026, 10, 24, 6, 30)) == (
        utc(2026, 10, 25, 7, 30),
        dt.date(2026, 10, 25),
    )
    assert next_occurrence(schedule, utc(2026, 10, 23, 12, 0)) == (
        utc(2026, 10, 24, 6, 30),
        dt.date(2026, 10, 24),
    )


@pytest.mark.parametrize("local", [dt.time(1, 30), dt.time(0, 0), dt.time(2, 0), dt.time(23, 59)])
def test_london_whole_year_has_exactly_one_occurrence_per_date(local: dt.time) -> None:
    schedule = DailySchedule(local, "Europe/London", EVERY_DAY)
    dates = occurrences(schedule, utc(2025, 12, 31, 23, 59, 30), 365)
    assert dates == [dt.date(2026, 1, 1) + dt.timedelta(days=i) for i in range(365)]


# -- America/New_York: forward 2026-03-08 02:00 EST, back 2026-11-01 02:00 EDT -----------


def test_new_york_gap() -> None:
    schedule = daily(2, 30, "America/New_York")
    assert next_occurrence(schedule, utc(2026, 3, 7, 7, 30)) == (
        utc(2026, 3, 8, 7, 0),  # 03:00 EDT
        dt.date(2026, 3, 8),
    )
    assert next_occurrence(schedule, utc(2026, 3, 8, 7, 0)) == (
        utc(2026, 3, 9, 6, 30),
        dt.date(2026, 3, 9),
    )


def test_new_york_repeated_hour() -> None:
    schedule = daily(1, 30, "America/New_York")
    first = utc(2026, 11, 1, 5, 30)  # 01:30 EDT; the second 01:30 EST is 06:30 UTC
    assert next_occurrence(schedule, utc(2026, 11, 1, 0, 0)) == (first, dt.date(2026, 11, 1))
    assert next_occurrence(schedule, first) == (utc(2026, 11, 2, 6, 30), dt.date(2026, 11, 2))
    assert next_occurrence(schedule, utc(2026, 11, 1, 6, 0)) == (
        utc(2026, 11, 2, 6, 30),
        dt.date(2026, 11, 2),
    )


# -- Australia/Sydney (southern hemisphere): back 2026-04-05 03:00, forward 2026-10-04 02:00


def test_sydney_repeated_hour_in_april() -> None:
    schedule = daily(2, 30, "Australia/Sydney")
    first = utc(2026, 4, 4, 15, 30)  # 02:30 AEDT (+11); the second, AEST, is 16:30 UTC
    assert next_occurrence(schedule, utc(2026, 4, 4, 12, 0)) == (first, dt.date(2026, 4, 5))
    assert next_occurrence(schedule, first) == (utc(2026, 4, 5, 16, 30), dt.date(2026, 4, 6))


def test_sydney_gap_in_october() -> None:
    schedule = daily(2, 30, "Australia/Sydney")
    # 02:30 does not exist on 2026-10-04: sent at 03:00 AEDT, which is still 3 October in UTC.
    assert next_occurrence(schedule, utc(2026, 10, 3, 12, 0)) == (
        utc(2026, 10, 3, 16, 0),
        dt.date(2026, 10, 4),
    )
    assert next_occurrence(schedule, utc(2026, 10, 3, 16, 0)) == (
        utc(2026, 10, 4, 15, 30),
        dt.date(2026, 10, 5),
    )


# -- Zones with half- and three-quarter-hour offsets --------------------------------------


def test_kolkata_half_hour_offset() -> None:
    schedule = daily(7, 0, "Asia/Kolkata")
    assert next_occurrence(schedule, utc(2026, 6, 1, 0, 0)) == (
        utc(2026, 6, 1, 1, 30),
        dt.date(2026, 6, 1),
    )
    # 03:00 IST is the previous evening in UTC.
    early = daily(3, 0, "Asia/Kolkata")
    assert next_occurrence(early, utc(2026, 6, 1, 0, 0)) == (
        utc(2026, 6, 1, 21, 30),
        dt.date(2026, 6, 2),
    )


def test_chatham_standard_time() -> None:
    schedule = daily(9, 0, "Pacific/Chatham")  # +12:45 in June
    assert next_occurrence(schedule, utc(2026, 5, 31, 0, 0)) == (
        utc(2026, 5, 31, 20, 15),
        dt.date(2026, 6, 1),
    )


def test_chatham_daylight_time() -> None:
    schedule = daily(9, 0, "Pacific/Chatham")  # +13:45 in January
    assert next_occurrence(schedule, utc(2026, 1, 14, 12, 0)) == (
        utc(2026, 1, 14, 19, 15),
        dt.date(2026, 1, 15),
    )


def test_chatham_repeated_hour_in_april() -> None:
    # 2026-04-05 03:45 +13:45 becomes 02:45 +12:45, so 03:00 happens twice.
    schedule = daily(3, 0, "Pacific/Chatham")
    first = utc(2026, 4, 4, 13, 15)
    assert next_occurrence(schedule, utc(2026, 4, 4, 0, 0)) == (first, dt.date(2026, 4, 5))
    assert next_occurrence(schedule, first) == (utc(2026, 4, 5, 14, 15), dt.date(2026, 4, 6))


def test_chatham_gap_in_september() -> None:
    # 2026-09-27 02:45 +12:45 becomes 03:45 +13:45: 03:00 is sent at 03:45.
    schedule = daily(3, 0, "Pacific/Chatham")
    assert next_occurrence(schedule, utc(2026, 9, 26, 0, 0)) == (
        utc(2026, 9, 26, 14, 0),
        dt.date(2026, 9, 27),
    )
    assert next_occurrence(schedule, utc(2026, 9, 26, 14, 0)) == (
        utc(2026, 9, 27, 13, 15),
        dt.date(2026, 9, 28),
    )


# -- Zones far from UTC --------------------------------------------------------------------


def test_kiritimati_plus_fourteen() -> None:
    schedule = daily(7, 0, "Pacific/Kiritimati")
    due, day = next_occurrence(schedule, utc(2026, 5, 31, 0, 0)) or (None, None)
    assert (due, day) == (utc(2026, 5, 31, 17, 0), dt.date(2026, 6, 1))
    assert local_date_of(utc(2026, 5, 31, 17, 0), "Pacific/Kiritimati") == dt.date(2026, 6, 1)
    assert local_date_of(utc(2026, 5, 31, 9, 59), "Pacific/Kiritimati") == dt.date(2026, 5, 31)
    assert local_date_of(utc(2026, 5, 31, 10, 0), "Pacific/Kiritimati") == dt.date(2026, 6, 1)


def test_pago_pago_minus_eleven() -> None:
    schedule = daily(20, 0, "Pacific/Pago_Pago")
    assert next_occurrence(schedule, utc(2026, 6, 1, 12, 0)) == (
        utc(2026, 6, 2, 7, 0),
        dt.date(2026, 6, 1),
    )
    assert local_date_of(utc(2026, 6, 2, 7, 0), "Pacific/Pago_Pago") == dt.date(2026, 6, 1)
    assert local_date_of(utc(2026, 6, 2, 11, 0), "Pacific/Pago_Pago") == dt.date(2026, 6, 2)


def test_local_date_of_converts_from_any_aware_zone() -> None:
    instant = dt.datetime(2026, 6, 1, 9, 0, tzinfo=ZoneInfo("Pacific/Kiritimati"))
    assert local_date_of(instant, "Pacific/Pago_Pago") == dt.date(2026, 5, 31)


def test_local_date_of_rejects_naive() -> None:
    with pytest.raises(ValueError, match="aware"):
        local_date_of(dt.datetime(2026, 6, 1), "Europe/London")


# -- Weekdays and the strict "after" -------------------------------------------------------

MONDAY = dt.date(2026, 6, 1)  # 2026-06-01 is a Monday


def test_weekends_only() -> None:
    schedule = daily(9, 0, "Europe/London", frozenset({5, 6}))
    assert next_occurrence(schedule, utc(2026, 6, 1, 12, 0)) == (
        utc(2026, 6, 6, 8, 0),
        dt.date(2026, 6, 6),
    )
    assert next_occurrence(schedule, utc(2026, 6, 6, 8, 0)) == (
        utc(2026, 6, 7, 8, 0),
        dt.date(2026, 6, 7),
    )
    assert next_occurrence(schedule, utc(2026, 6, 7, 8, 0)) == (
        utc(2026, 6, 13, 8, 0),
        dt.date(2026, 6, 13),
    )


def test_single_day_a_week() -> None:
    schedule = daily(9, 0, "Europe/London", frozenset({2}))  # Wednesdays
    assert next_occurrence(schedule, utc(2026, 6, 3, 7, 59)) == (
        utc(2026, 6, 3, 8, 0),
        dt.date(2026, 6, 3),
    )
    # Just missed this week's: a full week later.
    assert next_occurrence(schedule, utc(2026, 6, 3, 8, 0, 1)) == (
        utc(2026, 6, 10, 8, 0),
        dt.date(2026, 6, 10),
    )
    assert all(d.weekday() == 2 for d in occurrences(schedule, utc(2026, 1, 1, 0, 0), 60))


def test_weekday_is_the_local_weekday_not_the_utc_one() -> None:
    # Monday 07:00 in Kiritimati is Sunday 17:00 UTC.
    schedule = daily(7, 0, "Pacific/Kiritimati", frozenset({0}))
    assert next_occurrence(schedule, utc(2026, 5, 30, 0, 0)) == (
        utc(2026, 5, 31, 17, 0),
        MONDAY,
    )


def test_after_exactly_at_due_instant_gives_next_day() -> None:
    schedule = daily(7, 30, "Europe/London")
    due = utc(2026, 6, 1, 6, 30)
    assert next_occurrence(schedule, due - dt.timedelta(microseconds=1)) == (due, MONDAY)
    assert next_occurrence(schedule, due) == (utc(2026, 6, 2, 6, 30), dt.date(2026, 6, 2))


def test_no_days_means_no_occurrence() -> None:
    assert next_occurrence(daily(7, 30, "Europe/London", frozenset()), utc(2026, 6, 1)) is None


def test_after_may_be_in_any_zone_and_result_is_utc() -> None:
    after = dt.datetime(2026, 6, 1, 12, 0, tzinfo=ZoneInfo("Asia/Kolkata"))  # 06:30 UTC
    found = next_occurrence(daily(7, 30, "Europe/London"), after)
    assert found == (utc(2026, 6, 2, 6, 30), dt.date(2026, 6, 2))
    assert found is not None
    assert found[0].tzinfo is UTC


def test_naive_after_is_rejected() -> None:
    with pytest.raises(ValueError, match="aware"):
        next_occurrence(daily(7, 30, "Europe/London"), dt.datetime(2026, 6, 1))


# -- DailySchedule and is_valid_timezone ---------------------------------------------------


@pytest.mark.parametrize(
    ("local_time", "zone", "days", "message"),
    [
        (dt.time(7, 0), "Mars/Olympus", EVERY_DAY, "timezone"),
        (dt.time(7, 0), "", EVERY_DAY, "timezone"),
        (dt.time(7, 0), "Europe/London", frozenset({7}), "days"),
        (dt.time(7, 0), "Europe/London", frozenset({-1}), "days"),
        (dt.time(7, 0, tzinfo=UTC), "Europe/London", EVERY_DAY, "naive"),
    ],
)
def test_daily_schedule_rejects_bad_values(
    local_time: dt.time, zone: str, days: frozenset[int], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        DailySchedule(local_time, zone, days)


@pytest.mark.parametrize(
    "name",
    ["Europe/London", "America/New_York", "Pacific/Chatham", "Asia/Kolkata", "UTC"],
)
def test_valid_timezones(name: str) -> None:
    assert is_valid_timezone(name)


@pytest.mark.parametrize(
    "name",
    [
        "",
        "Mars/Olympus",
        "europe/london",
        "London",
        "/etc/localtime",
        "../etc/passwd",
        "Europe/London ",
        "localtime",
        "+05:30",
    ],
)
def test_invalid_timezones(name: str) -> None:
    assert not is_valid_timezone(name)


# -- parse_local_time ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7:30", dt.time(7, 30)),
        ("07:30", dt.time(7, 30)),
        ("19:05", dt.time(19, 5)),
        ("7.30", dt.time(7, 30)),
        ("0730", dt.time(7, 30)),
        ("1905", dt.time(19, 5)),
        ("0000", dt.time(0, 0)),
        ("7", dt.time(7, 0)),
        ("19", dt.time(19, 0)),
        ("0:00", dt.time(0, 0)),
        ("23:59", dt.time(23, 59)),
        ("7pm", dt.time(19, 0)),
        ("7 pm", dt.time(19, 0)),
        ("7PM", dt.time(19, 0)),
        ("7:30 pm", dt.time(19, 30)),
        ("7:30pm", dt.time(19, 30)),
        ("7.30 a.m.", dt.time(7, 30)),
        ("7am", dt.time(7, 0)),
        ("12am", dt.time(0, 0)),
        ("12:15 am", dt.time(0, 15)),
        ("12pm", dt.time(12, 0)),
        ("12:45 p.m.", dt.time(12, 45)),
        ("  8:00  ", dt.time(8, 0)),
        ("noon", dt.time(12, 0)),
        ("Midnight", dt.time(0, 0)),
    ],
)
def test_parse_local_time_accepts(text: str, expected: dt.time) -> None:
    assert parse_local_time(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "24:00",
        "25",
        "7:60",
        "7:5",
        "730",
        "07300",
        "13pm",
        "0am",
        "0:30 pm",
        "19:05 pm",
        "0730pm",
        "7:30:00",
        "-1:00",
        "7:30 xm",
        "seven",
        "7::30",
        "7:30 pm pm",
        "1" * 1000,
    ],
)
def test_parse_local_time_rejects(text: str) -> None:
    assert parse_local_time(text) is None


# -- lateness_allowed ----------------------------------------------------------------------

DUE = utc(2026, 6, 1, 7, 0)


@pytest.mark.parametrize(
    ("now", "allowed"),
    [
        (DUE, True),
        (DUE + dt.timedelta(hours=1, minutes=59), True),
        (DUE + dt.timedelta(hours=2), True),
        (DUE + dt.timedelta(hours=2, microseconds=1), False),
        (DUE + dt.timedelta(days=1), False),
        (DUE - dt.timedelta(minutes=5), True),
    ],
)
def test_lateness_allowed_default_grace(now: dt.datetime, allowed: bool) -> None:
    assert lateness_allowed(DUE, now) is allowed


def test_lateness_allowed_custom_grace() -> None:
    grace = dt.timedelta(minutes=15)
    assert lateness_allowed(DUE, DUE + grace, grace)
    assert not lateness_allowed(DUE, DUE + grace + dt.timedelta(seconds=1), grace)
    assert lateness_allowed(DUE, DUE, dt.timedelta(0))
    assert not lateness_allowed(DUE, DUE + dt.timedelta(microseconds=1), dt.timedelta(0))


def test_lateness_allowed_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="aware"):
        lateness_allowed(DUE, dt.datetime(2026, 6, 1, 8, 0))
    with pytest.raises(ValueError, match="negative"):
        lateness_allowed(DUE, DUE, dt.timedelta(seconds=-1))


# -- Properties ----------------------------------------------------------------------------

ZONES = [
    "UTC",
    "Europe/London",
    "Europe/Berlin",
    "America/New_York",
    "America/Santiago",
    "America/Havana",
    "America/St_Johns",
    "Australia/Sydney",
    "Australia/Lord_Howe",
    "Asia/Kolkata",
    "Asia/Kathmandu",
    "Asia/Tehran",
    "Pacific/Chatham",
    "Pacific/Kiritimati",
    "Pacific/Pago_Pago",
    "Africa/Casablanca",
]


def _has_gap_at(day: dt.date, local_time: dt.time, zone: str) -> bool:
    tz = ZoneInfo(zone)
    wall = dt.datetime.combine(day, local_time)
    round_trip = wall.replace(tzinfo=tz).astimezone(UTC).astimezone(tz).replace(tzinfo=None)
    return round_trip != wall


def _check_occurrence(schedule: DailySchedule, after: dt.datetime) -> None:
    zone, local_time, days = schedule.timezone, schedule.local_time, schedule.days
    found = next_occurrence(schedule, after)
    assert found is not None
    due, day = found
    assert due.tzinfo is UTC
    assert after < due <= after + dt.timedelta(days=8)
    assert day.weekday() in days
    assert local_date_of(due, zone) == day

    wall = due.astimezone(ZoneInfo(zone))
    if _has_gap_at(day, local_time, zone):
        # Sent at the end of the gap: later than asked, on a changed offset, on the minute.
        assert wall.replace(tzinfo=None) > dt.datetime.combine(day, local_time)
        before = (due - dt.timedelta(seconds=1)).astimezone(ZoneInfo(zone)).utcoffset()
        assert before != wall.utcoffset()
        assert (wall.second, wall.microsecond) == (0, 0)
    else:
        assert wall.time() == local_time
        assert wall.fold == 0  # the first of two, if the wall time happens twice

    # The occurrence is stable: just before it, it is still next; from it, a later date.
    assert next_occurrence(schedule, due - dt.timedelta(microseconds=1)) == found
    later = next_occurrence(schedule, due)
    assert later is not None
    assert later[0] > due
    assert later[1] > day
    # No allowed date is skipped in between.
    assert all(
        (day + dt.timedelta(days=i)).weekday() not in days for i in range(1, (later[1] - day).days)
    )


@settings(max_examples=400, deadline=None)
@given(
    zone=st.sampled_from(ZONES),
    local_time=st.times(),
    days=st.frozensets(st.integers(0, 6), min_size=1),
    after=st.datetimes(
        min_value=dt.datetime(2000, 1, 1),
        max_value=dt.datetime(2045, 12, 31),
        timezones=st.just(UTC),
    ),
)
def test_next_occurrence_properties(
    zone: str, local_time: dt.time, days: frozenset[int], after: dt.datetime
) -> None:
    _check_occurrence(DailySchedule(local_time, zone, days), after)


# Days on which the clocks change in 2026, so the search lands in gaps and repeats often.
CHANGE_DAYS = [
    ("Europe/London", dt.date(2026, 3, 29)),
    ("Europe/London", dt.date(2026, 10, 25)),
    ("America/New_York", dt.date(2026, 3, 8)),
    ("America/New_York", dt.date(2026, 11, 1)),
    ("Australia/Sydney", dt.date(2026, 4, 5)),
    ("Australia/Sydney", dt.date(2026, 10, 4)),
    ("Australia/Lord_Howe", dt.date(2026, 4, 5)),
    ("Australia/Lord_Howe", dt.date(2026, 10, 4)),
    ("Pacific/Chatham", dt.date(2026, 4, 5)),
    ("Pacific/Chatham", dt.date(2026, 9, 27)),
    ("America/Santiago", dt.date(2026, 4, 5)),
    ("America/Santiago", dt.date(2026, 9, 6)),
    ("America/Havana", dt.date(2026, 3, 8)),
    ("America/Havana", dt.date(2026, 11, 1)),
]


@settings(max_examples=400, deadline=None)
@given(
    change=st.sampled_from(CHANGE_DAYS),
    minutes=st.integers(0, 5 * 60),
    shift=st.integers(-48 * 60, 24 * 60),
    days=st.frozensets(st.integers(0, 6), min_size=1),
)
def test_next_occurrence_properties_around_clock_changes(
    change: tuple[str, dt.date], minutes: int, shift: int, days: frozenset[int]
) -> None:
    zone, day = change
    # Change days' local times run from the previous evening (a midnight change) to 05:00.
    local_time = (dt.datetime(2000, 1, 1, 22, 0) + dt.timedelta(minutes=minutes)).time()
    after = dt.datetime.combine(day, dt.time(0, 0), UTC) + dt.timedelta(minutes=shift)
    _check_occurrence(DailySchedule(local_time, zone, days), after)


def test_skipped_calendar_day_still_gets_its_occurrence() -> None:
    # Samoa skipped 2011-12-30 entirely (-10 to +14). The prompt for that date is sent at
    # the end of the gap, midnight on the 31st local, and keyed to the 30th.
    schedule = daily(9, 0, "Pacific/Apia")
    assert next_occurrence(schedule, utc(2011, 12, 29, 19, 0)) == (
        utc(2011, 12, 30, 10, 0),
        dt.date(2011, 12, 30),
    )
    assert next_occurrence(schedule, utc(2011, 12, 30, 10, 0)) == (
        utc(2011, 12, 30, 19, 0),
        dt.date(2011, 12, 31),
    )
