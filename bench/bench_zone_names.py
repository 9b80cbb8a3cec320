"""What the time-zone name index costs: build time and memory at start-up, then lookups.

    .venv/bin/python -m bench.bench_zone_names

Each figure comes from a fresh interpreter, so the process's memory is the index's own:
the baseline imports the bot's modules first, then the index is built on top.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

_CHILD = """
import gc, json, resource, time
def rss():
    return int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0]) // 1024
import bot.app, bot.geo.lookup  # what a serving process has loaded anyway
gc.collect()
base = rss()
start = time.perf_counter()
from bot.services import zone_index, zone_names
zone_index.warm()
built = time.perf_counter() - start
gc.collect()
after = rss()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
names = [line.split("\\t")[0] for line in open("tests/data/timezone_names.tsv", encoding="utf-8")
         if line.strip() and not line.startswith("#")]
start = time.perf_counter()
rounds = 20
for _ in range(rounds):
    for name in names:
        bot.geo.lookup.find_timezone(name)
per = (time.perf_counter() - start) / (rounds * len(names))
print(json.dumps({"build_s": built, "rss_before_mb": base, "rss_after_mb": after,
                  "peak_mb": peak, "lookup_us": per * 1e6, "names": len(names)}))
"""


def main() -> int:
    runs = []
    for _ in range(3):
        out = subprocess.run(
            [sys.executable, "-c", _CHILD], capture_output=True, text=True, check=True
        ).stdout
        runs.append(json.loads(out))
    for key in runs[0]:
        values = sorted(run[key] for run in runs)
        print(f"{key}: median {values[1]:.2f} (min {values[0]:.2f}, max {values[-1]:.2f})")
    return 0


if __name__ == "__main__":
    started = time.perf_counter()
    code = main()
    print(f"({time.perf_counter() - started:.0f} s)")
    sys.exit(code)
