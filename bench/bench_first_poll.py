"""From process start to the first getUpdates, with an empty data dir, by hand:

    .venv/bin/python -m bench.bench_first_poll [--runs 5]

Starts `python -m bot` (exactly what production runs) against the Bot API emulator in
this process, on 127.0.0.1, and times the child from its spawn to its first getUpdates
(watched every 2 ms). A second figure is the child's own import time (`-X importtime`,
run apart so the timing above carries no tracing). Results in docs/performance.md.
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


async def one_run() -> float:
    emulator = BotApiEmulator()
    await emulator.start()
    data = Path(tempfile.mkdtemp(prefix="steady-first-poll-"))
    env = {
        **os.environ,
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "TELEGRAM_BOT_API_URL": emulator.base_url,
        "BOT_DATA_DIR": str(data / "data"),
        "BOT_MASTER_KEY": base64.b64encode(os.urandom(32)).decode(),
        "BOT_LOG_LEVEL": "WARNING",
    }
    started = time.perf_counter()
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", cwd=ROOT, env=env, stdout=subprocess.DEVNULL
    )
    try:
        while not any(method == "getUpdates" for method, _ in emulator.calls):
            if child.returncode is not None or time.perf_counter() - started > _PATIENCE:
                raise RuntimeError("the bot stopped, or never polled")
            await asyncio.sleep(_WATCH)
        return time.perf_counter() - started
    finally:
        child.terminate()
        await child.wait()
        await emulator.stop()


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
    args = parser.parse_args()
    times = [asyncio.run(one_run()) for _ in range(args.runs)]
    imports = [import_seconds() for _ in range(args.runs)]
    print(
        json.dumps(
            {
                "runs": args.runs,
                "first_poll_s_median": statistics.median(times),
                "first_poll_s_min": min(times),
                "first_poll_s_all": [round(t, 3) for t in times],
                "imports_s_median": statistics.median(imports),
            }
        )
    )


if __name__ == "__main__":
    main()
