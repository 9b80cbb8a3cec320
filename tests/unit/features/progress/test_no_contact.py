"""No-contact days: local days, pauses, resets, and the edges of days and clock changes."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.features.progress.no_contact import DayStretch, Mark, MarkKind, State, allowed, no_contact

LONDON = ZoneInfo("Europe/London")
LA = ZoneInfo("America/Los_Angeles")
KOLKATA = ZoneInfo("Asia/Kolkata")

START, PAUSE, RESUME, RESET, STOP = (
    MarkKind.START,
    MarkKind.PAUSE,
    MarkKind.RESUME,
    MarkKind.RESET,
    MarkKind.STOP,
)


def at(zone: ZoneInfo, *parts: int) -> datetime:
    return datetime(*parts, tzinfo=zone)  # type: ignore[misc]


def marks(zone: ZoneInfo, *items: tuple[MarkKind, tuple[int, ...]]) -> list[Mark]:
    return [Mark(kind, at(zone, *when)) for kind, when in items]


def test_nothing_started_is_off() -> None:
    status = no_contact([], now=at(LONDON, 2026, 12, 1, 9), zone=LONDON)
    assert (status.state, status.day, status.began, status.stretches) == (State.OFF, 0, None, ())


def test_the_day_it_starts_is_day_one_and_each_local_day_adds_one() -> None:
    m = marks(LONDON, (START, (2026, 11, 20, 22, 30)))
    assert no_contact(m, now=at(LONDON, 2026, 11, 20, 23, 59), zone=LONDON).day == 1
    assert no_contact(m, now=at(LONDON, 2026, 11, 21, 0, 0), zone=LONDON).day == 2
    status = no_contact(m, now=at(LONDON, 2026, 12, 1, 9), zone=LONDON)
    assert status.day == 12
    assert status.began == date(2026, 11, 20)
    assert status.stretches == (DayStretch(date(2026, 11, 20), date(2026, 12, 1)),)


def test_midnight_is_local_not_utc() -> None:
    # 07:30 UTC on 1 Dec is still 30 Nov in Los Angeles, and 13:00 on 1 Dec in Kolkata.
    start = [Mark(START, datetime(2026, 12, 1, 7, 30, tzinfo=UTC))]
    now = datetime(2026, 12, 1, 7, 45, tzinfo=UTC)  # 23:45 in Los Angeles
    la = no_contact(start, now=now, zone=LA)
    assert (la.began, la.day) == (date(2026, 11, 30), 1)
    kolkata = no_contact(start, now=now, zone=KOLKATA)
    assert (kolkata.began, kolkata.day) == (date(2026, 12, 1), 1)
    # At 00:00:00 local, the new day counts; a second before, it does not.
    midnight_la = datetime(2026, 12, 1, 0, 0, tzinfo=LA)
    assert no_contact(start, now=midnight_la, zone=LA).day == 2
    assert no_contact(start, now=midnight_la - timedelta(seconds=1), zone=LA).day == 1


def test_spring_forward_day_of_23_hours_counts_once() -> None:
    # London skipped 01:00–02:00 on 29 March 2026.
    m = marks(LONDON, (START, (2026, 3, 28, 12)))
    assert no_contact(m, now=at(LONDON, 2026, 3, 29, 23, 30), zone=LONDON).day == 2
    assert no_contact(m, now=at(LONDON, 2026, 3, 30, 0, 0), zone=LONDON).day == 3
    # 24 hours after the start is already 13:00 on 29 March: day 2, not "one day".
    later = m[0].at.astimezone(UTC) + timedelta(hours=24)
    assert no_contact(m, now=later, zone=LONDON).day == 2


def test_fall_back_day_of_25_hours_counts_once() -> None:
    # Los Angeles repeated 01:00–02:00 on 1 November 2026.
    m = marks(LA, (START, (2026, 10, 31, 23, 50)))
    first_one_am = datetime(2026, 11, 1, 1, 30, tzinfo=LA, fold=0)
    second_one_am = datetime(2026, 11, 1, 1, 30, tzinfo=LA, fold=1)
    assert second_one_am.astimezone(UTC) - first_one_am.astimezone(UTC) == timedelta(hours=1)
    assert no_contact(m, now=first_one_am, zone=LA).day == 2
    assert no_contact(m, now=second_one_am, zone=LA).day == 2
    assert no_contact(m, now=at(LA, 2026, 11, 1, 23, 59), zone=LA).day == 2
    assert no_contact(m, now=at(LA, 2026, 11, 2, 0, 0), zone=LA).day == 3


def test_pause_keeps_the_count_and_resume_goes_on_from_it() -> None:
    m = marks(
        LONDON,
        (START, (2026, 11, 1, 9)),  # 1–5 Nov: days 1–5
        (PAUSE, (2026, 11, 5, 10)),
        (RESUME, (2026, 11, 9, 20)),  # 9 Nov is day 6
    )
    paused = no_contact(m, now=at(LONDON, 2026, 11, 7, 12), zone=LONDON)
    assert (paused.state, paused.day) == (State.PAUSED, 5)
    assert paused.stretches == (DayStretch(date(2026, 11, 1), date(2026, 11, 5)),)
    running = no_contact(m, now=at(LONDON, 2026, 11, 10, 8), zone=LONDON)
    assert (running.state, running.day, running.began) == (State.RUNNING, 7, date(2026, 11, 1))
    assert running.stretches == (
        DayStretch(date(2026, 11, 1), date(2026, 11, 5)),
        DayStretch(date(2026, 11, 9), date(2026, 11, 10)),
    )


def test_pause_and_resume_on_the_same_day_count_it_once() -> None:
    m = marks(
        LONDON,
        (START, (2026, 11, 1, 9)),
        (PAUSE, (2026, 11, 3, 10)),
        (RESUME, (2026, 11, 3, 18)),
    )
    status = no_contact(m, now=at(LONDON, 2026, 11, 4, 8), zone=LONDON)
    assert status.day == 4
    assert status.stretches == (DayStretch(date(2026, 11, 1), date(2026, 11, 4)),)


def test_reset_starts_again_from_day_one_and_keeps_the_earlier_stretch() -> None:
    m = marks(
        LONDON,
        (START, (2026, 11, 1, 9)),
        (RESET, (2026, 11, 10, 21)),
    )
    status = no_contact(m, now=at(LONDON, 2026, 11, 12, 8), zone=LONDON)
    assert (status.state, status.day, status.began) == (State.RUNNING, 3, date(2026, 11, 10))
    # The reset day belongs to the new count; the earlier stretch gives it up.
    assert status.stretches == (
        DayStretch(date(2026, 11, 1), date(2026, 11, 9)),
        DayStretch(date(2026, 11, 10), date(2026, 11, 12)),
    )


def test_reset_while_paused_runs_again_and_reset_on_day_one_is_just_day_one() -> None:
    m = marks(
        LONDON,
        (START, (2026, 11, 1, 9)),
        (PAUSE, (2026, 11, 3, 9)),
        (RESET, (2026, 11, 6, 9)),
    )
    status = no_contact(m, now=at(LONDON, 2026, 11, 6, 10), zone=LONDON)
    assert (status.state, status.day) == (State.RUNNING, 1)
    assert status.stretches == (
        DayStretch(date(2026, 11, 1), date(2026, 11, 3)),
        DayStretch(date(2026, 11, 6), date(2026, 11, 6)),
    )
    same_day = marks(LONDON, (START, (2026, 11, 1, 9)), (RESET, (2026, 11, 1, 15)))
    status = no_contact(same_day, now=at(LONDON, 2026, 11, 1, 16), zone=LONDON)
    assert status.day == 1
    assert status.stretches == (DayStretch(date(2026, 11, 1), date(2026, 11, 1)),)


def test_stop_turns_it_off_and_a_new_start_begins_afresh() -> None:
    m = marks(
        LONDON,
        (START, (2026, 11, 1, 9)),
        (STOP, (2026, 11, 4, 9)),
    )
    off = no_contact(m, now=at(LONDON, 2026, 11, 6), zone=LONDON)
    assert (off.state, off.day, off.began) == (State.OFF, 0, None)
    assert off.stretches == (DayStretch(date(2026, 11, 1), date(2026, 11, 4)),)
    again = [*m, Mark(START, at(LONDON, 2026, 11, 8, 9))]
    status = no_contact(again, now=at(LONDON, 2026, 11, 9, 9), zone=LONDON)
    assert (status.state, status.day, status.began) == (State.RUNNING, 2, date(2026, 11, 8))


def test_marks_that_do_not_fit_the_state_change_nothing() -> None:
    m = marks(
        LONDON,
        (PAUSE, (2026, 11, 1, 8)),  # nothing running yet
        (RESUME, (2026, 11, 1, 8, 30)),
        (START, (2026, 11, 1, 9)),
        (START, (2026, 11, 3, 9)),  # a second tap
        (RESUME, (2026, 11, 3, 10)),  # not paused
        (PAUSE, (2026, 11, 4, 9)),
        (PAUSE, (2026, 11, 5, 9)),  # already paused
    )
    status = no_contact(m, now=at(LONDON, 2026, 11, 6), zone=LONDON)
    assert (status.state, status.day, status.began) == (State.PAUSED, 4, date(2026, 11, 1))


def test_order_given_does_not_matter_and_future_marks_are_ignored() -> None:
    m = marks(
        LONDON,
        (PAUSE, (2026, 11, 5, 10)),
        (START, (2026, 11, 1, 9)),
        (RESET, (2026, 12, 24, 9)),  # after "now"
    )
    status = no_contact(m, now=at(LONDON, 2026, 11, 7), zone=LONDON)
    assert (status.state, status.day) == (State.PAUSED, 5)


def test_allowed_marks_are_the_buttons_worth_showing() -> None:
    assert allowed(State.OFF) == {START}
    assert allowed(State.RUNNING) == {PAUSE, RESET, STOP}
    assert allowed(State.PAUSED) == {RESUME, RESET, STOP}


def test_naive_times_are_refused() -> None:
    with pytest.raises(ValueError, match="aware"):
        Mark(START, datetime(2026, 11, 1, 9))
    with pytest.raises(ValueError, match="aware"):
        no_contact([], now=datetime(2026, 11, 1, 9), zone=LONDON)
