"""Panic-word benchmark (run by hand; results go to docs/performance.md).

    .venv/bin/python -m bench.bench_panic [--messages 50000] [--people 100000]

The cost, per message, of the check that runs before everything else on every message
(docs/discretion.md): the person's pseudonym, an in-memory cache lookup, and for people
who set a word `PanicWords.match` (normalise, one HMAC-SHA256, two constant-time
compares). Messages are the crisis benchmark's realistic mix (80% ordinary, 5% crisis,
15% long entries up to 4,096 characters). Also measured: the crisis detector on the same
mix, for scale, and the start-up cost of filling the cache (unwrap each data key, derive
the word key), which is what keeps the per-message check off storage.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from bench.bench_crisis import realistic_mix
from bot.content.loader import load_content
from bot.content.panic_word import PanicWords, derive_word_key
from bot.crypto import MasterKey, pseudonym, random_key


def per_call(label: str, items: list[str], call: Callable[[str], object]) -> None:
    for text in items[:2000]:  # warm up
        call(text)
    timings = []
    for text in items:
        t0 = time.perf_counter_ns()
        call(text)
        timings.append(time.perf_counter_ns() - t0)
    timings.sort()
    mean = sum(timings) / len(timings) / 1000
    p50 = timings[len(timings) // 2] / 1000
    p99 = timings[int(len(timings) * 0.99)] / 1000
    print(f"{label:<46} mean {mean:6.2f} µs  p50 {p50:6.2f} µs  p99 {p99:6.2f} µs")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=50_000)
    parser.add_argument("--people", type=int, default=100_000)
    args = parser.parse_args()
    rng = random.Random(13)
    messages = realistic_mix(args.messages, rng)
    short = [m for m in messages if len(m) <= 160]
    print(f"messages: {len(messages)} ({len(short)} of at most 160 characters)")

    pseudonym_key = random_key()
    master = MasterKey(random_key())
    people = [rng.randrange(10**9) for _ in range(args.people)]
    # One in ten people has set a panic word: the rest pay a cache miss only.
    cache: dict[str, PanicWords] = {}
    wrapped: list[bytes] = []
    for index, uid in enumerate(people):
        data_key = random_key()
        if index % 10 == 0:
            cache[pseudonym(pseudonym_key, uid)] = PanicWords.create(data_key, f"word {index}")
            wrapped.append(master.wrap(data_key, "bench"))
    someone = PanicWords.create(random_key(), "blueberry pancakes", "lemon tart")
    print(f"people: {len(people)}, {len(cache)} with a panic word in memory")

    per_call("PanicWords.match, whole mix", messages, someone.match)
    per_call("PanicWords.match, chat-length messages", short, someone.match)
    per_call(
        "PanicWords.match, the panic word itself", ["Blueberry pancakes!"] * 20_000, someone.match
    )

    senders = [rng.choice(people) for _ in messages]
    pairs = iter(range(10**12))

    def full_check(text: str) -> object:
        uid = senders[next(pairs) % len(senders)]
        words = cache.get(pseudonym(pseudonym_key, uid))
        return None if words is None else words.match(text)

    per_call("pseudonym + cache lookup + match (10% set)", messages, full_check)
    detector = load_content().detector
    per_call("for scale: CrisisDetector.detect, whole mix", messages, detector.detect)

    start = time.perf_counter()
    for blob in wrapped:
        derive_word_key(master.unwrap(blob, "bench"))
    took = time.perf_counter() - start
    print(
        f"cache fill: {len(wrapped)} people in {took * 1000:.0f} ms"
        f" ({took / len(wrapped) * 1e6:.1f} µs each: unwrap the data key, derive the word key)"
    )


if __name__ == "__main__":
    main()
