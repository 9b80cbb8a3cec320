"""Progress-chart benchmarks, by hand: `python -m bench.bench_chart all` (docs/performance.md).

Each measurement runs in its own process so its RSS is its own:

    cost [--images N]            render in this process: first (cold) render, then CPU and
                                 wall per image, peak RSS added by matplotlib and drawing
    loop --mode M [--images N]   an event loop with a 1 ms ticker while N charts render
                                 through ChartRenderer (M = process or thread), or on the
                                 loop itself (M = inline, what not to do): loop lag
    all                          everything above, with a summary table

The data is a busy six weeks: 126 urges (three a day), 90 with a follow-up, a mood rating
every day and two no-contact stretches.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from datetime import date, datetime, timedelta
from pathlib import Path
from random import Random
from statistics import fmean, quantiles
from typing import Any
from zoneinfo import ZoneInfo

from bot.content.loader import load_content
from bot.content.urge_model import UrgeEvent
from bot.features.progress.chart import ChartData, ChartLabels, ChartRenderer, MoodRating
from bot.features.progress.no_contact import DayStretch

ROOT = Path(__file__).resolve().parent.parent
ZONE = ZoneInfo("Europe/London")
NOW = datetime(2026, 12, 1, 20, 0, tzinfo=ZONE)
TICK = 0.001


def status_mb(field: str, pid: int | str = "self") -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise LookupError(field)


def sample() -> tuple[ChartData, ChartLabels]:
    rng = Random(15)
    urges: list[UrgeEvent] = []
    for day in range(42):
        for _ in range(3):
            at = NOW - timedelta(days=day, hours=rng.uniform(0, 20))
            strength = max(0, min(10, round(3 + day / 7 + rng.gauss(0, 1.5))))
            follow = max(0, strength - rng.randint(0, 5)) if len(urges) % 7 < 5 else None
            urges.append(UrgeEvent(at, strength, follow))
    moods = tuple(MoodRating(NOW.date() - timedelta(days=d), 1 + d % 5) for d in range(42))
    stretches = (
        DayStretch(date(2026, 10, 20), date(2026, 11, 5)),
        DayStretch(date(2026, 11, 9), date(2026, 12, 1)),
    )
    data = ChartData(now=NOW, zone=ZONE, urges=tuple(urges), moods=moods, stretches=stretches)
    return data, ChartLabels.from_texts(load_content().texts)


def cost(images: int) -> dict[str, Any]:
    data, labels = sample()
    rss_before = status_mb("VmHWM")
    cpu0, wall0 = time.process_time(), time.perf_counter()
    from bot.features.progress.drawing import render_png  # noqa: PLC0415 (measured: the import)

    first = render_png(data, labels)
    cold = (time.process_time() - cpu0, time.perf_counter() - wall0)
    cpu, wall = [], []
    for _ in range(images):
        c, w = time.process_time(), time.perf_counter()
        chart = render_png(data, labels)
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    assert chart.png == first.png and len(chart.plotted.urges) == 126
    return {
        "images": images,
        "png_kb": round(len(first.png) / 1024, 1),
        "size": f"{first.width}x{first.height}",
        "cold_cpu_ms": round(cold[0] * 1000),
        "cold_wall_ms": round(cold[1] * 1000),
        "cpu_ms_mean": round(fmean(cpu) * 1000, 1),
        "wall_ms_mean": round(fmean(wall) * 1000, 1),
        "wall_ms_p95": round(quantiles(wall, n=20, method="inclusive")[-1] * 1000, 1),
        "rss_before_mb": round(rss_before, 1),
        "rss_added_mb": round(status_mb("VmHWM") - rss_before, 1),
    }


async def _loop(mode: str, images: int) -> dict[str, Any]:
    data, labels = sample()
    renderer = ChartRenderer(mode="thread" if mode == "inline" else mode)  # type: ignore[arg-type]
    await renderer.warm_up()
    lags: list[float] = []
    recording = False
    stop = asyncio.Event()

    async def ticker() -> None:
        while not stop.is_set():
            before = time.perf_counter()
            await asyncio.sleep(TICK)
            if recording:
                lags.append(time.perf_counter() - before - TICK)

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0.05)
    recording = True
    await asyncio.sleep(1.0)
    idle = list(lags)
    lags.clear()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    if mode == "inline":
        from bot.features.progress.drawing import render_png  # noqa: PLC0415

        for _ in range(images):
            render_png(data, labels)
            await asyncio.sleep(0)
    else:
        for _ in range(images):
            chart = await renderer.render(data, labels)
            assert len(chart.plotted.urges) == 126
    wall = time.perf_counter() - wall0
    cpu = time.process_time() - cpu0
    stop.set()
    await task
    worker_mb = None
    pool = renderer._executor
    if mode == "process" and pool is not None:
        pid = next(iter(pool._processes))  # type: ignore[attr-defined]
        worker_mb = round(status_mb("VmHWM", pid), 1)
    renderer.close()
    busy = lags
    return {
        "mode": mode,
        "images": images,
        "wall_ms_per_image": round(wall / images * 1000, 1),
        "loop_process_cpu_ms_per_image": round(cpu / images * 1000, 1),
        "idle_lag_max_ms": round(max(idle) * 1000, 2),
        "lag_p50_ms": round(quantiles(busy, n=100, method="inclusive")[49] * 1000, 2),
        "lag_p99_ms": round(quantiles(busy, n=100, method="inclusive")[98] * 1000, 2),
        "lag_max_ms": round(max(busy) * 1000, 2),
        "ticks": len(busy),
        "bot_rss_mb": round(status_mb("VmHWM"), 1),
        "worker_rss_mb": worker_mb,
    }


def run_child(*args: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "bench.bench_chart", *args],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    p_cost = sub.add_parser("cost")
    p_cost.add_argument("--images", type=int, default=50)
    p_loop = sub.add_parser("loop")
    p_loop.add_argument("--mode", choices=("process", "thread", "inline"), required=True)
    p_loop.add_argument("--images", type=int, default=20)
    sub.add_parser("all")
    args = parser.parse_args()
    if args.command == "cost":
        print(json.dumps(cost(args.images)))
    elif args.command == "loop":
        print(json.dumps(asyncio.run(_loop(args.mode, args.images))))
    else:
        print(f"load average before: {os.getloadavg()}")
        print(json.dumps(run_child("cost")))
        for mode in ("process", "thread", "inline"):
            print(json.dumps(run_child("loop", "--mode", mode)))
        print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
