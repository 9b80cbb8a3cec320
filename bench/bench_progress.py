"""/progress end to end, by hand: `python -m bench.bench_progress [--requests N]`
(docs/performance.md).

The real bot (Runtime, chart worker process as in production) against the emulator in
this process. One person with a busy six weeks (three hard moments a day, most with a
check-back, a mood every day, a no-contact count); N times, one after another, "/progress"
is queued at the emulated Bot API and the clock runs until the chart arrives there. So the
figure holds long polling, reading and opening 126+ sealed rows, the render in the worker,
and the photo's upload: what a person waits, minus the network.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from random import Random

from bench.harness import bench_settings
from bot.core.clock import ManualClock
from bot.emulator import BotApiEmulator
from bot.features.progress.no_contact import MarkKind
from bot.runtime import Runtime

USER = 4242
NOW = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)


async def bench(requests: int) -> None:
    clock = ManualClock(NOW - timedelta(days=42))
    emu = BotApiEmulator(clock=lambda: clock().timestamp())
    await emu.start()
    with tempfile.TemporaryDirectory() as tmp:
        settings = bench_settings(Path(tmp), emu.base_url)
        runtime = Runtime(settings, clock=clock, throttle=False)
        started = time.perf_counter()
        await runtime.start()
        start_up = time.perf_counter() - started
        services = runtime.services
        assert services is not None
        person = await services.people.create(USER, USER, "")
        person.profile.country = "GB"
        person.profile.timezone = "Europe/London"
        person.profile.onboarded = True
        await services.people.save(person)
        rng = Random(15)
        assert runtime.app is not None
        urges = runtime.app.bot_data.offers.urges
        await urges.mark(person, MarkKind.START)
        for day in range(42):
            base = NOW - timedelta(days=42 - day)
            for hour in (9, 14, 21):
                clock.set(base.replace(hour=hour))
                urge = await urges.start(person, rng.randint(2, 10))
                if rng.random() < 0.7:
                    await urges.answer_follow_up(person, urge.urge_id, rng.randint(0, 8))
            await urges.rate_day(person, base.date().isoformat(), rng.randint(1, 5))
        clock.set(NOW)
        latencies: list[float] = []
        for _ in range(requests):
            seen = len(emu.messages_to(USER))
            sent = time.perf_counter()
            emu.user_sends(USER, "/progress")
            await emu.wait_for_message(
                USER, predicate=lambda m: m.photo is not None, after=seen, timeout=60
            )
            latencies.append(time.perf_counter() - sent)
        await runtime.stop()
    await emu.stop()
    latencies.sort()
    p50 = statistics.median(latencies) * 1000
    p95 = latencies[max(0, int(len(latencies) * 0.95) - 1)] * 1000
    print(f"start-up until polling (the chart worker warms up beside it): {start_up:.2f} s")
    print(
        f"/progress, queued to photo received: n={len(latencies)} p50={p50:.0f} ms"
        f" p95={p95:.0f} ms max={latencies[-1] * 1000:.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=20)
    args = parser.parse_args()
    asyncio.run(bench(args.requests))


if __name__ == "__main__":
    main()
