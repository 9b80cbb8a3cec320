"""Phrase-signal benchmark (run by hand; results go to docs/performance.md).

    .venv/bin/python -m bench.bench_phrases [--messages 50000]

The cost of PhraseMatcher.detect per message over a realistic mix, next to the crisis
detector's on the same messages (both run on free text; the crisis check always first):
80% ordinary chat messages from the evaluation and crisis corpora (most with no signal),
5% messages with a signal, 15% long journal-style entries of 800-4,096 characters.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from bot.content.loader import load_content

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"


def _eval(expected: str) -> list[str]:
    texts = []
    for line in (DATA / "phrases_eval.tsv").read_text(encoding="utf-8").splitlines():
        if line.startswith(("#", "part\t")) or not line.strip():
            continue
        fields = line.split("\t")
        if fields[3] == expected:
            texts.append(fields[4])
    return texts


def _crisis_negatives() -> list[str]:
    lines = (DATA / "crisis_must_not_trigger.txt").read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.strip() and not line.startswith("#")]


def realistic_mix(count: int, rng: random.Random, *, hard: bool) -> list[str]:
    """`hard`: the ordinary part drawn from the evaluation's negatives, which are dense in
    the very words the patterns look for; otherwise from the crisis corpus's ordinary
    messages (journal lines, chat), closer to what people send."""
    positives = _eval("1")
    ordinary = _eval("0") if hard else _crisis_negatives()
    mix = []
    for _ in range(count):
        roll = rng.random()
        if roll < 0.05:
            mix.append(rng.choice(positives))
        elif roll < 0.85:
            mix.append(rng.choice(ordinary))
        else:  # a long journal entry, up to Telegram's limit
            words: list[str] = []
            target = rng.randint(800, 4000)
            while sum(len(w) + 1 for w in words) < target:
                words.append(rng.choice(ordinary) + rng.choice([".", ",", "", "!"]))
            mix.append(" ".join(words)[:4096])
    return mix


def measure(name: str, run: Callable[[str], object], messages: list[str]) -> None:
    for text in messages[:2000]:  # warm up
        run(text)
    timings = []
    started = time.perf_counter()
    for text in messages:
        t0 = time.perf_counter_ns()
        run(text)
        timings.append(time.perf_counter_ns() - t0)
    total = time.perf_counter() - started
    raw = list(timings)
    timings.sort()
    short = [t for t, m in zip(raw, messages, strict=True) if len(m) < 300]
    p50 = timings[len(timings) // 2] / 1000
    p99 = timings[int(len(timings) * 0.99)] / 1000
    print(
        f"{name}: mean {total / len(messages) * 1e6:.1f} µs/message, p50 {p50:.1f} µs,"
        f" p99 {p99:.1f} µs, max {timings[-1] / 1000:.0f} µs;"
        f" messages under 300 characters: mean {statistics.fmean(short) / 1000:.1f} µs"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=50_000)
    args = parser.parse_args()
    content = load_content()
    for hard in (False, True):
        messages = realistic_mix(args.messages, random.Random(7), hard=hard)
        chars = sum(len(t) for t in messages) / len(messages)
        kind = "hard negatives" if hard else "ordinary messages"
        print(f"{len(messages)} messages, ordinary part from {kind}, mean {chars:.0f} characters")
        measure("  phrases", content.phrases.detect, messages)
        measure("  crisis ", content.detector.detect, messages)


if __name__ == "__main__":
    main()
