"""The people side of one ordinary update, alone (run by hand; docs/performance.md).

    .venv/bin/python -m bench.bench_people [--people 1000] [--updates 6000]

What `bench_crisis latency` measures is the whole update, where a change of a tenth of a
millisecond is within the run-to-run spread; this is the part of it PeopleService does, in
the same order and without the network: the sender's handle asked for as often as one
update asks (the panic screen, the discretion guard, the country, the language), the profile
loaded (every registered record), a text held in it, and the profile saved (the row, then
the key store's anchor). It prints the CPU per update of the loop's thread and of the
database threads (the people store's and the key store's), on the real stores in a
temporary directory (the bot started against an idle emulator, which only holds its poll).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import threading
import time
from pathlib import Path

from bench.harness import bench_settings, thread_seconds
from bot.core.clock import system_clock
from bot.emulator import BotApiEmulator
from bot.features.crisis.held import Held, hold
from bot.runtime import Runtime

ASKED_PER_UPDATE = 5  # `person_id` calls on an ordinary update's path, beside its load
TEXT = "I went for a walk today and the air felt good"


def _thread_seconds() -> dict[str, float]:
    return thread_seconds(lambda t: "loop" if t is threading.main_thread() else "database")


async def bench(people_count: int, updates: int) -> None:
    emu = BotApiEmulator(record_calls=False)
    await emu.start()
    with tempfile.TemporaryDirectory() as tmp:
        settings = bench_settings(Path(tmp), emu.base_url, crisis_model=False)
        runtime = Runtime(settings, clock=system_clock, throttle=False)
        await runtime.start()
        assert runtime.services is not None
        people = runtime.services.people
        users = list(range(10_000, 10_000 + people_count))
        for uid in users:
            person = await people.create(uid, uid, "")
            person.profile.country = "GB"
            person.profile.onboarded = True
            await people.save(person)
        before = _thread_seconds()
        cpu = time.process_time()
        for n in range(updates):
            uid = users[n % people_count]
            for _ in range(ASKED_PER_UPDATE):
                people.person_id(uid)
            loaded = await people.load(uid)
            assert loaded is not None
            hold(loaded.profile, Held(n, TEXT, prompt_id=None, journal=True))
            await people.save(loaded)
        spent = time.process_time() - cpu
        after = _thread_seconds()
        await runtime.stop()
    await emu.stop()
    per = {name: (after[name] - before.get(name, 0.0)) / updates * 1e3 for name in after}
    print(
        f"RUN people={people_count} updates={updates} load={os.getloadavg()[0]:.1f}"
        f" cpu_per_update={spent / updates * 1e3:.3f}ms"
        f" loop={per.get('loop', 0):.3f}ms database={per.get('database', 0):.3f}ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--people", type=int, default=1000)
    parser.add_argument("--updates", type=int, default=6000)
    args = parser.parse_args()
    asyncio.run(bench(args.people, args.updates))


if __name__ == "__main__":
    main()
