"""Drawing the progress picture with matplotlib: the Figure API and the Agg canvas only,
never pyplot (its global figure registry is not thread-safe).

Imported only where the drawing happens (the chart worker, tests, the benchmark): see
bot/features/progress/chart.py for the data and for `ChartRenderer`, the way to call it.
"""

from __future__ import annotations

import functools
import io
from datetime import datetime
from zoneinfo import ZoneInfo

import matplotlib as mpl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from bot.content.urge_model import MAX_STRENGTH
from bot.features.progress.chart import (
    MOOD_MAX,
    MOOD_MIN,
    ChartData,
    ChartLabels,
    Plotted,
    RenderedChart,
    plot_data,
)

__all__ = ["DPI", "FIGSIZE", "build_figure", "render_png", "warm_up"]

# 1080 × 810 px: the width of a phone screen at full resolution, so Telegram shows it
# without scaling it up, and text 13 pt at 180 dpi stays readable once shown at about
# 390 points wide.
FIGSIZE = (6.0, 4.5)
DPI = 180
_FONT_SIZE = 13
_SMALL = 11
# Okabe–Ito colours, told apart with every common colour-vision difference; every series
# also differs in marker or line style, so colour is never the only cue.
_BLUE, _DARK, _ORANGE, _GREEN, _GREY = "#0072B2", "#003F63", "#D55E00", "#009E73", "#6B6B6B"


@functools.cache
def _style() -> None:
    # Ignore any matplotlibrc on the machine: the picture must not change with it. Set
    # once per process, before the first figure, and never again.
    mpl.rcParams.update(mpl.rcParamsDefault)
    mpl.rcParams.update({"font.family": "DejaVu Sans", "font.size": _FONT_SIZE})


def warm_up() -> None:
    """Load matplotlib's font list (built and cached on a machine's first run), the font
    and the style in this process, and draw once: the first real render then costs what
    every later one does."""
    render_png(
        ChartData(now=datetime(2026, 1, 1, 12, tzinfo=ZoneInfo("UTC")), zone=ZoneInfo("UTC")),
        ChartLabels("a", "b", "c", "d", "e"),
    )


def build_figure(data: ChartData, labels: ChartLabels) -> tuple[Figure, Plotted]:
    """The figure, not yet drawn, and what is on it."""
    _style()
    plotted = plot_data(data, labels)
    span = data.weeks * 7
    font = FontProperties(family="DejaVu Sans", size=_FONT_SIZE)
    small = FontProperties(family="DejaVu Sans", size=_SMALL)

    fig = Figure(figsize=FIGSIZE, dpi=DPI, facecolor="white")
    # Fixed margins rather than tight_layout: the same box whatever the labels' lengths
    # (a long translation widens the legend below, it does not squeeze the plot).
    fig.subplots_adjust(left=0.12, right=0.88, top=0.96, bottom=0.25)
    ax = fig.add_subplot()
    ax.set_xlim(0, span)
    ax.set_ylim(-0.5, MAX_STRENGTH + 0.5)
    ax.set_yticks(
        range(0, MAX_STRENGTH + 1, 2), [str(v) for v in range(0, 11, 2)], fontproperties=small
    )
    ax.set_xticks(
        [x for x, _ in plotted.ticks], [t for _, t in plotted.ticks], fontproperties=small
    )
    ax.set_ylabel(labels.strength, fontproperties=font, color=_BLUE)
    ax.grid(axis="y", color="#E3E3E3", linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top",):
        ax.spines[side].set_visible(False)

    handles: list[Line2D | Patch] = []
    for x0, x1 in plotted.stretches:
        ax.axvspan(x0, x1, color=_GREEN, alpha=0.16, linewidth=0, gid="stretch")
    if plotted.stretches:
        handles.append(Patch(color=_GREEN, alpha=0.3, label=labels.stretch))

    if plotted.urges:
        xs = [x for x, _ in plotted.urges]
        ys = [y for _, y in plotted.urges]
        ax.scatter(xs, ys, s=46, color=_BLUE, zorder=3, linewidths=0, gid="urges")
    if plotted.follow_ups:
        fx = [x for x, _, _ in plotted.follow_ups]
        before = [b for _, b, _ in plotted.follow_ups]
        fy = [f for _, _, f in plotted.follow_ups]
        # The drop from the moment to the check-back: the wave coming down.
        ax.vlines(fx, fy, before, color=_BLUE, alpha=0.45, linewidth=1.4, zorder=2, gid="drops")
        ax.scatter(
            fx,
            fy,
            s=34,
            facecolors="white",
            edgecolors=_BLUE,
            linewidths=1.4,
            zorder=4,
            gid="follow_ups",
        )
        handles.append(
            Line2D(
                [],
                [],
                linestyle="none",
                marker="o",
                markerfacecolor="white",
                markeredgecolor=_BLUE,
                markersize=7,
                label=labels.later,
            )
        )
    if plotted.weekly_average:
        ax.plot(
            [x for x, _ in plotted.weekly_average],
            [y for _, y in plotted.weekly_average],
            gid="average",
            color=_DARK,
            linewidth=2.6,
            marker="D",
            markersize=5,
            zorder=5,
        )
        handles.append(Line2D([], [], color=_DARK, linewidth=2.6, marker="D", label=labels.average))

    if plotted.moods:
        mood_ax = ax.twinx()
        mood_ax.set_ylim(MOOD_MIN - 0.6, MOOD_MAX + 0.6)
        mood_ax.set_yticks(
            range(MOOD_MIN, MOOD_MAX + 1), [str(v) for v in range(1, 6)], fontproperties=small
        )
        mood_ax.set_ylabel(labels.mood, fontproperties=font, color=_ORANGE)
        mood_ax.spines["top"].set_visible(False)
        mood_ax.plot(
            [x for x, _ in plotted.moods],
            [y for _, y in plotted.moods],
            gid="moods",
            color=_ORANGE,
            linestyle="--",
            linewidth=1.6,
            marker="s",
            markersize=4.5,
            zorder=3,
        )
        handles.append(Line2D([], [], color=_ORANGE, linestyle="--", marker="s", label=labels.mood))
    else:
        ax.spines["right"].set_visible(False)

    if handles:
        fig.legend(
            handles=handles,
            loc="lower center",
            ncols=2,
            frameon=False,
            prop=small,
            bbox_to_anchor=(0.5, 0.0),
            labelcolor=_GREY,
            handlelength=1.8,
        )
    return fig, plotted


def render_png(data: ChartData, labels: ChartLabels) -> RenderedChart:
    """Draw and encode, in the calling thread (CPU-bound: call through ChartRenderer)."""
    fig, plotted = build_figure(data, labels)
    canvas = FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    # No "Software" stamp: the bytes depend on the data, not the library's version string.
    fig.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    width, height = (int(v) for v in canvas.get_width_height())
    fig.clear()
    return RenderedChart(buffer.getvalue(), width, height, plotted)
