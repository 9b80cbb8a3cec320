"""What the dispatch benchmarks share (bench_daily, bench_scale): the Bot API emulator in a
process of its own, so the bot's CPU time is the bot's alone; a Runtime's dispatcher
taken out of its tick; and cProfile summaries.

    python -m bench.harness emulator --users N [--first-user ID]

prints the emulator's URL, then, at EOF on stdin, what it saw (rates, per chat) and its
own CPU time, as one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import logging
import os
import pstats
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.config import Settings
from bot.emulator import BotApiEmulator, SentMessage
from bot.features.checkins.delivery import Dispatcher
from bot.features.checkins.handlers import JOB_NAME, DailyFeature
from bot.runtime import Runtime

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "123456:BENCH-token-abcdefghijklmnopqrstuvw"
FIRST_USER = 10_000_000  # bench_daily's people; bench_scale seeds from 50,000


def bench_settings(data_dir: Path, api_url: str, **overrides: Any) -> Settings:
    """A bench's bot: the bench token, a fresh master key, warnings and worse logged."""
    values: dict[str, Any] = {
        "token": TOKEN,
        "api_url": api_url,
        "data_dir": data_dir,
        "master_key": os.urandom(32),
        "log_level": logging.WARNING,
        "http_timeout": 10.0,
    }
    return Settings(**(values | overrides))


class GcTime:
    """Time the collector ran (the gc module's callbacks, every generation), on `clock`
    (the thread's CPU clock for a profile of one thread, wall time for a whole process):
    a cost of every update that no profile of functions shows."""

    def __init__(self, clock: Callable[[], float] = time.thread_time) -> None:
        self.seconds = 0.0
        self.collections = 0
        self.longest = 0.0  # one collection's pause: a crisis reply's tail waits it out
        self.longest_generation = -1
        self._clock = clock
        self._began = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._began = self._clock()
        else:
            pause = self._clock() - self._began
            self.seconds += pause
            self.collections += 1
            if pause > self.longest:
                self.longest, self.longest_generation = pause, info.get("generation", -1)


class Seen:
    """What the emulator saw: send times overall and per chat (monotonic seconds)."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.per_chat: dict[int, list[float]] = {}

    def __call__(self, message: SentMessage, event: str) -> None:
        if event != "sent":
            return
        now = time.monotonic()
        self.times.append(now)
        self.per_chat.setdefault(message.chat_id, []).append(now)

    def summary(self) -> dict[str, Any]:
        times = self.times
        if len(times) < 2:
            return {"messages": len(times)}
        span = times[-1] - times[0]
        # The limiter's bucket starts full: its first second may hold a burst. The rate
        # after that second is the one it holds for as long as there is work.
        later = [t for t in times if t >= times[0] + 1.0]
        later_span = later[-1] - later[0] if len(later) > 1 else 0.0
        return {
            "messages": len(times),
            "span_s": span,
            # n-1 intervals between n sends: the rate the limiter allowed.
            "rate_per_s": (len(times) - 1) / span if span else float("inf"),
            "rate_after_first_s": (len(later) - 1) / later_span if later_span else None,
            "in_first_s": len(times) - len(later),
            "max_in_any_1s": max_in_window(times, 1.0),
            "max_per_chat_in_any_1s": max(max_in_window(t, 1.0) for t in self.per_chat.values()),
            "most_in_one_chat": max(len(t) for t in self.per_chat.values()),
            "chats": len(self.per_chat),
        }


def thread_seconds(name: Callable[[threading.Thread], str]) -> dict[str, float]:
    """CPU seconds per thread of this process since it started, summed by `name(thread)`
    (from /proc: the benches run on Linux)."""
    ticks = os.sysconf("SC_CLK_TCK")
    seconds: dict[str, float] = {}
    for thread in threading.enumerate():
        try:
            stat = Path(f"/proc/self/task/{thread.native_id}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        key = name(thread)
        seconds[key] = seconds.get(key, 0.0) + (int(fields[11]) + int(fields[12])) / ticks
    return seconds


def max_in_window(times: list[float], width: float) -> int:
    window: deque[float] = deque()
    best = 0
    for t in times:
        window.append(t)
        while window[0] <= t - width:
            window.popleft()
        best = max(best, len(window))
    return best


async def serve_emulator(users: int, first_user: int) -> None:
    emu = BotApiEmulator(keep_per_chat=2, record_calls=False)
    for n in range(users):
        emu.add_user(first_user + n)
    seen = Seen()
    emu.add_listener(seen)
    await emu.start()
    print(emu.base_url, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await emu.stop()
    result = seen.summary()
    result["cpu_s"] = time.process_time()
    print(json.dumps(result), flush=True)


class EmulatorProcess:
    """The emulator in a child process, with `users` private chats from `first_user` on
    (it answers "chat not found" for any other)."""

    def __init__(self, users: int, first_user: int = FIRST_USER) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bench.harness",
                "emulator",
                "--users",
                str(users),
                "--first-user",
                str(first_user),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        if not self.url:
            raise RuntimeError("the emulator process did not start")

    def finish(self) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        line = self.proc.stdout.readline()
        self.proc.wait(timeout=60)
        result: dict[str, Any] = json.loads(line)
        return result


def dispatcher_of(runtime: Runtime) -> Dispatcher:
    """The started runtime's dispatcher, with its tick switched off: the benchmark's
    passes are the only ones."""
    assert runtime.services is not None
    runtime.jobs[JOB_NAME].enabled = False
    (daily,) = [f for f in runtime.features if isinstance(f, DailyFeature)]
    return daily.dispatcher


def write_profile(profiler: cProfile.Profile, path: Path) -> None:
    """The top 30 by own time, then by cumulative time; the raw stats beside it (.pstats),
    for `python -m pstats` to show callers."""
    profiler.dump_stats(path.with_suffix(".pstats"))
    text = io.StringIO()
    stats = pstats.Stats(profiler, stream=text).sort_stats("tottime")
    stats.print_stats(30)
    stats.sort_stats("cumulative").print_stats(30)
    path.write_text(text.getvalue(), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.harness")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("emulator")
    p.add_argument("--users", type=int, default=0)
    p.add_argument("--first-user", type=int, default=FIRST_USER)
    args = parser.parse_args()
    asyncio.run(serve_emulator(args.users, args.first_user))


if __name__ == "__main__":
    main()
