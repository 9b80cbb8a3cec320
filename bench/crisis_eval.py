"""Evaluate the crisis path (rules + model, as the bot runs them) on labelled messages.

    python bench/crisis_eval.py FILE.jsonl [FILE.jsonl ...] [--misses MISSES.tsv] [--json OUT]
        [--head HEAD.npz] [--cache DIR]

Each FILE holds one JSON object a line: text, lang (en es fr de it nl pt), region, label
crisis|calm, kind (danger_now threat strangulation sexual_violence child stalking suicide
overdose_self_harm suicide_indirect distress help calm), urgent (true: the emergency reply
is right; false with label crisis: a safety check is right), pass (who wrote it).

Every message goes through the bot's own detector (content/crisis_terms.yaml) and the
bot's own model (content/crisis_model/head.npz with the bundled encoder), combined exactly
as bot/features/crisis/handlers/crisis.py does: the rules' match stands, one step down
where the model's second opinion reads the text as calm with confidence (the emergency
reply a check, a check nothing); the model adds a check where the rules found nothing and
the emergency reply where it is confident on an urgent crisis and the rules only asked.
(The bot also gives a safety-plan answer a quiet line instead of a check; that depends on
the conversation's state, not on the words, and is not modelled.)

Printed, overall, per language and per kind, for rules + model and for the rules alone:
recall (the emergency reply or the check) on crisis messages, the emergency reply's share
on urgent ones, the emergency reply's and the check's shares on calm ones, and whether
the emergency reply was the right one for the kind (danger and threats: the danger reply
with the abuse line, never the suicide reply). --misses writes every miss (a crisis with
nothing, an urgent one with only a check, a wrong reply kind, a calm one flagged) as TSV.
--head judges another head file than the shipped one; --cache takes the encoder's vectors
from bench/crisis_train.py's cache where it has them (the same vectors, in seconds; the
model's time per message is then not measured).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.labelled import labelled_rows  # noqa: E402
from bot.content.loader import content_dir, load_content  # noqa: E402
from bot.features.crisis.screen import shared_model  # noqa: E402
from bot.matching.crisis import CrisisKind, CrisisMatch  # noqa: E402
from bot.matching.crisis_model import combined  # noqa: E402
from bot.matching.model_gate import MODEL_HEAD, temper  # noqa: E402

# The reply each kind of crisis needs, when the emergency reply is right.
RIGHT_REPLY = {
    "danger_now": {CrisisKind.DANGER},
    "threat": {CrisisKind.DANGER},
    "strangulation": {CrisisKind.DANGER},
    "child": {CrisisKind.DANGER},
    "stalking": {CrisisKind.DANGER, CrisisKind.GENERAL},
    "sexual_violence": {CrisisKind.SEXUAL_VIOLENCE, CrisisKind.DANGER},
    "suicide": {CrisisKind.SELF_HARM},
    "overdose_self_harm": {CrisisKind.SELF_HARM},
    "suicide_indirect": {CrisisKind.SELF_HARM, CrisisKind.GENERAL},
    "distress": set(CrisisKind),
    "help": set(CrisisKind),
}


def read(paths: list[Path]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path, _, row in labelled_rows(paths):
        row["lang"] = str(row.get("lang", "?"))
        row["kind"] = str(row.get("kind", "calm" if row["label"] == "calm" else "?"))
        row["urgent"] = bool(row.get("urgent", False))
        row["file"] = path.name
        rows.append(row)
    return rows


def right_kind(row: dict[str, Any], match: CrisisMatch | None) -> bool:
    """Whether an emergency reply (if one went out) was the right one for the kind: a
    threat never gets the suicide reply alone."""
    if match is None or not match.certain:
        return True
    wanted = RIGHT_REPLY.get(row["kind"], set(CrisisKind))
    return match.kind in wanted


def table(
    rows: list[dict[str, Any]], finals: list[CrisisMatch | None], by: str | None
) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        groups.setdefault("all" if by is None else str(row[by]), []).append(i)
    out: dict[str, dict[str, Any]] = {}
    for key, idx in sorted(groups.items()):
        crisis = [i for i in idx if rows[i]["label"] == "crisis"]
        urgent = [i for i in crisis if rows[i]["urgent"]]
        calm = [i for i in idx if rows[i]["label"] == "calm"]
        emergencies = [i for i in crisis if finals[i] is not None and finals[i].certain]  # type: ignore[union-attr]
        out[key] = {
            "crisis": len(crisis),
            "recall": _share(sum(finals[i] is not None for i in crisis), len(crisis)),
            "urgent": len(urgent),
            "emergency_on_urgent": _share(
                sum(finals[i] is not None and finals[i].certain for i in urgent),  # type: ignore[union-attr]
                len(urgent),
            ),
            "right_reply": _share(
                sum(right_kind(rows[i], finals[i]) for i in emergencies), len(emergencies)
            ),
            "calm": len(calm),
            "emergency_on_calm": _share(
                sum(finals[i] is not None and finals[i].certain for i in calm),  # type: ignore[union-attr]
                len(calm),
            ),
            "check_on_calm": _share(
                sum(finals[i] is not None and not finals[i].certain for i in calm),  # type: ignore[union-attr]
                len(calm),
            ),
        }
    return out


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _pct(value: float | None) -> str:
    return "    - " if value is None else f"{value:6.1%}"


def show(title: str, figures: dict[str, dict[str, Any]]) -> None:
    print(title)
    print(
        f"  {'':<20} {'crisis':>6} {'recall':>7} {'urgent':>6} {'emerg.':>7} {'right':>7}"
        f" {'calm':>5} {'emerg.':>7} {'check':>7}"
    )
    for key, f in figures.items():
        print(
            f"  {key:<20} {f['crisis']:>6} {_pct(f['recall'])} {f['urgent']:>6}"
            f" {_pct(f['emergency_on_urgent'])} {_pct(f['right_reply'])} {f['calm']:>5}"
            f" {_pct(f['emergency_on_calm'])} {_pct(f['check_on_calm'])}"
        )


def describe(match: CrisisMatch | None) -> str:
    if match is None:
        return "nothing"
    what = "emergency" if match.certain else "check"
    return f"{what}:{match.kind.value}:{match.category}"


def cached(encode: Any, path: Path) -> Any:
    """The encoder, answering from the training script's cache (keyed by the text's hash)
    where it can."""
    with np.load(path) as data:
        known = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))

    def lookup(texts: list[str]) -> Any:
        keys = [hashlib.sha256(t.encode()).hexdigest()[:32] for t in texts]
        missing = [t for t, k in zip(texts, keys, strict=True) if k not in known]
        if missing:
            for text, vector in zip(missing, encode(missing), strict=True):
                known[hashlib.sha256(text.encode()).hexdigest()[:32]] = vector
        return np.stack([known[k] for k in keys]).astype(np.float32)

    return lookup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--misses", type=Path, help="write every miss here (TSV)")
    parser.add_argument("--json", type=Path, help="write the figures here (JSON)")
    parser.add_argument("--rules-only", action="store_true", help="the rules alone")
    parser.add_argument("--head", type=Path, help="another head file than the shipped one")
    parser.add_argument("--cache", type=Path, help="bench/crisis_train.py's vector cache")
    args = parser.parse_args()

    rows = read(args.files)
    if not rows:
        sys.exit("no messages read")
    detector = load_content().detector
    head = args.head or content_dir() / MODEL_HEAD
    model = None if args.rules_only else shared_model(head)
    if model is None and not args.rules_only:
        sys.exit("the crisis model did not load (see the log line above)")
    if model is not None and model.encoder is not None and args.cache is not None:
        model.encoder = cached(model.encoder, args.cache / "e5-small-q4-query.npz")
    print(
        f"{len(rows)} messages from {len(args.files)} files:"
        f" {dict(Counter(r['label'] for r in rows))},"
        f" languages {dict(sorted(Counter(r['lang'] for r in rows).items()))}"
    )
    if model is not None:
        print(f"model: {model.views}, thresholds {model.head.thresholds}")

    rules: list[CrisisMatch | None] = []
    finals: list[CrisisMatch | None] = []
    spent: list[float] = []
    lowered = 0
    for row in rows:
        found = detector.detect(row["text"])
        rules.append(found)
        started = time.perf_counter()
        weighed = found
        if model is not None and found is not None:
            # The model's second opinion on the rules' emergency reply, as the bot asks it.
            weighed = model.second_opinion(row["text"], found, detector.detect)
            lowered += weighed is not found
        added = model.assess(row["text"], found) if model is not None else None
        added = temper(added, row["text"], detector.tempered)
        spent.append(time.perf_counter() - started)
        finals.append(combined(weighed, added))

    if model is not None:
        print(f"rules' replies the model's second opinion took one step down: {lowered}")
    figures = {
        "all": table(rows, finals, None),
        "lang": table(rows, finals, "lang"),
        "kind": table(rows, finals, "kind"),
    }
    show("rules + model" if model is not None else "rules alone", figures["all"])
    show("  per language", figures["lang"])
    show("  per kind", figures["kind"])
    if model is not None:
        rules_figures = {"all": table(rows, rules, None), "lang": table(rows, rules, "lang")}
        show("rules alone (for comparison)", rules_figures["all"])
        show("  per language", rules_figures["lang"])
        ordered = sorted(spent)
        p50 = ordered[len(ordered) // 2] * 1000
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000
        if args.cache is None:
            print(f"model time per message: p50 {p50:.1f} ms, p99 {p99:.1f} ms (this machine)")
        figures["rules_alone"] = rules_figures

    misses = []
    for row, final in zip(rows, finals, strict=True):
        if row["label"] == "crisis":
            if final is None:
                why = "missed"
            elif row["urgent"] and not final.certain:
                why = "check_only"
            elif not right_kind(row, final):
                why = "wrong_reply"
            else:
                continue
        elif final is not None:
            why = "false_emergency" if final.certain else "false_check"
        else:
            continue
        misses.append((why, row, final))
    print(f"misses: {Counter(why for why, _, _ in misses)}")
    if args.misses:
        with args.misses.open("w", encoding="utf-8") as out:
            out.write("why\tlang\tkind\turgent\tgot\tpass\ttext\n")
            for why, row, final in misses:
                text = " ".join(row["text"].split())
                out.write(
                    f"{why}\t{row['lang']}\t{row['kind']}\t{row['urgent']}\t{describe(final)}"
                    f"\t{row.get('pass', '')}\t{text}\n"
                )
        print(f"wrote {len(misses)} misses to {args.misses}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
