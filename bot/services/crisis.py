"""Crisis words: find them in any message, in any of our languages, before anything else runs.

The detector answers one question per message: does it contain a word or phrase from
content/crisis_terms.yaml, and of which kind. It runs on every message, caption and edit,
so it is pure, precompiled and linear in the length of the message.

Normalisation (`normalize`), applied the same way to terms and to messages:

1. Apostrophes in all their forms (' ’ ‘ ‛ ` ´ ʼ ʻ ′ ＇) become one mark. This happens
   first because NFKD would turn ´ into a space and a combining accent.
2. Case folding, then NFKD, then combining marks are dropped: "SOCORRO", "Urgência" and
   "urgencia" meet. Ligatures NFKD leaves alone (œ, æ, ø, ł, ß) are spelt out.
3. 🆘 reads as the word "sos". Zero-width characters and soft hyphens are deleted, so a
   pasted "he\u00adlp" is still "help".
4. Anything that is not a letter or a digit separates words: punctuation, emoji, hyphens
   ("self-harm" is "self harm"), underscores.
5. A run of one repeated letter collapses to one letter ("heeelp", "hellllp" -> "help").
   This is done to terms too, so "kill" is stored as "kil" and "kiiill", "kill" and the
   typo "kil" all match it, while "killed" or "skill" stay different words. The cost is
   that words differing only in doubled letters meet ("socorro" and "socoro", "off" and
   "of", "nood" and "nod"): no term may collapse onto an ordinary word of another language,
   which is why the Dutch list says "noodgeval" and never a bare "nood". Digits are left
   alone.

An apostrophe can join ("he's" is one word, typed "hes" by many) or separate (the French
"d'aide" is "de" + "aide"). The canonical form joins; a message that contains an apostrophe
is also read with the apostrophe as a space, and every term is stored in both forms, so
"he's outside", "he’s outside", "hes outside" and "besoin d'aide" all find their term.

Matching is on whole words: a term is a sequence of normalised words, and a message matches
when that exact sequence occurs in it. "helpful", "unhelpful", "helper", "dangerously" are
single words that are not "help" or "danger". Words are found with one linear regular
expression with no nested repetition, then walked through a trie keyed by word, so the cost
is one dict lookup per word plus a short walk where a term starts (terms are a few words
long), whatever the number of terms.

All languages are matched at once: people switch languages, and the person's setting may
not be the language they are writing in. That is why a term must not collide with an
ordinary word of another language after normalisation.

Borderline cases, decided:

- A sentence that contains the word "help" triggers GENERAL: "thanks for the help",
  "help me understand the worksheet", "I help my sister on Sundays". The general reply is
  gentle and also points to /guide, so asking is cheap; missing a real request is not.
  "this was helpful", "unhelpful comments", "I helped my sister move", "helpline",
  "helper" do not trigger. "self-help" does (the hyphen separates), accepted.
- The same goes for a bare "emergency", "hilfe", "ayuda", "ajuda", "aiuto", "hulp":
  "emergency fund" triggers GENERAL. Accepted for now; the handler is the place to avoid
  repeating the general reply.
- French "aide" is not a bare term: after accents are stripped it is also "aidé"
  ("j'ai aidé ma sœur", I helped my sister). French help is "à l'aide", "aidez-moi",
  "besoin d'aide", "au secours". Likewise bare "secours" ("premiers secours") is out.
- "danger" and "unsafe" alone trigger DANGER ("I'm in danger", "I feel unsafe");
  "dangerously tired", "dangerous roads" do not.
- "Not sure" collides with "not safe" in Spanish, Italian, German and Portuguese
  ("no estoy segura", "non sono sicura", "ich bin nicht sicher"), so those languages use
  "a salvo", "al sicuro", "zu Hause nicht sicher", "em segurança" instead.
- Idioms that never say the crisis words do not trigger: "dying to see the show", "the film
  killed it", "my feet are killing me", "this homework is going to kill me", "dead tired",
  "to die for", "me muero de ganas", "das bringt mich um". Threats name a person
  ("he's going to kill me", "my ex is outside"), so "she's going to kill me when she sees
  the mess" does trigger DANGER: for people leaving an abusive relationship the cost of
  asking "are you safe?" once too often is small.
- Phrases that carry the crisis meaning trigger even when the person meant something
  milder: "I hurt myself at the gym", "I could kill myself for forgetting", "I want to die
  of embarrassment", "suicide" in any sentence. Missing the real meaning costs more.
- Phrases whose words only line up across a clause boundary are written so they cannot:
  "in the end it all worked out" and "in the end my life got better" do not trigger, so the
  terms are "to end it all" and "to end my life", not "end it all" and "end my life".
  "I want to take my life back" does not trigger: the term is "take my own life".
- Numbers such as 911 or 112 are not terms (dates, prices, addresses), nor is "kms"
  (kilometres).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from bot.problems import Path, Problem


class CrisisKind(StrEnum):
    DANGER = "danger"
    SELF_HARM = "self_harm"
    GENERAL = "general"


# Most urgent first: a message with a threat and a plea for help gets the danger reply.
_URGENCY = (CrisisKind.DANGER, CrisisKind.SELF_HARM, CrisisKind.GENERAL)


@dataclass(frozen=True)
class CrisisMatch:
    kind: CrisisKind
    kinds: frozenset[CrisisKind]


_APOSTROPHE = "'"
_APOSTROPHES = str.maketrans(dict.fromkeys("'’‘‛`´ʼʻ′＇", _APOSTROPHE))
# Letters NFKD does not decompose; spelt out so "sœur" and "soeur" meet. ß is handled by
# casefold() before this table is applied.
_SPELL_OUT = str.maketrans(
    {
        "œ": "oe",
        "æ": "ae",
        "ø": "o",
        "ł": "l",
        "đ": "d",
        "ð": "d",
        "þ": "th",
        "ı": "i",
        "\U0001f198": " sos ",
        "\u00ad": None,
        "\u200b": None,
        "\u200c": None,
        "\u200d": None,
        "\u2060": None,
        "\ufeff": None,
    }
)
# A letter is a word character that is neither a digit nor "_"; only letters collapse.
_REPEATED_LETTER = re.compile(r"([^\W\d_])\1+")
_WORD = re.compile(r"[^\W_]+")


def _fold(text: str) -> str:
    """Case, accents, ligatures and invisible characters; apostrophes kept as one mark."""
    folded = text.translate(_APOSTROPHES).casefold()
    if not folded.isascii():
        folded = unicodedata.normalize("NFKD", folded)
        folded = "".join(c for c in folded if not unicodedata.combining(c))
        folded = folded.translate(_SPELL_OUT)
    return folded


def _words(folded: str, *, split_apostrophes: bool) -> list[str]:
    joined = folded.replace(_APOSTROPHE, " " if split_apostrophes else "")
    return _WORD.findall(_REPEATED_LETTER.sub(r"\1", joined))


def normalize(text: str) -> str:
    """The canonical form terms and messages are compared in: words joined by single spaces."""
    return " ".join(_words(_fold(text), split_apostrophes=False))


def _forms(text: str) -> list[tuple[str, ...]]:
    """The word sequences a text can be read as: apostrophes joining, then separating."""
    folded = _fold(text)
    joined = tuple(_words(folded, split_apostrophes=False))
    if _APOSTROPHE not in folded:
        return [joined]
    split = tuple(_words(folded, split_apostrophes=True))
    return [joined] if split == joined else [joined, split]


class _Node:
    __slots__ = ("children", "kinds")

    def __init__(self) -> None:
        self.children: dict[str, _Node] = {}
        self.kinds: set[CrisisKind] = set()


class CrisisDetector:
    def __init__(self, entries: Iterable[tuple[CrisisKind, str]]) -> None:
        self._root = _Node()
        for kind, entry in entries:
            for words in _forms(entry):
                if not words:
                    continue
                node = self._root
                for word in words:
                    node = node.children.setdefault(word, _Node())
                node.kinds.add(kind)

    @classmethod
    def from_terms(cls, terms: Mapping[str, Mapping[str, Sequence[str]]]) -> CrisisDetector:
        """Build from the YAML's shape: language -> kind -> entries. Validate first."""
        entries: list[tuple[CrisisKind, str]] = []
        for by_kind in terms.values():
            for kind_name, phrases in by_kind.items():
                kind = CrisisKind(kind_name)
                if isinstance(phrases, str):
                    raise TypeError(f"{kind_name}: expected a list of terms, got one string")
                entries.extend((kind, phrase) for phrase in phrases)
        return cls(entries)

    def detect(self, text: str) -> CrisisMatch | None:
        found: set[CrisisKind] = set()
        root = self._root.children
        for words in _forms(text):
            for start, word in enumerate(words):
                node = root.get(word)
                position = start + 1
                while node is not None:
                    found |= node.kinds
                    if position == len(words):
                        break
                    node = node.children.get(words[position])
                    position += 1
        if not found:
            return None
        kind = next(k for k in _URGENCY if k in found)
        return CrisisMatch(kind=kind, kinds=frozenset(found))


_LANGUAGE = re.compile(r"[a-z]{2}")
_KIND_NAMES = frozenset(k.value for k in CrisisKind)


def validate_terms(raw: object) -> list[Problem]:
    """Every problem in a parsed crisis-terms document; [] means `from_terms` is safe."""
    if not isinstance(raw, Mapping):
        return [Problem((), "the file must be a mapping from language code to kinds")]
    known = ", ".join(k.value for k in CrisisKind)
    problems: list[Problem] = []
    for language, by_kind in raw.items():
        if not isinstance(language, str) or not _LANGUAGE.fullmatch(language):
            problems.append(
                Problem((str(language),), "use a two-letter ISO 639-1 code in lower case")
            )
        if not isinstance(by_kind, Mapping) or not by_kind:
            problems.append(Problem((str(language),), f"must map kinds ({known}) to lists"))
            continue
        # Within one language a phrase means one thing; the same normalised phrase twice is
        # a copy, or a contradiction when the kinds differ.
        seen: dict[str, Path] = {}
        for kind, phrases in by_kind.items():
            kind_path: Path = (str(language), str(kind))
            if kind not in _KIND_NAMES:
                problems.append(Problem(kind_path, f"unknown kind; use one of: {known}"))
            if not isinstance(phrases, list):
                problems.append(Problem(kind_path, "must be a list of words or phrases"))
                continue
            for index, phrase in enumerate(phrases):
                path: Path = (*kind_path, index)
                if not isinstance(phrase, str) or not phrase.strip():
                    problems.append(Problem(path, "must be a non-empty word or phrase"))
                    continue
                canonical = normalize(phrase)
                if not canonical:
                    problems.append(Problem(path, f"{phrase!r} has no letters or digits to match"))
                    continue
                first = seen.get(canonical)
                if first is not None:
                    where = ".".join(str(p) for p in first)
                    problems.append(Problem(path, f"{phrase!r} duplicates {where} once normalised"))
                else:
                    seen[canonical] = path
    return problems
