"""The progress picture for /progress: urge strength, mood and no-contact days over the
last weeks, drawn in memory as a PNG with matplotlib.

This module holds the data and the pure part (`plot_data`: which points, where) and
`ChartRenderer`, the way handlers draw: off the event loop, in one spawned worker process
(its docstring says why a process). The drawing itself is bot/features/progress/drawing.py,
imported only in the worker, so the bot's own process never loads matplotlib.

Discretion first: the image carries no title and no words but the neutral labels the
caller passes in (translated content, `progress.chart.*`), so someone glancing at the
phone sees an ordinary chart. Dates are day numbers and month abbreviations from content.

Deterministic: matplotlib's bundled DejaVu Sans, fixed size, dpi and margins, rcParams
reset to matplotlib's defaults in the drawing process, no "Software" stamp in the PNG:
the same data gives the same bytes.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from statistics import fmean
from time import sleep
from typing import Literal
from zoneinfo import ZoneInfo

from bot.content.texts import Tx
from bot.content.urge_model import UrgeEvent
from bot.core import local_format
from bot.features.progress.no_contact import DayStretch

__all__ = [
    "DEFAULT_WEEKS",
    "ChartData",
    "ChartLabels",
    "ChartRenderer",
    "MoodRating",
    "Plotted",
    "RenderedChart",
    "plot_data",
]

DEFAULT_WEEKS = 6
MOOD_MIN, MOOD_MAX = 1, 5


@dataclass(frozen=True)
class MoodRating:
    day: date  # the person's local day
    rating: int  # 1–5

    def __post_init__(self) -> None:
        if not MOOD_MIN <= self.rating <= MOOD_MAX:
            raise ValueError(f"mood is {MOOD_MIN}–{MOOD_MAX}")


@dataclass(frozen=True)
class ChartLabels:
    """Every word on the image: from content so it can be translated, the dates from CLDR
    in the person's locale ("1 Dec", "Dec 1", "1. Dez.")."""

    strength: str
    later: str
    average: str
    mood: str
    stretch: str
    locale: str = "en"  # a CLDR locale (Context.formats)

    @classmethod
    def from_texts(cls, tx: Tx, locale: str = "en") -> ChartLabels:
        return cls(
            strength=tx("progress.chart.strength"),
            later=tx("progress.chart.later"),
            average=tx("progress.chart.average"),
            mood=tx("progress.chart.mood"),
            stretch=tx("progress.chart.stretch"),
            locale=locale,
        )

    def day(self, d: date) -> str:
        return local_format.day_month(d, self.locale)


@dataclass(frozen=True)
class ChartData:
    now: datetime  # aware; the chart ends with the person's local today
    zone: ZoneInfo
    urges: tuple[UrgeEvent, ...] = ()
    moods: tuple[MoodRating, ...] = ()
    stretches: tuple[DayStretch, ...] = ()
    weeks: int = DEFAULT_WEEKS

    def __post_init__(self) -> None:
        if self.now.tzinfo is None:
            raise ValueError("now must be aware")
        if not 1 <= self.weeks <= 26:
            raise ValueError("weeks is 1–26")

    @property
    def first_day(self) -> date:
        return self.today - timedelta(days=self.weeks * 7 - 1)

    @property
    def today(self) -> date:
        return self.now.astimezone(self.zone).date()


@dataclass(frozen=True)
class Plotted:
    """What went onto the image, in chart coordinates (days since the first day's local
    midnight): tests count points here and in the Figure itself."""

    urges: tuple[tuple[float, int], ...]
    follow_ups: tuple[tuple[float, int, int], ...]  # x, strength then, at the check-back
    weekly_average: tuple[tuple[float, float], ...]
    moods: tuple[tuple[float, int], ...]
    stretches: tuple[tuple[float, float], ...]
    ticks: tuple[tuple[float, str], ...]


@dataclass(frozen=True)
class RenderedChart:
    png: bytes
    width: int
    height: int
    plotted: Plotted


def plot_data(data: ChartData, labels: ChartLabels) -> Plotted:
    """The pure part: which points fall in the window, and where."""
    first = data.first_day
    span = data.weeks * 7

    def x_of(at: datetime) -> float:
        local = at.astimezone(data.zone)
        # Whole local days plus the wall-clock fraction: a 23- or 25-hour day around a
        # clock change still spans exactly one unit, as its date label says.
        days = (local.date() - first).days
        seconds = local.hour * 3600 + local.minute * 60 + local.second
        return days + seconds / 86_400

    urges = sorted((u for u in data.urges if u.at <= data.now), key=lambda u: u.at)
    points = [(x, u) for x, u in ((x_of(u.at), u) for u in urges) if 0 <= x < span]
    weekly: list[tuple[float, float]] = []
    for week in range(data.weeks):
        values = [u.strength for x, u in points if week * 7 <= x < week * 7 + 7]
        if values:
            weekly.append((week * 7 + 3.5, round(fmean(values), 2)))
    moods = sorted(
        (
            (float((m.day - first).days) + 0.5, m.rating)
            for m in data.moods
            if first <= m.day <= data.today
        ),
    )
    stretches: list[tuple[float, float]] = []
    for s in data.stretches:
        x0 = max(0, (s.first - first).days)
        x1 = min(span, (min(s.last, data.today) - first).days + 1)
        if x1 > x0:
            stretches.append((float(x0), float(x1)))
    # A tick under today and every seventh day back, each labelled with its date.
    ticks = tuple(
        (span - 0.5 - 7 * k, labels.day(data.today - timedelta(days=7 * k)))
        for k in reversed(range(data.weeks))
    )
    return Plotted(
        urges=tuple((round(x, 4), u.strength) for x, u in points),
        follow_ups=tuple(
            (round(x, 4), u.strength, u.follow_up) for x, u in points if u.follow_up is not None
        ),
        weekly_average=tuple(weekly),
        moods=tuple(moods),
        stretches=tuple(stretches),
        ticks=ticks,
    )


def _render(data: ChartData, labels: ChartLabels) -> RenderedChart:
    # Imported here, in the worker, so the bot's own process never loads matplotlib.
    from bot.features.progress.drawing import render_png  # noqa: PLC0415

    return render_png(data, labels)


# How often a worker process looks whether the bot that started it still lives.
_ORPHAN_CHECK_SECONDS = 2.0


def _start_worker(cache_dir: str | None, parent: int | None = None) -> None:
    if parent is not None:
        # A bot killed outright (kill -9, a crash) cannot stop its worker; the worker sees
        # itself handed to another parent and leaves instead of lingering for good.
        threading.Thread(target=_leave_when_orphaned, args=(parent,), daemon=True).start()
    if cache_dir is not None:
        # matplotlib caches its font list under MPLCONFIGDIR, read at its import. Without a
        # writable one (the Docker image has no home) it rebuilds the list in a temporary
        # folder in every new worker, and says so in the log each time.
        os.makedirs(cache_dir, mode=0o700, exist_ok=True)
        os.environ.setdefault("MPLCONFIGDIR", cache_dir)
    _warm_up()


def _leave_when_orphaned(parent: int) -> None:
    while os.getppid() == parent:
        sleep(_ORPHAN_CHECK_SECONDS)
    os._exit(0)


def _warm_up() -> None:
    from bot.features.progress.drawing import warm_up  # noqa: PLC0415

    warm_up()


class ChartRenderer:
    """Renders off the event loop, one picture at a time.

    Default: one worker *process* (spawned, not forked: the bot's process has threads,
    and a fork would copy their locks mid-use). matplotlib's drawing is mostly Python
    code that holds the GIL; in a thread it would take turns with the event loop and
    make every crisis reply wait its turn for the length of a render, while a process
    leaves the loop alone (docs/performance.md has the measured lag of both). It also
    keeps matplotlib's memory out of the bot's process and survives a crash in the
    drawing: a dead worker is replaced and the render tried once more. One worker bounds
    the cost: a burst of /progress queues rather than taking both cores.

    `mode="thread"` (one worker thread) is for tests and small hosts that cannot spare a
    process; the Figure API with one thread is safe, pyplot is never used.
    """

    def __init__(
        self, mode: Literal["process", "thread"] = "process", *, cache_dir: Path | None = None
    ) -> None:
        """`cache_dir`: where the worker keeps matplotlib's font list (the data directory
        is a good home: it holds only the machine's font paths). Unset, matplotlib's own
        default is used. In thread mode it only applies if matplotlib is not loaded yet."""
        self.mode = mode
        self._cache_dir = None if cache_dir is None else str(cache_dir)
        self._executor: Executor | None = None
        self._lock = threading.Lock()

    def _pool(self) -> Executor:
        with self._lock:
            if self._executor is None:
                if self.mode == "process":
                    self._executor = ProcessPoolExecutor(
                        max_workers=1,
                        mp_context=multiprocessing.get_context("spawn"),
                        initializer=_start_worker,
                        initargs=(self._cache_dir, os.getpid()),
                    )
                else:
                    self._executor = ThreadPoolExecutor(
                        max_workers=1,
                        thread_name_prefix="chart",
                        initializer=_start_worker,
                        initargs=(self._cache_dir,),
                    )
            return self._executor

    async def warm_up(self) -> None:
        """Start the worker and load matplotlib there, at start-up rather than on the
        first person's /progress."""
        await asyncio.get_running_loop().run_in_executor(self._pool(), _warm_up)

    async def render(self, data: ChartData, labels: ChartLabels) -> RenderedChart:
        loop = asyncio.get_running_loop()
        pool = self._pool()
        try:
            return await loop.run_in_executor(pool, _render, data, labels)
        except BrokenProcessPool:
            # The worker died (killed, out of memory): a fresh one, and one more try.
            self._discard(pool)
            return await loop.run_in_executor(self._pool(), _render, data, labels)

    def _discard(self, pool: Executor | None = None) -> None:
        """Shut down the pool; given one, only if it is still current (two renders that
        both saw the same worker die replace it once)."""
        with self._lock:
            current = self._executor
            if current is None or (pool is not None and current is not pool):
                return
            self._executor = None
        current.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        self._discard()
