"""Compare candidate heads on the same footing: `python bench/crisis_compare.py LEFT_OUT.jsonl ...`

Each candidate is fitted on the training passes (content/crisis_model/data), given its
thresholds on the development sets (content/crisis_model/dev, rules in front, the bot's
word-count rules, bench/crisis_train.py's budgets), and then judged on the LEFT_OUT files:
whole writers in no training or development file (the spent sets). Nothing about a left-out
file is used to fit or to choose a threshold. Printed per candidate: the development and
left-out figures (recall, emergency on urgent, emergency and check on calm), per left-out
file and pooled, and the kinds that call for a check. --heads DIR writes each candidate's
head there, to judge again with bench/crisis_eval.py --head.

Candidates: logistic heads on both views (mixes of the views), the encoder view's MLP
(`--mlp`), and the MLP and the logistic heads averaged on the encoder view (one view: the
logistic heads as the MLP's skip connection); each with one check threshold or with a check
threshold of its own for findings read as not urgent.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import crisis_train as ct  # noqa: E402
from bot.matching.crisis import CrisisDetector  # noqa: E402
from bot.matching.crisis_model import (  # noqa: E402
    _BUCKETS_DEFAULT,
    CrisisModel,
    Head,
    Thresholds,
    View,
    combined,
)
from bot.matching.model_gate import word_count  # noqa: E402

CHECK_KINDS = ("distress", "suicide_indirect", "stalking")


def averaged(lr: View, mlp: View, share: float) -> View:
    """The encoder view's logistic heads and its MLP, logits averaged (`share` for the MLP),
    as one view: the logistic weights ride as the MLP's skip connection."""
    return View(
        mlp.weights * share,
        mlp.bias * share + lr.bias * (1.0 - share),
        mlp.hidden_w,
        mlp.hidden_b,
        lr.weights * (1.0 - share),
    )


def evaluate(
    model: CrisisModel, rows: list[dict[str, Any]], rules: list[Any], findings: list[Any]
) -> list[Any]:
    return [
        combined(rule, model.assess_counted(finding, rule, word_count(row["text"])))
        for row, rule, finding in zip(rows, rules, findings, strict=True)
    ]


def line(name: str, f: dict[str, Any]) -> str:
    return (
        f"{name:<10} recall {f['recall']:6.1%}  emerg/urgent {f['emergency_on_urgent']:6.1%}  "
        f"emerg/calm {f['emergency_on_calm']:5.1%}  check/calm {f['check_on_calm']:5.1%}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("left_out", nargs="+", type=Path)
    parser.add_argument("--cache", type=Path, default=ct.CACHE)
    parser.add_argument("--heads", type=Path, help="write each candidate's head here")
    parser.add_argument("--mlp", type=int, default=256)
    parser.add_argument("--data", type=Path, default=ct.DATA)
    parser.add_argument("--dev", type=Path, default=ct.DEV)
    parser.add_argument("--only", default="", help="comma-separated candidate names")
    args = parser.parse_args()

    left = {path.stem: ct.load_jsonl([path]) for path in args.left_out}
    # The shipped head is also trained on the spent sets (content/crisis_model/data/spent-*):
    # a writer judged here is taken out of the training data, whole.
    left_passes = {r["pass"] for v in left.values() for r in v}
    left_texts = {" ".join(r["text"].lower().split()) for v in left.values() for r in v}
    rows = [
        r
        for r in ct.dedupe(ct.load_jsonl(sorted(args.data.glob("*.jsonl"))))
        if r["pass"] not in left_passes and " ".join(r["text"].lower().split()) not in left_texts
    ]
    dev_rows = ct.load_jsonl(sorted(args.dev.glob("*.jsonl")))
    print(f"training {len(rows)}, development {len(dev_rows)}, left out", end="")
    print(", ".join(f" {k} {len(v)}" for k, v in left.items()))
    detector = CrisisDetector.from_terms(
        yaml.safe_load((ROOT / "content" / "crisis_terms.yaml").read_text(encoding="utf-8"))
    )
    embed = ct.Embeddings(args.cache)
    dev_rules = [detector.detect(r["text"]) for r in dev_rows]
    left_rules = {k: [detector.detect(r["text"]) for r in v] for k, v in left.items()}

    texts = [r["text"] for r in rows]
    started = time.perf_counter()
    vectors = embed(texts)
    enc_lr = ct.fit_view(vectors, rows, ct.ENCODER_C)
    print(f"encoder logistic heads fitted in {time.perf_counter() - started:.0f} s", flush=True)
    started = time.perf_counter()
    chars = ct.fit_view(ct.char_matrix(texts, _BUCKETS_DEFAULT), rows, ct.CHARS_C)
    print(f"n-gram heads fitted in {time.perf_counter() - started:.0f} s", flush=True)
    started = time.perf_counter()
    enc_mlp = ct.fit_mlp_view(vectors, rows, args.mlp) if args.mlp else None
    print(f"MLP fitted in {time.perf_counter() - started:.0f} s", flush=True)
    embed.save()

    candidates: dict[str, tuple[View, float]] = {
        "lr-0.5": (enc_lr, 0.5),
        "lr-0.6": (enc_lr, 0.6),
        "lr-0.4": (enc_lr, 0.4),
    }
    if enc_mlp is not None:
        candidates |= {
            "mlp-0.5": (enc_mlp, 0.5),
            "mlp-0.75": (enc_mlp, 0.75),
            "avg-0.5": (averaged(enc_lr, enc_mlp, 0.5), 0.5),
            "avg-0.6": (averaged(enc_lr, enc_mlp, 0.5), 0.6),
        }
    if args.only:
        keep = set(args.only.split(","))
        candidates = {k: v for k, v in candidates.items() if k in keep}
    provisional = Thresholds(check=0.5, emergency=0.9, urgent=0.5, second_kind=0.3)
    for name, (view, mix) in candidates.items():
        about = {"view_weights": {"encoder": mix, "chars": round(1 - mix, 4)}}
        head = Head(view, chars, _BUCKETS_DEFAULT, provisional, about)
        model = CrisisModel(head, embed)
        dev_found = [model.score(r["text"]) for r in dev_rows]
        left_found = {k: [model.score(r["text"]) for r in v] for k, v in left.items()}
        # One check threshold for every kind (as the third pass chose), and one of its own.
        one = ct.choose_thresholds(dev_found, dev_rows, dev_rules, split=False)
        two = ct.choose_thresholds(dev_found, dev_rows, dev_rules)
        for label, t in (("one check", one), ("", two)):
            judged = CrisisModel(dataclasses.replace(head, thresholds=t), embed)
            print(f"\n== {name} {label or 'check of its own'}: {t}")
            finals = evaluate(judged, dev_rows, dev_rules, dev_found)
            print("  " + line("dev", ct.figures(dev_rows, finals)["all"]))
            pooled_rows: list[dict[str, Any]] = []
            pooled: list[Any] = []
            for k, v in left.items():
                out = evaluate(judged, v, left_rules[k], left_found[k])
                pooled_rows += v
                pooled += out
                print("  " + line(k, ct.figures(v, out)["all"]))
            print("  " + line("left out", ct.figures(pooled_rows, pooled)["all"]))
            kinds = ct.figures(pooled_rows, pooled, "kind")
            langs = ct.figures(pooled_rows, pooled, "lang")
            print(
                "  left out, kinds: "
                + ", ".join(f"{k} {kinds[k]['recall']:.1%}" for k in CHECK_KINDS if k in kinds)
                + f", suicide {kinds['suicide']['recall']:.1%}"
                + f" ({kinds['suicide']['emergency_on_urgent']:.1%})"
            )
            print(
                "  left out, langs: "
                + ", ".join(
                    f"{k} {f['recall']:.1%}/{f['emergency_on_urgent']:.1%}"
                    f"/{f['emergency_on_calm']:.1%}/{f['check_on_calm']:.1%}"
                    for k, f in langs.items()
                )
            )
            if args.heads and not label:
                args.heads.mkdir(parents=True, exist_ok=True)
                about_t = about | {
                    "buckets": _BUCKETS_DEFAULT,
                    "thresholds": t.__dict__,
                    "mlp_hidden": args.mlp if "lr" not in name else 0,
                }
                ct.save(Head(view, chars, _BUCKETS_DEFAULT, t, about_t), args.heads / f"{name}.npz")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
