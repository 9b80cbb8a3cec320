"""Crisis benchmarks (run by hand; results go to docs/performance.md).

    .venv/bin/python -m bench.bench_crisis detector
    .venv/bin/python -m bench.bench_crisis latency [--seconds 20] [--rate 500]
        [--message TEXT] [--panic] [--flood PER_SECOND] [--profile FILE]

`detector`: the cost of CrisisDetector.detect per message over a realistic mix.
`latency`: the crisis reply's latency while ordinary answers load the bot at `rate`
updates per second. Latency is measured from the moment the crisis message is queued at
the (emulated) Bot API to the moment the bot's reply reaches it: it includes long polling
and the HTTP round trips, so it is stricter than the handler's own time. The bot's own
backlog (fetched updates waiting for a slot, sampled every 0.25 s) is printed too: past
what one replica sustains it grows, and the crisis reply must not grow with it. The emulator and
the load generator run in a child process, as Telegram would be elsewhere; the rate limiter
is off (at 500 replies/s, Telegram's 30 msg/s would be the only thing measured).
`--message`: the crisis text (the default is tier 1; "I'm not ok" measures the tier-2
safety check; `--message model` sends MODEL_ONLY, a crisis the rules do not hold, so the
latency is the learned model's reply, read in its worker while the load's every ordinary
message queues for it too). `--rules-only`: the bot without the model (BOT_CRISIS_MODEL=0).
`--panic`: the same load, but the urgent messages are panic words
(docs/discretion.md); the latency is to the decoy, so it includes deleting the panic
message and the chat's recent messages first. `--flood`: one more chat sends "help" that
many times a second throughout (issue 27's flood); the latency is still everyone else's.
`--profile FILE`: cProfile the bot process over the run (its top functions printed).
Each run ends with one `RUN ...` line holding every figure docs/performance.md compares:
the load average, the backlog not yet fetched at the end, the peak waiting in the bot,
the crisis p50/p99/max, and the bot's CPU until every fetched update was handled, per
update (ordinary, crisis and flood together); `threads=` is each thread's CPU since the
process started (seeding included), `threads_until_idle=` the same over the measured span.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import multiprocessing
import os
import pstats
import random
import resource
import statistics
import subprocess
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path

from bench.harness import GcTime, bench_settings, thread_seconds
from bot.content.loader import load_content
from bot.core.clock import system_clock
from bot.emulator import BotApiEmulator, SentMessage
from bot.runtime import Runtime

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
ORDINARY = [
    "I went for a walk today and the air felt good",
    "Not much to say. Tired but okay.",
    "My sister called and we talked for an hour about nothing in particular",
    "I keep replaying the argument from last week in my head",
    "Today I chose what to eat without asking anyone. Small, but it felt like mine.",
    "He sent a message again. I didn't answer.",
    "Work was long. I'm proud I went to the gym after.",
    "I wrote down what happened so I don't start doubting myself later.",
]


def corpus(name: str) -> list[str]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    texts = []
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        texts.append(line.rsplit("\t", 1)[-1])
    return texts


def realistic_mix(count: int, rng: random.Random) -> list[str]:
    positives = corpus("crisis_must_trigger.txt")
    negatives = corpus("crisis_must_not_trigger.txt") + ORDINARY
    mix = []
    for _ in range(count):
        roll = rng.random()
        if roll < 0.05:
            mix.append(rng.choice(positives))
        elif roll < 0.85:
            mix.append(rng.choice(negatives))
        else:  # a long journal entry, up to Telegram's limit
            words: list[str] = []
            target = rng.randint(800, 4000)
            while sum(len(w) + 1 for w in words) < target:
                words.append(rng.choice(negatives))
            mix.append(" ".join(words)[:4096])
    return mix


def bench_detector() -> None:
    detector = load_content().detector
    rng = random.Random(7)
    messages = realistic_mix(50_000, rng)
    for text in messages[:2000]:  # warm up
        detector.detect(text)
    timings = []
    start = time.perf_counter()
    for text in messages:
        t0 = time.perf_counter_ns()
        detector.detect(text)
        timings.append(time.perf_counter_ns() - t0)
    total = time.perf_counter() - start
    timings.sort()
    chars = sum(len(t) for t in messages) / len(messages)
    print(f"messages: {len(messages)} (mean {chars:.0f} characters; 5% crisis, 15% long)")
    print(f"mean: {total / len(messages) * 1e6:.1f} µs/message")
    p50 = timings[len(timings) // 2] / 1000
    p99 = timings[int(len(timings) * 0.99)] / 1000
    print(f"p50: {p50:.1f} µs  p99: {p99:.1f} µs  max: {timings[-1] / 1000:.1f} µs")


TIER_ONE = "help, he is outside"  # the emergency reply; "I'm not ok" is the tier-2 check
# No rule holds it; the model answers it (tests/unit/test_crisis_model.py pins that).
MODEL_ONLY = "tengo una cuerda en el coche y esta noche lo hago"
PANIC_WORD = "blueberry pancakes"


FLOODER = 99_999  # one chat sending crisis words over and over (`--flood`)


async def _drive_load(
    conn: Connection, seconds: float, rate: float, urgent: str, flood: float
) -> None:
    """Child process: the emulated Bot API plus the people typing, so that their CPU is not
    counted against the bot."""
    emu = BotApiEmulator(record_calls=False, keep_per_chat=50)
    await emu.start()
    conn.send(emu.base_url)
    ordinary_users, crisis_users = await asyncio.to_thread(conn.recv)
    sent_at: dict[int, float] = {}
    latencies: list[float] = []

    def on_sent(message: SentMessage, event: str) -> None:
        if event != "sent":
            return  # the panic wipe deletes the last decoy first: only the new one counts
        queued = sent_at.pop(message.chat_id, None)
        if queued is not None:
            latencies.append(time.perf_counter() - queued)

    emu.add_listener(on_sent)
    rng = random.Random(1)
    loop = asyncio.get_running_loop()
    begin = loop.time()
    ordinary_sent = crisis_count = flood_sent = 0
    next_crisis = begin + 0.05
    while loop.time() - begin < seconds:
        due = int((loop.time() - begin) * rate)
        while ordinary_sent < due:
            emu.user_sends(rng.choice(ordinary_users), rng.choice(ORDINARY))
            ordinary_sent += 1
        while flood_sent < int((loop.time() - begin) * flood):
            emu.user_sends(FLOODER, "help")
            flood_sent += 1
        if loop.time() >= next_crisis:
            uid = crisis_users[crisis_count % len(crisis_users)]
            crisis_count += 1
            sent_at[uid] = time.perf_counter()
            emu.user_sends(uid, urgent)
            next_crisis += 0.05
        await asyncio.sleep(0.002)  # pacing the load generator, not waiting for results
    backlog = emu.pending_updates()
    await emu.wait_until_consumed(timeout=120)
    conn.send((ordinary_sent, crisis_count, backlog, latencies))
    await asyncio.to_thread(conn.recv)  # the bot has stopped
    await emu.stop()


def _waiting_in_bot(runtime: Runtime) -> int:
    """Fetched updates waiting for a slot: the admission queue and the slots' own waiters
    (the code before the admission queue had only the latter)."""
    processor = getattr(runtime.app, "update_processor", None)
    waiting = getattr(processor, "waiting_for_slots", None)
    if isinstance(waiting, int):
        return waiting
    waiters = getattr(getattr(processor, "_slots", None), "_waiters", None) or ()
    return len(waiters)


async def _sample_backlog(runtime: Runtime, peak: list[int]) -> None:
    """The bot's own backlog (under overload this grows; the crisis reply must not grow
    with it)."""
    while True:
        peak[0] = max(peak[0], _waiting_in_bot(runtime))
        await asyncio.sleep(0.25)  # a sample, not a wait for a result


async def _until_idle(runtime: Runtime, limit: float = 300) -> None:
    """Every fetched update handled, so the CPU read after counts all of them."""
    app = runtime.app
    assert app is not None
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while app.update_queue.qsize() or app.update_processor.current_concurrent_updates:
        if loop.time() > deadline:
            break
        await asyncio.sleep(0.05)  # polling what the bot reports, bounded by the deadline


def _thread_seconds() -> dict[str, float]:
    """CPU seconds per thread since the process started, by thread name (the loop's is
    MainThread)."""
    return thread_seconds(lambda t: t.name.split("_")[0].split(" ")[0])


def _thread_cpu(before: dict[str, float] | None = None) -> str:
    """CPU seconds per thread (since `before`, if given): where the CPU went when several
    threads share the GIL."""
    start = before or {}
    parts = []
    for name, seconds in _thread_seconds().items():
        spent = seconds - start.get(name, 0.0)
        if spent >= 0.1:
            parts.append(f"{name}:{spent:.1f}")
    return ",".join(parts)


def _code() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
            cwd=Path(__file__).resolve().parent,
        )
    except OSError:
        return "?"
    return out.stdout.strip() or "?"


def _child(conn: Connection, seconds: float, rate: float, urgent: str, flood: float) -> None:
    asyncio.run(_drive_load(conn, seconds, rate, urgent, flood))


async def bench_latency(
    seconds: float,
    rate: float,
    text: str = TIER_ONE,
    *,
    panic: bool = False,
    flood: float = 0,
    model: bool = True,
    profile: str | None = None,
) -> None:
    parent, child = multiprocessing.Pipe()
    urgent = PANIC_WORD if panic else text
    process = multiprocessing.get_context("spawn").Process(
        target=_child, args=(child, seconds, rate, urgent, flood)
    )
    process.start()
    base_url = await asyncio.to_thread(parent.recv)
    with tempfile.TemporaryDirectory() as tmp:
        settings = bench_settings(Path(tmp), base_url, crisis_model=model)
        runtime = Runtime(settings, clock=system_clock, throttle=False)
        await runtime.start()
        assert runtime.services is not None
        people = runtime.services.people
        ordinary_users = list(range(10_000, 10_000 + 1000))
        crisis_users = list(range(90_000, 90_000 + 200))
        for uid in ordinary_users + crisis_users:
            person = await people.create(uid, uid, "")
            person.profile.country = "GB"
            person.profile.onboarded = True
            await people.save(person)
            if panic and uid in crisis_users:
                assert runtime.app is not None
                await runtime.app.bot_data.offers.discretion.set_panic_word(person, PANIC_WORD)
        screen = runtime.services.crisis_model
        if screen is not None:
            # The window measures a replica that is up: the model loads after the first poll
            # (0.5-2 s, bench_first_poll's model_ready_s), and a message sent meanwhile waits
            # for it; that is a start-up cost, not the load's.
            await screen.loaded()
        load_before = os.getloadavg()[0]
        # The event loop thread's own CPU: wall time would count its waits for the GIL.
        profiler = cProfile.Profile(time.thread_time) if profile else None
        cpu_before = time.process_time()
        threads_before = _thread_seconds()
        peak = [0]
        gc_time = GcTime(time.perf_counter)
        gc.callbacks.append(gc_time)
        sampler = asyncio.create_task(_sample_backlog(runtime, peak))
        if profiler is not None:
            profiler.enable()
        parent.send((ordinary_users, crisis_users))
        ordinary_sent, crisis_count, backlog, latencies = await asyncio.to_thread(parent.recv)
        cpu_window = time.process_time() - cpu_before
        await _until_idle(runtime)
        if profiler is not None:
            profiler.disable()
        sampler.cancel()
        gc.callbacks.remove(gc_time)
        cpu = time.process_time() - cpu_before
        shed = getattr(runtime.app.update_processor, "shed_updates", 0) if runtime.app else 0
        # Messages the model left to the rules (their budget ran out while they waited):
        # under overload the model reads fewer, and costs less.
        model_skipped = getattr(runtime.services.crisis_model, "skipped", "-")
        threads = _thread_cpu()
        threads_window = _thread_cpu(threads_before)
        await runtime.stop()
    parent.send("done")
    process.join()
    latencies.sort()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if profiler is not None and profile is not None:
        profiler.dump_stats(profile)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(40)
        pstats.Stats(profile).sort_stats("tottime").print_stats(40)
    print(
        f"load: {ordinary_sent} ordinary updates in {seconds:.0f}s"
        f" ({ordinary_sent / seconds:.0f}/s), {crisis_count} {'panic' if panic else 'crisis'}"
        " messages;"
        f" not yet fetched at the end: {backlog};"
        f" most fetched and waiting for a slot in the bot: {peak[0]}"
    )
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[int(len(latencies) * 0.99)] * 1000
    print(
        f"{'panic decoy' if panic else 'crisis reply'} latency: n={len(latencies)}"
        f" p50={p50:.1f} ms p99={p99:.1f} ms"
        f" max={latencies[-1] * 1000:.1f} ms"
    )
    print(f"bot process CPU: {cpu:.1f}s over {seconds:.0f}s; peak RSS {rss:.0f} MB")
    updates = ordinary_sent + crisis_count + int(flood * seconds)
    # One line with everything a comparison needs (docs/performance.md tabulates these).
    print(
        f"RUN code={_code()} rate={rate:.0f}/s seconds={seconds:.0f}"
        f" load={load_before:.1f}-{os.getloadavg()[0]:.1f}"
        f" ordinary={ordinary_sent} urgent={crisis_count}"
        f" unfetched_at_end={backlog} peak_waiting={peak[0]} shed={shed}"
        f" model_skipped={model_skipped} answered={len(latencies)}"
        f" p50={p50:.1f}ms p99={p99:.1f}ms max={latencies[-1] * 1000:.1f}ms"
        f" cpu_in_window={cpu_window:.1f}s cpu_until_idle={cpu:.1f}s"
        f" cpu_per_update={cpu / max(updates, 1) * 1000:.2f}ms rss={rss:.0f}MB"
        f" gc={gc_time.seconds:.2f}s/{gc_time.collections}"
        f" gc_longest={gc_time.longest * 1000:.1f}ms/gen{gc_time.longest_generation}"
        f" threads={threads} threads_until_idle={threads_window}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("which", choices=["detector", "latency"])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--rate", type=float, default=500)
    parser.add_argument("--message", default=TIER_ONE, help="the crisis text sent")
    parser.add_argument("--panic", action="store_true", help="panic words instead of crisis")
    parser.add_argument(
        "--flood", type=float, default=0, help='one more chat sending "help" this many times/s'
    )
    parser.add_argument("--rules-only", action="store_true", help="without the crisis model")
    parser.add_argument(
        "--profile", metavar="FILE", help="cProfile the bot (this process) into FILE, print top"
    )
    args = parser.parse_args()
    if args.message == "model":
        args.message = MODEL_ONLY
    if args.which == "detector":
        bench_detector()
    else:
        asyncio.run(
            bench_latency(
                args.seconds,
                args.rate,
                args.message,
                panic=args.panic,
                flood=args.flood,
                model=not args.rules_only,
                profile=args.profile,
            )
        )


if __name__ == "__main__":
    main()
