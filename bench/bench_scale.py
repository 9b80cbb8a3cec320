"""Scale-out benchmarks, by hand (docs/performance.md, "Scale-out"):

    python -m bench.bench_scale postgres --people 20000 --dispatchers 1
    python -m bench.bench_scale postgres --people 20000 --dispatchers 2
    python -m bench.bench_scale postgres --people 20000 --dispatchers 1 --send stub
    python -m bench.bench_scale postgres --people 20000 --profile /tmp/scale.prof.txt

Needs STEADY_TEST_POSTGRES (as .ci/postgres exports). Seeds N due people into fresh
schemas (not measured), then runs dispatch passes in one process per dispatcher until
nothing is due; the dispatchers start their passes together, after each has started up.
With 2, both claim (the paid-broadcast case), so the run also shows that nobody is sent
twice.

--send emulator (the default): each dispatcher is a whole replica as deployed at scale
(`Runtime` on PostgreSQL, webhook mode, BOT_PAID_BROADCAST, limiter off), sending for
real over HTTP to the Bot API emulator, which runs in a process of its own so the bot's
CPU time is its own. --send stub: the dispatcher alone (no Runtime, no PTB), the send
replaced by a stub: its own cost on PostgreSQL (due query, key unwrap, decryption, the
claim with FOR UPDATE SKIP LOCKED, result writes), with no leader lock.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import logging
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import asyncpg

from bench.harness import ROOT, EmulatorProcess, bench_settings, dispatcher_of, write_profile
from bot.content.loader import load_content
from bot.core.clock import ManualClock
from bot.crypto import MasterKey
from bot.features.checkins.delivery import Dispatcher
from bot.features.checkins.policy import Claim
from bot.runtime import Runtime
from bot.transport.send_outcome import Delivered, SendOutcome
from tests.helpers.postgres import fresh_schemas
from tests.storage.test_two_dispatchers import DUE, Deployment, seed

FIRST_CHAT = 50_000  # the seed's first chat id (tests/storage/test_two_dispatchers.py)


async def passes_until_quiet(dispatcher: Dispatcher, profile: Path | None) -> dict[str, Any]:
    """Say "ready", wait for the word to start, then pass after pass (as its ticks would)
    until nothing is due for this dispatcher; only that is timed."""
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    profiler = cProfile.Profile() if profile else None
    totals = {"sent": 0, "skipped": 0, "failed": 0, "conflicts": 0, "passes": 0}
    cpu, wall = time.process_time(), time.perf_counter()
    if profiler:
        profiler.enable()
    while True:
        report = await dispatcher.run_once()
        totals["sent"] += report.sent
        totals["skipped"] += report.skipped
        totals["failed"] += report.failed + report.blocked + report.unknown
        totals["conflicts"] += report.conflicts
        totals["passes"] += 1
        if report.due == 0:
            break
    if profiler:
        profiler.disable()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if profiler and profile:
        write_profile(profiler, profile)
    return {**totals, "cpu": cpu, "wall": wall}


async def stub_child(data: str, keys: str, master_hex: str, profile: Path | None) -> dict[str, Any]:
    deployment = Deployment(
        data, keys, MasterKey(bytes.fromhex(master_hex)), ManualClock(DUE), [], []
    )
    replica = await deployment.replica(lock=False)
    counter = iter(range(1, 10**9))

    async def stub(claim: Claim) -> SendOutcome:
        return Delivered(next(counter))

    replica.dispatcher._sender = stub  # the benchmark swaps the transport only
    try:
        return await passes_until_quiet(replica.dispatcher, profile)
    finally:
        await replica.close()


async def replica_child(
    data: str, keys: str, master_hex: str, api_url: str, profile: Path | None
) -> dict[str, Any]:
    """A replica as docs/scaling.md deploys it. Webhook mode, not polling: several
    replicas long-polling one bot end each other's polls (409), and at scale updates come
    by webhook anyway. Nothing calls setWebhook, so nothing is posted to it."""
    with tempfile.TemporaryDirectory(prefix="steady-bench-scale-") as home:
        settings = bench_settings(
            Path(home),
            api_url,
            master_key=bytes.fromhex(master_hex),
            http_timeout=30.0,
            database_url=data,
            keys_database_url=keys,
            webhook_url="http://127.0.0.1/steady-bench",
            webhook_listen=("127.0.0.1", 0),
            webhook_secret=secrets.token_hex(16),
            paid_broadcast=True,
        )
        runtime = Runtime(
            settings,
            clock=ManualClock(DUE),
            content=load_content(),
            throttle=False,
            chart_mode="thread",
        )
        await runtime.start()
        try:
            return await passes_until_quiet(dispatcher_of(runtime), profile)
        finally:
            await runtime.stop()


async def run(people: int, dispatchers: int, send: str, profile: Path | None) -> dict[str, Any]:
    load_before = os.getloadavg()
    async with fresh_schemas("data", "keys") as urls:
        master = os.urandom(32)
        started = time.perf_counter()
        await seed(urls["data"], urls["keys"], MasterKey(master), people)
        seeded = time.perf_counter() - started
        emulator = EmulatorProcess(people, FIRST_CHAT) if send == "emulator" else None
        try:
            children = []
            for n in range(dispatchers):
                args = ["child", urls["data"], urls["keys"], master.hex(), "--send", send]
                if emulator is not None:
                    args += ["--api-url", emulator.url]
                if profile is not None:
                    args += ["--profile", str(profile.with_suffix(f".{n}{profile.suffix}"))]
                children.append(
                    await asyncio.create_subprocess_exec(
                        sys.executable,
                        "-m",
                        "bench.bench_scale",
                        *args,
                        cwd=ROOT,
                        stdin=asyncio.subprocess.PIPE,
                        stdout=asyncio.subprocess.PIPE,
                    )
                )
            for child in children:
                assert child.stdout is not None
                if (await child.stdout.readline()).strip() != b"ready":
                    raise RuntimeError("a dispatcher did not start (its stderr is above)")
            outputs = [
                json.loads(out.decode().strip().splitlines()[-1])
                for out, _ in await asyncio.gather(*(c.communicate(b"go\n") for c in children))
            ]
        finally:
            seen = emulator.finish() if emulator is not None else None
        conn = await asyncpg.connect(urls["data"])
        try:
            records = await conn.fetchval("SELECT COUNT(*) FROM deliveries WHERE status='sent'")
        finally:
            await conn.close()
    sent = sum(o["sent"] for o in outputs)
    cpu = sum(o["cpu"] for o in outputs)
    # Each child times its own passes (start-up excluded); they start together, so the
    # slowest one is the wall time.
    wall = max(o["wall"] for o in outputs)
    result: dict[str, Any] = {
        "people": people,
        "dispatchers": dispatchers,
        "send": send,
        "seed_seconds": round(seeded, 1),
        "sent": sent,
        "records_sent": records,
        "per_dispatcher": [o["sent"] for o in outputs],
        "skipped": sum(o["skipped"] for o in outputs),
        "failed": sum(o["failed"] for o in outputs),
        "conflicts": sum(o["conflicts"] for o in outputs),
        "passes": [o["passes"] for o in outputs],
        "pass_seconds": round(wall, 2),
        "messages_per_second": round(sent / wall),
        "bot_cpu_seconds": [round(o["cpu"], 2) for o in outputs],
        "bot_cpu_ms_per_message": round(1000 * cpu / max(sent, 1), 3),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }
    if seen is not None:
        result["emulator"] = {
            "messages": seen["messages"],
            "chats": seen.get("chats"),
            "most_in_one_chat": seen.get("most_in_one_chat"),
            "rate_per_s": round(seen.get("rate_per_s", 0.0)),
            # Its whole process, start-up and adding the chats included.
            "cpu_ms_per_message": round(1000 * seen["cpu_s"] / max(seen["messages"], 1), 3),
        }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_scale")
    sub = parser.add_subparsers(dest="command", required=True)
    pg = sub.add_parser("postgres")
    pg.add_argument("--people", type=int, default=20_000)
    pg.add_argument("--dispatchers", type=int, choices=(1, 2), default=1)
    pg.add_argument("--send", choices=("emulator", "stub"), default="emulator")
    pg.add_argument("--profile", type=Path, help="cProfile summary per dispatcher, beside this")
    child = sub.add_parser("child")
    child.add_argument("data")
    child.add_argument("keys")
    child.add_argument("master")
    child.add_argument("--send", choices=("emulator", "stub"), required=True)
    child.add_argument("--api-url")
    child.add_argument("--profile", type=Path)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if args.command == "child":
        if args.send == "stub":
            result = asyncio.run(stub_child(args.data, args.keys, args.master, args.profile))
        else:
            result = asyncio.run(
                replica_child(args.data, args.keys, args.master, args.api_url, args.profile)
            )
        print(json.dumps(result))
        return
    print(
        json.dumps(
            asyncio.run(run(args.people, args.dispatchers, args.send, args.profile)), indent=2
        )
    )


if __name__ == "__main__":
    main()
