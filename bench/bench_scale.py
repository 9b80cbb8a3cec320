"""Scale-out benchmarks, by hand (docs/performance.md, "Scale-out"):

    python -m bench.bench_scale postgres --people 20000 --dispatchers 1
    python -m bench.bench_scale postgres --people 20000 --dispatchers 2

Needs STEADY_TEST_POSTGRES (as .ci/postgres exports). Seeds N due people into fresh
schemas (not measured), then runs one dispatch pass per dispatcher, each in its own
process, started together, with the send stubbed (limiter off, no HTTP): what the
dispatcher itself costs on PostgreSQL (due query, key unwrap, decryption, the claim with
FOR UPDATE SKIP LOCKED, result writes). With 2, both claim (the paid-broadcast case, no
leader lock), so the run also shows that nobody is sent twice.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

import asyncpg

from bot.clock import ManualClock
from bot.crypto import MasterKey
from bot.services.delivery import Claim
from tests.postgres import fresh_schemas
from tests.storage.test_two_dispatchers import DUE, Deployment, seed

ROOT = Path(__file__).resolve().parent.parent


async def one_pass(data: str, keys: str, master_hex: str) -> dict[str, float]:
    deployment = Deployment(
        data, keys, MasterKey(bytes.fromhex(master_hex)), ManualClock(DUE), [], []
    )
    replica = await deployment.replica(lock=False)
    sent: list[str] = []

    async def stub(claim: Claim) -> int:
        sent.append(claim.person_id)
        return len(sent)

    replica.dispatcher._sender = stub
    cpu, wall = time.process_time(), time.perf_counter()
    total = 0
    while True:
        report = await replica.dispatcher.run_once()
        total += report.sent
        if report.due == 0:
            break
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    await replica.close()
    return {"sent": total, "cpu": cpu, "wall": wall, "ids": len(set(sent))}


async def run(people: int, dispatchers: int) -> dict[str, object]:
    async with fresh_schemas("data", "keys") as urls:
        master = os.urandom(32)
        started = time.perf_counter()
        await seed(urls["data"], urls["keys"], MasterKey(master), people)
        seeded = time.perf_counter() - started
        children = [
            await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bench.bench_scale",
                "child",
                urls["data"],
                urls["keys"],
                master.hex(),
                cwd=ROOT,
                stdout=asyncio.subprocess.PIPE,
            )
            for _ in range(dispatchers)
        ]
        outputs = [json.loads((await c.communicate())[0]) for c in children]
        conn = await asyncpg.connect(urls["data"])
        try:
            records = await conn.fetchval("SELECT COUNT(*) FROM deliveries WHERE status='sent'")
        finally:
            await conn.close()
    sent = sum(o["sent"] for o in outputs)
    cpu = sum(o["cpu"] for o in outputs)
    return {
        "people": people,
        "dispatchers": dispatchers,
        "seed_seconds": round(seeded, 1),
        "sent": sent,
        "records_sent": records,
        "per_dispatcher": [o["sent"] for o in outputs],
        # Each child's pass is timed inside it (start-up and content loading excluded);
        # they run side by side, so the slowest one is the wall time.
        "pass_seconds": round(max(o["wall"] for o in outputs), 2),
        "messages_per_second": round(sent / max(o["wall"] for o in outputs)),
        "bot_cpu_ms_per_message": round(1000 * cpu / max(sent, 1), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_scale")
    sub = parser.add_subparsers(dest="command", required=True)
    pg = sub.add_parser("postgres")
    pg.add_argument("--people", type=int, default=20_000)
    pg.add_argument("--dispatchers", type=int, choices=(1, 2), default=1)
    child = sub.add_parser("child")
    child.add_argument("data")
    child.add_argument("keys")
    child.add_argument("master")
    args = parser.parse_args()
    if args.command == "child":
        print(json.dumps(asyncio.run(one_pass(args.data, args.keys, args.master))))
        return
    print(json.dumps(asyncio.run(run(args.people, args.dispatchers)), indent=2))


if __name__ == "__main__":
    main()
