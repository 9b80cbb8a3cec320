"""What the crisis model costs on ordinary messages, and what a gate on its n-gram view
would save: `python bench/crisis_model_cost.py [--head HEAD.npz] [--gate-on DEV.jsonl ...]`.

The model reads every message of MIN_WORDS words or more that the rules did not answer with
certainty, so its cost falls on ordinary chat. Measured in CPU time (time.process_time, one
encoder thread as the bot runs it) per short ordinary message, for the n-gram view alone
(`CrisisModel.quick`) and for the whole score (encoder + n-grams), over the short calm lines
of the training pass train-T13 (everyday chat, three to twelve words).

--gate-on: for development files (--cache: their vectors from the training cache), the
lowest n-gram logit among crisis messages the full model flags, and how many calm messages
fall below gates under it (those would skip the encoder and lose nothing on that data).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.crisis_eval import cached  # noqa: E402
from bench.labelled import labelled_rows  # noqa: E402
from bot.content.loader import content_dir, load_content  # noqa: E402
from bot.matching.crisis_model import load_model  # noqa: E402
from bot.matching.model_gate import MODEL_HEAD, word_count  # noqa: E402

SHORT_CALM = ROOT / "content" / "crisis_model" / "data" / "train-T13.jsonl"


def cpu_per_call(fn: object, texts: list[str], rounds: int) -> list[float]:
    out = []
    for text in texts:
        started = time.process_time()
        for _ in range(rounds):
            fn(text)  # type: ignore[operator]
        out.append((time.process_time() - started) / rounds)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--head", type=Path, default=None)
    parser.add_argument("--gate-on", type=Path, nargs="*", default=[])
    parser.add_argument("--messages", type=int, default=200)
    parser.add_argument("--cache", type=Path, help="vectors for the gate's data (not timed)")
    args = parser.parse_args()
    model = load_model(args.head or content_dir() / MODEL_HEAD)
    texts = [
        row["text"]
        for _, _, row in labelled_rows([SHORT_CALM])
        if row["label"] == "calm" and 3 <= word_count(row["text"]) <= 12
    ][: args.messages]
    model.score(texts[0])  # warm up
    quick = cpu_per_call(model.quick, texts, 20)
    full = cpu_per_call(model.score, texts, 1)
    for name, values in (("n-grams only", quick), ("encoder + n-grams", full)):
        ordered = sorted(values)
        print(
            f"{name:<18} {len(values)} short calm messages: CPU per message mean "
            f"{statistics.mean(values) * 1000:.2f} ms, p50 {ordered[len(ordered) // 2] * 1000:.2f}"
            f" ms, p99 {ordered[int(len(ordered) * 0.99)] * 1000:.2f} ms"
        )
    if args.gate_on:
        if args.cache is not None and model.encoder is not None:
            model.encoder = cached(model.encoder, args.cache / "e5-small-q4-query.npz")
        detector = load_content().detector
        rows = [row for _, _, row in labelled_rows(args.gate_on)]
        flagged_crisis: list[float] = []
        calm_quick: list[float] = []
        for row in rows:
            rules = detector.detect(row["text"])
            if rules is not None and rules.certain:
                continue
            q = model.quick(row["text"])
            if row["label"] == "calm":
                calm_quick.append(q)
            elif model.assess(row["text"], rules) is not None:
                flagged_crisis.append(q)
        lowest = min(flagged_crisis)
        print(
            f"gate data: {len(rows)} messages; the lowest n-gram logit of a crisis the model "
            f"flags: {lowest:.2f}"
        )
        for gate in sorted({round(lowest - d, 2) for d in (0.0, 0.5, 1.0, 2.0)}):
            lost = sum(q < gate for q in flagged_crisis)
            skipped = sum(q < gate for q in calm_quick)
            print(
                f"  gate {gate:6.2f}: calm messages skipping the encoder {skipped}/"
                f"{len(calm_quick)} ({skipped / max(len(calm_quick), 1):.1%}), "
                f"flagged crises lost {lost}"
            )


if __name__ == "__main__":
    main()
