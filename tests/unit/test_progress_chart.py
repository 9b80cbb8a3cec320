"""The progress picture: a valid PNG, the right points, no telling words, same bytes for the
same data, and drawn off the event loop."""

from __future__ import annotations

import asyncio
import io
import os
import signal
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Text
from PIL import Image

from bot.content.urge_model import UrgeEvent
from bot.features.progress.chart import ChartData, ChartLabels, ChartRenderer, MoodRating, plot_data
from bot.features.progress.drawing import build_figure, render_png, warm_up
from bot.features.progress.no_contact import DayStretch
from tests.conftest import shared_content

LONDON = ZoneInfo("Europe/London")
NOW = datetime(2026, 12, 1, 20, 0, tzinfo=LONDON)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    # matplotlib's font list and first figure, once per module, not in the first test.
    warm_up()


@pytest.fixture(scope="module")
def labels() -> ChartLabels:
    return ChartLabels.from_texts(shared_content().texts, "en_GB")


def sample() -> ChartData:
    urges = [
        UrgeEvent(NOW - timedelta(days=d, hours=3), strength=max(0, 9 - d // 5), follow_up=f)
        for d, f in [(1, 2), (3, None), (6, 5), (10, None), (15, 8), (22, 9), (30, None), (40, 7)]
    ]
    outside = [
        UrgeEvent(NOW - timedelta(days=60), 10, 10),  # before the window
        UrgeEvent(NOW + timedelta(minutes=5), 10),  # after now
    ]
    moods = [MoodRating(NOW.date() - timedelta(days=d), 1 + d % 5) for d in range(0, 50, 4)]
    stretches = (
        DayStretch(date(2026, 10, 1), date(2026, 10, 30)),  # starts before the window
        DayStretch(date(2026, 11, 10), date(2026, 12, 1)),
    )
    return ChartData(
        now=NOW,
        zone=LONDON,
        urges=(*urges, *outside),
        moods=tuple(moods),
        stretches=stretches,
    )


def by_gid(fig: Figure, gid: str) -> list[object]:
    return [a for a in fig.findobj() if a.get_gid() == gid]


def test_png_is_valid_and_phone_sized(labels: ChartLabels) -> None:
    chart = render_png(sample(), labels)
    assert chart.png.startswith(PNG_MAGIC)
    image = Image.open(io.BytesIO(chart.png))
    image.verify()
    image = Image.open(io.BytesIO(chart.png))
    assert image.format == "PNG"
    assert image.size == (chart.width, chart.height) == (1080, 810)
    assert "Software" not in image.info


def test_the_points_in_the_window_are_plotted(labels: ChartLabels) -> None:
    data = sample()
    plotted = plot_data(data, labels)
    assert len(plotted.urges) == 8  # not the one 60 days ago, not the one after now
    assert len(plotted.follow_ups) == 5  # follow-ups of plotted urges only
    assert len(plotted.moods) == 11  # days 0, 4, ..., 40 of a 42-day window
    assert len(plotted.weekly_average) == 6
    assert plotted.stretches == ((0.0, 10.0), (20.0, 42.0))  # 22 Oct is x = 0

    fig, same = build_figure(data, labels)
    assert same == plotted
    urges = by_gid(fig, "urges")
    follow_ups = by_gid(fig, "follow_ups")
    assert isinstance(urges[0], PathCollection) and isinstance(follow_ups[0], PathCollection)
    assert len(urges[0].get_offsets()) == 8
    assert len(follow_ups[0].get_offsets()) == 5
    drops = by_gid(fig, "drops")
    assert isinstance(drops[0], LineCollection) and len(drops[0].get_segments()) == 5
    moods = by_gid(fig, "moods")
    assert isinstance(moods[0], Line2D) and len(moods[0].get_xdata()) == 11
    assert len(by_gid(fig, "stretch")) == 2


def test_follow_up_drops_run_from_the_moment_to_the_check_back(labels: ChartLabels) -> None:
    at = NOW - timedelta(days=2)
    data = ChartData(now=NOW, zone=LONDON, urges=(UrgeEvent(at, 8, 3), UrgeEvent(at, 6, 6)))
    plotted = plot_data(data, labels)
    assert [(s, f) for _, s, f in plotted.follow_ups] == [(8, 3), (6, 6)]


def test_days_are_local_across_a_clock_change(labels: ChartLabels) -> None:
    # Noon on the 23-hour day London springs forward sits in the middle of its day.
    now = datetime(2026, 4, 5, 12, tzinfo=LONDON)
    noon = datetime(2026, 3, 29, 12, tzinfo=LONDON)
    plotted = plot_data(ChartData(now=now, zone=LONDON, urges=(UrgeEvent(noon, 5),)), labels)
    first = now.date() - timedelta(days=41)
    assert plotted.urges == (((date(2026, 3, 29) - first).days + 0.5, 5),)


def test_ticks_end_under_today_with_its_date(labels: ChartLabels) -> None:
    plotted = plot_data(sample(), labels)
    assert plotted.ticks[-1] == (41.5, "1 Dec")
    assert [t for _, t in plotted.ticks] == [
        "27 Oct",
        "3 Nov",
        "10 Nov",
        "17 Nov",
        "24 Nov",
        "1 Dec",
    ]


def test_the_image_holds_no_words_but_the_labels_given(labels: ChartLabels) -> None:
    fig, plotted = build_figure(sample(), labels)
    words = {t.get_text() for t in fig.findobj(Text) if t.get_text().strip()}
    allowed = {labels.strength, labels.later, labels.average, labels.mood, labels.stretch}
    allowed |= {t for _, t in plotted.ticks} | {str(v) for v in range(11)}
    assert words <= allowed, words - allowed
    assert not any(ax.get_title() for ax in fig.axes)


def test_same_data_same_bytes(labels: ChartLabels) -> None:
    assert render_png(sample(), labels).png == render_png(sample(), labels).png


def test_an_empty_chart_still_draws(labels: ChartLabels) -> None:
    chart = render_png(ChartData(now=NOW, zone=LONDON), labels)
    assert chart.png.startswith(PNG_MAGIC)
    assert chart.plotted.urges == () and chart.plotted.weekly_average == ()


def test_dates_under_the_chart_are_cldrs_in_the_persons_locale() -> None:
    day = date(2026, 12, 1)
    assert ChartLabels("a", "b", "c", "d", "e", "en_GB").day(day) == "1 Dec"
    assert ChartLabels("a", "b", "c", "d", "e", "en").day(day) == "Dec 1"
    assert ChartLabels("a", "b", "c", "d", "e", "de").day(day) == "1. Dez."
    assert ChartLabels("a", "b", "c", "d", "e", "es").day(day) == "1 dic"


@pytest.fixture
def thread_renderer() -> Iterator[ChartRenderer]:
    renderer = ChartRenderer(mode="thread")
    yield renderer
    renderer.close()


async def test_thread_renderer_gives_the_same_picture(
    thread_renderer: ChartRenderer, labels: ChartLabels
) -> None:
    chart = await thread_renderer.render(sample(), labels)
    assert chart.png == render_png(sample(), labels).png


async def test_process_renderer_keeps_the_loop_serving_and_survives_a_dead_worker(
    labels: ChartLabels, tmp_path: Path
) -> None:
    cache = tmp_path / "mpl"
    renderer = ChartRenderer(cache_dir=cache)
    try:
        await renderer.warm_up()
        assert list(cache.glob("fontlist-*.json"))  # the worker keeps its font list there
        turns = 0
        done = asyncio.Event()

        async def tick() -> None:
            nonlocal turns
            while not done.is_set():
                turns += 1
                await asyncio.sleep(0)

        ticker = asyncio.create_task(tick())
        chart = await renderer.render(sample(), labels)
        done.set()
        await ticker
        assert chart.png == render_png(sample(), labels).png
        assert turns > 10  # the loop went on running other work during the render

        # A worker killed (out of memory, say) is replaced; the render is tried again.
        pool = renderer._executor
        assert pool is not None
        for pid in list(pool._processes):  # type: ignore[attr-defined]
            os.kill(pid, signal.SIGKILL)
        again = await renderer.render(sample(), labels)
        assert again.png == chart.png
    finally:
        renderer.close()
