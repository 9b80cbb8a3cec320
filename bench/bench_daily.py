"""Daily-prompt benchmarks, by hand: `python -m bench.bench_daily all` (docs/performance.md).

Every measurement runs in its own process, and the Bot API emulator in yet another
(bench/harness.py), so the bot's CPU time and peak RSS are its own:

    seed DIR --people N        people due at one instant, written straight into storage;
      [--layout flat]          profiles in the flat layout written before per-feature
                               records (bot/people/profile.py), as rows not saved since
    throughput DIR [--dry]     one dispatch pass over everyone, throttle off; --dry replaces
                               the HTTP send with a stub (the dispatcher's own cost)
    startup DIR --mode M       start-up time and RSS: ours (one job) or naive (one
                               JobQueue.run_daily job per person)
    throttled DIR              a pass with the real rate limiter on
    all                        everything above, with a summary table
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import datetime as dt
import gc
import json
import logging
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, cast
from unittest.mock import MagicMock
from zoneinfo import ZoneInfo

from bench.harness import (
    FIRST_USER,
    ROOT,
    EmulatorProcess,
    GcTime,
    bench_settings,
    dispatcher_of,
    write_profile,
)
from bot.app import features as listed_features
from bot.config import Settings
from bot.content.compiled import load_compiled
from bot.content.loader import load_content
from bot.core.clock import ManualClock
from bot.crypto import MasterKey, PersonCipher, pseudonym, random_key
from bot.features.checkins.policy import Claim, schedule_of
from bot.features.checkins.prefs import CheckinPrefs
from bot.features.checkins.schedule import next_occurrence
from bot.features.crisis.held import HeldTexts
from bot.framework.context import Services
from bot.framework.hub import Hub
from bot.people.profile import PARTS, Profile, Record
from bot.people.service import CHAT_SLOT, PROFILE_SLOT
from bot.runtime import Runtime
from bot.storage.database import Database
from bot.storage.keystore import KeyStore, new_row_id
from bot.storage.schema import MIGRATIONS
from bot.transport.http import BotApiRequest
from bot.transport.send_outcome import Delivered, SendOutcome

DUE = dt.datetime(2026, 12, 1, 7, 30, tzinfo=dt.UTC)
# (zone, local time) pairs that all fall on DUE: a realistic mix, due in the same minute.
ZONES = (
    ("Europe/London", "07:30"),
    ("Europe/Lisbon", "07:30"),
    ("America/New_York", "02:30"),
    ("Asia/Kolkata", "13:00"),
    ("Asia/Tokyo", "16:30"),
    ("Africa/Lagos", "08:30"),
)


def rss_mb() -> float:
    """Peak RSS of this process image. Not ru_maxrss: Linux carries that across fork and
    exec, so a child would report its parent's peak (the seeding) as its own."""
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mb() -> float:
    with open("/proc/self/statm", encoding="ascii") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


# --- seeding --------------------------------------------------------------------------


def all_records() -> list[type[Record]]:
    # The features install into a hub with stand-in shared services: only what they
    # register is read here, as tests/helpers/codecs.py does.
    shared = MagicMock()
    shared.main_bot.request = BotApiRequest()  # the check-ins' JSON send asks for it
    hub = Hub(services=cast(Services, shared))
    for feature in listed_features():
        feature.install(hub)
    return hub.records


def profile_text(zone: str, local: str, layout: str, kinds: list[type[Record]]) -> str:
    """A person who has every feature's record (each at its defaults but the check-ins'),
    in either layout: `flat` as written before records, every field at the top."""
    profile = Profile(country="GB", timezone=zone, onboarded=True)
    profile.holding(*(kind() for kind in kinds))
    profile.replace(CheckinPrefs(daily_time=local, daily_enabled=True))
    text = profile.to_json(kinds)
    if layout == "parts":
        return text
    raw = json.loads(text)
    for key, values in raw.pop(PARTS).items():
        raw.update({"held": values["texts"]} if key == HeldTexts.KEY else values)
    return json.dumps(raw, separators=(",", ":"), sort_keys=True)


async def seed(
    directory: Path, people: int, *, startup_only: bool = False, layout: str = "parts"
) -> None:
    """`startup_only`: every person's sealed texts are one person's (start-up opens none,
    and sealing a million twice takes half an hour here); identities and data keys are
    each their own, as start-up would meet them."""
    data = directory / "data"
    data.mkdir(parents=True, exist_ok=True)
    secret = random_key()
    (directory / "master.hex").write_text(secret.hex(), encoding="ascii")
    master = MasterKey(secret)
    keys = await KeyStore.open(data / "keys.sqlite3", master)
    db = await Database.open(data / "steady.sqlite3", MIGRATIONS)
    pseudo = await keys.pseudonym_key()
    now = int(DUE.timestamp()) - 86_400
    occurrences: dict[str, tuple[str, tuple[dt.datetime, dt.date]]] = {}
    kinds = all_records()
    for zone, local in ZONES:
        profile = Profile(country="GB", timezone=zone, onboarded=True).holding(
            CheckinPrefs(daily_time=local, daily_enabled=True)
        )
        schedule = schedule_of(profile)
        assert schedule is not None
        found = next_occurrence(schedule, DUE - dt.timedelta(seconds=1))
        assert found is not None and found[0] == DUE, (zone, found)
        occurrences[zone] = (profile_text(zone, local, layout, kinds), found)
    shared: dict[str, tuple[bytes, bytes]] = {}
    for start in range(0, people, 50_000):
        people_rows: list[tuple[str, bytes, bytes, int, str, int, int]] = []
        identity_rows: list[tuple[str, str, bytes]] = []
        for n in range(start, min(people, start + 50_000)):
            user = FIRST_USER + n
            zone, _ = ZONES[n % len(ZONES)]
            text, found = occurrences[zone]
            pid = new_row_id()
            key = random_key()
            identity_rows.append((pseudonym(pseudo, user), pid, key))
            if startup_only and zone in shared:
                chat, sealed = shared[zone]
            else:
                cipher = PersonCipher(pid, key)
                chat = cipher.seal_text(CHAT_SLOT, str(user))
                sealed = cipher.seal_text(PROFILE_SLOT, text)
                shared[zone] = (chat, sealed)
            people_rows.append(
                (pid, chat, sealed, int(found[0].timestamp()), found[1].isoformat(), now, now)
            )
        await keys.add_people(identity_rows)
        async with db.transaction() as conn:
            await conn.executemany(
                "INSERT INTO people (person_id, chat_enc, profile_enc, state, active,"
                " next_due_utc, next_due_date, created_at, updated_at)"
                " VALUES (?, ?, ?, '', 1, ?, ?, ?, ?)",
                people_rows,
            )
    await db.checkpoint()
    await keys.db.checkpoint()
    await db.close()
    await keys.close()


def copy_seed(template: Path) -> Path:
    target = Path(tempfile.mkdtemp(prefix="steady-bench-"))
    shutil.copytree(template / "data", target / "data")
    shutil.copy(template / "master.hex", target / "master.hex")
    return target


def settings_for(directory: Path, api_url: str) -> Settings:
    secret = bytes.fromhex((directory / "master.hex").read_text(encoding="ascii"))
    return bench_settings(directory / "data", api_url, master_key=secret, http_timeout=30.0)


# --- measurements (each in its own process) -------------------------------------------


async def started(directory: Path, url: str, *, throttle: bool) -> Runtime:
    runtime = Runtime(
        settings_for(directory, url),
        clock=ManualClock(DUE),
        content=load_content(),
        throttle=throttle,
    )
    await runtime.start()
    return runtime


async def measure_pass(
    directory: Path,
    people: int,
    *,
    dry: bool,
    throttle: bool,
    profile: Path | None,
    concurrency: int | None = None,
) -> dict[str, Any]:
    emulator = EmulatorProcess(people)
    runtime = await started(directory, emulator.url, throttle=throttle)
    try:
        dispatcher = dispatcher_of(runtime)
        if dry:
            counter = iter(range(1, 10**9))

            async def stub(claim: Claim) -> SendOutcome:
                return Delivered(next(counter))

            dispatcher._sender = stub  # the benchmark swaps the transport only
        if concurrency:
            dispatcher._concurrency = concurrency
        # On the loop thread's CPU clock: wall time would count the waits in epoll and for
        # the GIL (the databases' threads, the emulator beside it on two cores).
        profiler = cProfile.Profile(time.thread_time) if profile else None
        collector = GcTime()
        gc.callbacks.append(collector)
        cpu, wall, loop_cpu = time.process_time(), time.perf_counter(), time.thread_time()
        if profiler:
            profiler.enable()
        report = await dispatcher.run_once()
        if profiler:
            profiler.disable()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        loop_cpu = time.thread_time() - loop_cpu
        gc.callbacks.remove(collector)
    finally:
        await runtime.stop()
    seen = emulator.finish()
    if profiler and profile:
        write_profile(profiler, profile)  # after the timing
    return {
        "people": people,
        "dry": dry,
        "throttle": throttle,
        "sent": report.sent,
        "skipped": report.skipped,
        "failed": report.failed + report.blocked + report.unknown,
        "wall_s": wall,
        "cpu_s": cpu,
        "messages_per_s": report.sent / wall,
        "cpu_ms_per_message": 1000 * cpu / max(report.sent, 1),
        # The event loop's thread alone (what cProfile sees); the rest is the databases'
        # threads (aiosqlite runs every statement on its own thread) and the interpreter's.
        "loop_cpu_ms_per_message": 1000 * loop_cpu / max(report.sent, 1),
        # The collector's share of that (a cost no profile of functions shows).
        "gc_ms_per_message": 1000 * collector.seconds / max(report.sent, 1),
        "gc_collections": collector.collections,
        # Wall time inside claims and result writes, waiting on the event loop included.
        "claim_wall_s": report.claim_seconds,
        "record_wall_s": report.record_seconds,
        "peak_rss_mb": rss_mb(),
        "emulator": seen,
    }


async def measure_startup(directory: Path, mode: str) -> dict[str, Any]:
    """Content loading (the same for any number of people) and the Runtime's start (what
    grows with people, if anything does) are timed apart, and each in CPU time too: on a
    shared machine the wall clock mostly measures the neighbours."""
    emulator = EmulatorProcess(0)
    settings = settings_for(directory, emulator.url)
    # As `python -m bot` loads it: the compiled form in the data dir's cache/ when one
    # matches (every run after the first), else built, validated and written.
    compiled_before = any(settings.content_cache.glob("content-*.pickle"))
    rss_before = current_rss_mb()
    wall, cpu = time.perf_counter(), time.process_time()
    content = load_compiled(settings.content_cache)
    content_wall, content_cpu = time.perf_counter() - wall, time.process_time() - cpu
    runtime = Runtime(settings, clock=ManualClock(DUE), content=content)
    await runtime.start()
    start_wall = time.perf_counter() - wall - content_wall
    start_cpu = time.process_time() - cpu - content_cpu
    scheduled = 0
    try:
        if mode == "naive":
            scheduled = await schedule_naively(runtime)
        wall = time.perf_counter() - wall
        await asyncio.sleep(0.5)  # let the scheduler settle before reading memory
        result = {
            "mode": mode,
            "people": count_people(directory),
            "startup_s": wall,
            "content_s": content_wall,
            "content_cpu_s": content_cpu,
            "content_from": "compiled" if compiled_before else "built",
            "runtime_start_s": start_wall,
            "runtime_start_cpu_s": start_cpu,
            "jobs": scheduled if mode == "naive" else 1,
            "rss_mb": current_rss_mb(),
            "peak_rss_mb": rss_mb(),
            "rss_before_start_mb": rss_before,
        }
    finally:
        await runtime.stop()
    emulator.finish()
    return result


async def schedule_naively(runtime: Runtime) -> int:
    """The design we did not choose: load everyone, one PTB run_daily job per person."""
    assert runtime.services is not None and runtime.app is not None
    services = runtime.services
    job_queue = runtime.app.job_queue
    assert job_queue is not None
    rows = await services.db.fetch_all(
        "SELECT person_id, profile_enc FROM people WHERE active = 1 AND next_due_utc IS NOT NULL"
    )
    ids = [str(r["person_id"]) for r in rows]
    ciphers = await services.people.ciphers(ids[:1])  # warm the path; the loop does the rest
    count = 0

    async def send(context: Any) -> None:  # never reached: only scheduling is measured
        return None

    for start in range(0, len(rows), 5000):
        chunk = rows[start : start + 5000]
        ciphers = await services.people.ciphers([str(r["person_id"]) for r in chunk])
        for row in chunk:
            pid = str(row["person_id"])
            profile = Profile.from_json(ciphers[pid].open_text(PROFILE_SLOT, row["profile_enc"]))
            daily_time = profile.part(CheckinPrefs).daily_time
            timezone = profile.timezone
            assert daily_time is not None and timezone is not None, (
                f"{pid}: active with a due time but no daily time or time zone"
            )
            hour, minute = map(int, daily_time.split(":"))
            job_queue.run_daily(
                send,
                dt.time(hour, minute, tzinfo=ZoneInfo(timezone)),
                # PTB counts days from Sunday = 0; ours from Monday = 0.
                days=tuple((d + 1) % 7 for d in profile.part(CheckinPrefs).daily_days),
                name=pid,
                data=pid,
                job_kwargs={"misfire_grace_time": 7200},
            )
            count += 1
    return count


# --- orchestration --------------------------------------------------------------------


def run_child(*args: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "bench.bench_daily", *args],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def timed(label: str, work: Callable[[], Coroutine[Any, Any, None]]) -> None:
    started = time.perf_counter()
    asyncio.run(work())
    print(f"# {label}: {time.perf_counter() - started:.1f}s", file=sys.stderr)


def run_all(people: int, throttled_people: int, profile: Path | None) -> None:
    base = Path(tempfile.mkdtemp(prefix="steady-bench-seed-"))
    big, small = base / "big", base / "small"
    timed(f"seeded {people}", lambda: seed(big, people))
    timed(f"seeded {throttled_people}", lambda: seed(small, throttled_people))
    results: dict[str, Any] = {}
    try:
        for name, template, extra in (
            ("throughput", big, []),
            ("dry", big, ["--dry"]),
            ("throttled", small, []),
        ):
            work = copy_seed(template)
            try:
                args = ["throttled" if name == "throttled" else "throughput", str(work), *extra]
                if profile and name != "throttled":
                    args += ["--profile", str(profile.with_suffix(f".{name}.txt"))]
                results[name] = run_child(*args)
            finally:
                shutil.rmtree(work, ignore_errors=True)
            print(f"# {name}: {json.dumps(results[name])}", file=sys.stderr)
        for mode in ("ours", "naive"):
            work = copy_seed(big)
            try:
                results[f"startup_{mode}"] = run_child("startup", str(work), "--mode", mode)
            finally:
                shutil.rmtree(work, ignore_errors=True)
            print(f"# startup {mode}: {json.dumps(results[f'startup_{mode}'])}", file=sys.stderr)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(json.dumps(results, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_daily")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("seed")
    p.add_argument("directory", type=Path)
    p.add_argument("--people", type=int, default=100_000)
    p.add_argument("--startup-only", action="store_true", help="one sealed text for all")
    p.add_argument("--layout", choices=("parts", "flat"), default="parts")
    for name in ("throughput", "throttled"):
        p = sub.add_parser(name)
        p.add_argument("directory", type=Path)
        p.add_argument("--dry", action="store_true")
        p.add_argument("--profile", type=Path)
        p.add_argument("--concurrency", type=int)
    p = sub.add_parser("startup")
    p.add_argument("directory", type=Path)
    p.add_argument("--mode", choices=("ours", "naive"), required=True)
    p = sub.add_parser("all")
    p.add_argument("--people", type=int, default=100_000)
    p.add_argument("--throttled-people", type=int, default=600)
    p.add_argument("--profile", type=Path, help="write cProfile summaries next to this path")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)

    if args.command == "seed":
        asyncio.run(
            seed(args.directory, args.people, startup_only=args.startup_only, layout=args.layout)
        )
    elif args.command in ("throughput", "throttled"):
        people = count_people(args.directory)
        result = asyncio.run(
            measure_pass(
                args.directory,
                people,
                dry=args.dry,
                throttle=args.command == "throttled",
                profile=args.profile,
                concurrency=args.concurrency,
            )
        )
        print(json.dumps(result))
    elif args.command == "startup":
        print(json.dumps(asyncio.run(measure_startup(args.directory, args.mode))))
    else:
        run_all(args.people, args.throttled_people, args.profile)


def count_people(directory: Path) -> int:
    import sqlite3  # noqa: PLC0415 - only this helper reads the file synchronously

    with sqlite3.connect(directory / "data" / "steady.sqlite3") as conn:
        (n,) = conn.execute("SELECT COUNT(*) FROM people").fetchone()
    return int(n)


if __name__ == "__main__":
    main()
