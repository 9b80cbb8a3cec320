"""No-contact days: a count the person can start, pause, resume and reset, in local days.

Pure: the count and the stretches for the progress chart are computed from the person's
dated marks (stored elsewhere), so nothing here goes stale or needs a scheduler. A day
counts when the count was running at any moment of it, in the person's time zone: a
pause at 10:00 keeps that day, a resume at 21:00 counts that day, and a pause and a
resume on the same day count it once. Counting local dates rather than 24-hour blocks
makes daylight-saving changes and midnight behave as a person expects.

Starting again is never a failure here: a reset only begins a new stretch; the earlier
stretches stay in the chart, as what they were, days that were kept.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo

__all__ = [
    "DayStretch",
    "Mark",
    "MarkKind",
    "NoContact",
    "State",
    "allowed",
    "no_contact",
]


class MarkKind(StrEnum):
    START = "start"
    PAUSE = "pause"
    RESUME = "resume"
    RESET = "reset"  # "Starting again is part of it": a new stretch from today
    STOP = "stop"  # the person no longer wants a count; a later START begins afresh


class State(StrEnum):
    OFF = "off"
    RUNNING = "running"
    PAUSED = "paused"


# What each state accepts; anything else is ignored (a double tap, a stale button).
_ALLOWED: dict[State, frozenset[MarkKind]] = {
    State.OFF: frozenset({MarkKind.START}),
    State.RUNNING: frozenset({MarkKind.PAUSE, MarkKind.RESET, MarkKind.STOP}),
    State.PAUSED: frozenset({MarkKind.RESUME, MarkKind.RESET, MarkKind.STOP}),
}


def allowed(state: State) -> frozenset[MarkKind]:
    """The marks that change something in `state`: the buttons worth showing."""
    return _ALLOWED[state]


@dataclass(frozen=True)
class Mark:
    kind: MarkKind
    at: datetime  # aware

    def __post_init__(self) -> None:
        if self.at.tzinfo is None:
            raise ValueError("a no-contact mark needs an aware datetime")


@dataclass(frozen=True)
class DayStretch:
    """Local days `first` to `last`, both included, on which the count was running."""

    first: date
    last: date

    @property
    def days(self) -> int:
        return (self.last - self.first).days + 1


@dataclass(frozen=True)
class NoContact:
    state: State
    day: int  # today's number in the current count ("day 1" is the day it began); 0 if off
    began: date | None  # local day the current count began (after the latest start/reset)
    # Every running stretch up to today, oldest first, for the chart; those before a reset
    # or stop stay, as the days they were.
    stretches: tuple[DayStretch, ...]


def no_contact(marks: Iterable[Mark], *, now: datetime, zone: ZoneInfo) -> NoContact:
    """The count and its stretches as of `now`, in local days of `zone`.

    Marks after `now` are ignored, marks that do not fit the state they arrive in (a second
    start, a pause while paused) change nothing, and marks at the same instant apply in
    the order given. The zone is the person's current one: after a move, past marks are
    read in the new zone, which can shift a stretch's edge by a day and no more.
    """
    if now.tzinfo is None:
        raise ValueError("now must be aware")
    today = now.astimezone(zone).date()
    # sorted() is stable: marks at the same instant keep the order given.
    ordered = sorted((m for m in marks if m.at <= now), key=lambda m: m.at)

    state = State.OFF
    began: date | None = None
    run_from: date | None = None  # first local day of the running interval, if running
    # Local days of the current count (since the latest start/reset), as closed intervals.
    current: list[DayStretch] = []
    history: list[DayStretch] = []

    def close(until: date) -> None:
        nonlocal run_from
        if run_from is not None:  # always, while running
            _add(current, DayStretch(run_from, until))
        run_from = None

    for mark in ordered:
        if mark.kind not in _ALLOWED[state]:
            continue
        day = mark.at.astimezone(zone).date()
        if mark.kind in (MarkKind.PAUSE, MarkKind.STOP, MarkKind.RESET) and state is State.RUNNING:
            close(day)
        if mark.kind in (MarkKind.RESET, MarkKind.STOP):
            history.extend(current)
            current = []
            began = None
        if mark.kind in (MarkKind.START, MarkKind.RESET):
            began = day
            run_from = day
            state = State.RUNNING
        elif mark.kind is MarkKind.RESUME:
            run_from = day
            state = State.RUNNING
        elif mark.kind is MarkKind.PAUSE:
            state = State.PAUSED
        elif mark.kind is MarkKind.STOP:
            state = State.OFF

    if state is State.RUNNING:
        close(today)
    count = sum(s.days for s in current) if state is not State.OFF else 0
    return NoContact(
        state=state,
        day=count,
        began=began if state is not State.OFF else None,
        stretches=_chart_stretches(history, current),
    )


def _add(intervals: list[DayStretch], new: DayStretch) -> None:
    """Append, joining the previous interval when they share a day (a pause and a resume
    on the same day count it once)."""
    if intervals and new.first <= intervals[-1].last:
        last = intervals.pop()
        new = DayStretch(last.first, max(last.last, new.last))
    intervals.append(new)


def _chart_stretches(
    history: list[DayStretch], current: list[DayStretch]
) -> tuple[DayStretch, ...]:
    """Every stretch, oldest first. A reset keeps its day for the new count, so an earlier
    stretch that ended on that day gives it up rather than overlap the new one."""
    out: list[DayStretch] = []
    for stretch in [*history, *current]:
        while out and out[-1].last >= stretch.first:
            last = out.pop()
            if last.first < stretch.first:
                out.append(DayStretch(last.first, stretch.first - timedelta(days=1)))
                break
        out.append(stretch)
    return tuple(out)
