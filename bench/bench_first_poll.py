"""From process start to the first getUpdates, with an empty data dir, by hand:

    .venv/bin/python -m bench.bench_first_poll [--runs 5] [--cache cold|warm|none]

Starts `python -m bot` (exactly what production runs) against the Bot API emulator in
this process, on 127.0.0.1, and times the child from its spawn to its first getUpdates
(watched every 2 ms), with the child's own CPU time at that moment (user + system, from
/proc: steadier than wall time on a shared machine). A second figure is the child's own
import time (`-X importtime`, run apart so the timing above carries no tracing). A third
is when the crisis model is ready (its worker loads it once the bot polls: until then a
message waits for it within its budget): from spawn to the log line saying it loaded.

The data dir is new and empty for every run. `--cache` says where the content's compiled
form (bot/content/compiled.py) is: `warm`, in a BOT_CACHE_DIR that one untimed run filled
first (as an image built with `python -m bot content compile` has it); `cold`, in a new
empty BOT_CACHE_DIR each run (content validated and compiled, then written); `none`, no
BOT_CACHE_DIR (the cache goes in the new data dir: cold). `--profile FILE`: one more run
under cProfile (the loop's thread), stopped at its first getUpdates, written to FILE for
`python -m pstats` (its stop is in it too, a few hundredths of a second). Results in
docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.harness import ROOT, TOKEN
from bot.emulator import BotApiEmulator

_WATCH = 0.002  # seconds between looks at the emulator's calls
_PATIENCE = 60.0
_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """utime + stime of a live process (Linux /proc), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


async def one_run(
    cache_dir: Path | None, profile: Path | None = None
) -> tuple[float, float, float | None]:
    """(wall seconds, child CPU seconds) to the first getUpdates, and wall seconds to the
    crisis model's being ready (None: it did not say so within the patience)."""
    emulator = BotApiEmulator()
    await emulator.start()
    data = Path(tempfile.mkdtemp(prefix="steady-first-poll-"))
    env = {
        **os.environ,
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "TELEGRAM_BOT_API_URL": emulator.base_url,
        "BOT_DATA_DIR": str(data / "data"),
        "BOT_MASTER_KEY": base64.b64encode(os.urandom(32)).decode(),
        "BOT_LOG_LEVEL": "INFO",  # for the model's line; a handful of lines before the poll
    }
    env.pop("BOT_CACHE_DIR", None)
    if cache_dir is not None:
        env["BOT_CACHE_DIR"] = str(cache_dir)
    started = time.perf_counter()
    profiling = ("-m", "cProfile", "-o", str(profile)) if profile else ()
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        *profiling,
        "-m",
        "bot",
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    ready = asyncio.create_task(_model_ready(child, started))
    try:
        while not any(method == "getUpdates" for method, _ in emulator.calls):
            if child.returncode is not None or time.perf_counter() - started > _PATIENCE:
                raise RuntimeError("the bot stopped, or never polled")
            await asyncio.sleep(_WATCH)
        wall = time.perf_counter() - started
        cpu = cpu_seconds(child.pid)
        if profile is not None:
            return wall, cpu, None
        try:
            model = await asyncio.wait_for(ready, _PATIENCE)
        except TimeoutError:
            model = None
        return wall, cpu, model
    finally:
        ready.cancel()
        child.terminate()
        await child.wait()
        await emulator.stop()


async def _model_ready(child: asyncio.subprocess.Process, started: float) -> float | None:
    assert child.stderr is not None
    async for line in child.stderr:
        if b"crisis model loaded" in line or b"crisis model not loaded" in line:
            return time.perf_counter() - started
    return None


def import_seconds() -> float:
    """`import bot.runtime` and `bot.__main__`'s own imports, as -X importtime counts."""
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import bot.__main__, bot.runtime"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    total = 0
    for line in out.stderr.splitlines():
        parts = line.split("|")
        # Top-level modules only (no indent before the name): their cumulative times add up.
        if len(parts) == 3 and parts[1].strip().isdigit() and not parts[2].startswith("  "):
            total += int(parts[1])
    return total / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_first_poll")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cache", choices=("warm", "cold", "none"), default="warm")
    parser.add_argument("--profile", type=Path, default=None)
    args = parser.parse_args()
    shared = Path(tempfile.mkdtemp(prefix="steady-first-poll-cache-"))
    if args.cache == "warm":
        asyncio.run(one_run(shared))  # fills the cache; not timed

    def cache_dir() -> Path | None:
        if args.cache == "warm":
            return shared
        if args.cache == "cold":
            return Path(tempfile.mkdtemp(prefix="steady-first-poll-cache-"))
        return None

    runs = [asyncio.run(one_run(cache_dir())) for _ in range(args.runs)]
    times = [wall for wall, _, _ in runs]
    cpu = [spent for _, spent, _ in runs]
    model = [ready for _, _, ready in runs if ready is not None]
    imports = [import_seconds() for _ in range(args.runs)]
    if args.profile is not None:
        asyncio.run(one_run(cache_dir(), args.profile.resolve()))
    print(
        json.dumps(
            {
                "runs": args.runs,
                "cache": args.cache,
                "first_poll_s_median": round(statistics.median(times), 3),
                "first_poll_s_min": round(min(times), 3),
                "first_poll_s_all": [round(t, 3) for t in times],
                "first_poll_cpu_s_median": round(statistics.median(cpu), 3),
                "first_poll_cpu_s_all": [round(c, 3) for c in cpu],
                "imports_s_median": round(statistics.median(imports), 3),
                "model_ready_s_median": round(statistics.median(model), 3) if model else None,
            }
        )
    )


if __name__ == "__main__":
    main()
