"""Crisis words: find them in any message, in any of our languages, before anything else runs.

The detector answers one question per message: does it contain a word or phrase from
content/crisis_terms.yaml, and of which kind. It runs on every message, caption and edit,
so it is pure, precompiled and linear in the length of the message.

Normalisation (`normalize`), applied the same way to terms and to messages:

1. Apostrophes in all their forms (' ’ ‘ ‛ ` ´ ʼ ʻ ′ ＇) become one mark. This happens
   first because NFKD would turn ´ into a space and a combining accent.
2. NFKD and case folding, then combining marks are dropped: "SOCORRO", "Urgência" and
   "urgencia" meet. Case folding turns ß into ss; letters NFKD leaves whole (œ, æ, ø, ł)
   are spelt out.
3. 🆘 reads as the word "sos". Zero-width characters and soft hyphens are deleted, so
   "help" pasted with an invisible break inside is still "help".
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
single words that are not "help" or "danger". Terms live in a trie keyed by whole words,
built once. A message costs a few linear passes (translate, collapse, split; the only
regular expressions match runs of one letter and cannot backtrack), one set test that
clears most messages outright, and otherwise one dict lookup per word plus a short walk
where a term starts; the number of terms does not change the cost.

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
- "sos" is also Rioplatense Spanish for "you are" ("vos sos") and Socorro is a given name;
  both trigger GENERAL. Accepted: "sos" and "socorro" are the words people reach for.
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
- Fear without a present threat ("I'm scared of him") is GENERAL, not DANGER. A threat
  or an act told in the past ("he choked me", "he threatened to kill me") is DANGER: after
  that, asking whether the person is safe now is the right next step.
- Phrases that carry the crisis meaning trigger even when the person meant something
  milder: "I hurt myself at the gym", "I could kill myself for forgetting", "I want to die
  of embarrassment", "suicide" in any sentence. Missing the real meaning costs more.
- Phrases whose words only line up across a clause boundary are written so they cannot:
  "in the end it all worked out" and "in the end my life got better" do not trigger, so the
  terms are "to end it all" and "to end my life", not "end it all" and "end my life".
  "I want to take my life back" does not trigger: the term is "take my own life".
- Bare numbers such as 911 or 112 are not terms (dates, prices, addresses); phrases are
  ("call 911"). Nor is "kms" (kill myself, but also kilometres).
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from bot.problems import Path, Problem


class CrisisKind(StrEnum):
    DANGER = "danger"
    SELF_HARM = "self_harm"
    SEXUAL_VIOLENCE = "sexual_violence"
    GENERAL = "general"


# Most urgent first: a message with a threat and a plea for help gets the danger reply.
_URGENCY = (CrisisKind.DANGER, CrisisKind.SELF_HARM, CrisisKind.GENERAL)


@dataclass(frozen=True)
class CrisisMatch:
    kind: CrisisKind
    kinds: frozenset[CrisisKind]


_APOSTROPHE = "'"
# Non-ASCII apostrophes (and the backtick) are replaced before NFKD, which would turn ´
# into a space and a combining accent.
_OTHER_APOSTROPHES = "’‘‛`´ʼʻ′＇"

# ASCII after case folding: letters and digits stay, "`" joins "'" as the apostrophe mark,
# everything else separates words.
_ASCII_TABLE = str.maketrans(
    {chr(code): " " for code in range(128) if not chr(code).isalnum() and chr(code) not in "'`"}
    | {"`": _APOSTROPHE}
)

# Letters NFKD leaves whole, spelt out so "sœur" and "soeur" meet (ß is casefold()'s job),
# and characters with a meaning of their own.
_SPECIAL = {
    "œ": "oe",
    "æ": "ae",
    "ø": "o",
    "ł": "l",
    "đ": "d",
    "ð": "d",
    "þ": "th",
    "ı": "i",
    "\U0001f198": " sos ",  # the SOS emoji
    # Invisible characters that can sit inside a word.
    "\u00ad": "",
    "\u200b": "",
    "\u200c": "",
    "\u200d": "",
    "\u2060": "",
    "\ufeff": "",
}
_TABLE_LIMIT = 20_000


class _FoldTable(dict[int, str]):
    """What each character becomes after NFKD, filled in as characters are first seen.

    Keyed by code point, never by words, so it holds nothing of what people wrote; the size
    limit only guards against a flood of distinct characters.
    """

    def __missing__(self, code: int) -> str:
        char = chr(code)
        if char in _SPECIAL:
            value = _SPECIAL[char]
        elif char == _APOSTROPHE or char.isalnum():
            value = char
        elif unicodedata.combining(char):
            value = ""
        else:
            value = " "
        if len(self) < _TABLE_LIMIT:
            self[code] = value
        return value


_FOLD_TABLE = _FoldTable()

# Runs of a repeated letter. For ASCII text one substring test per letter is several times
# cheaper than a regular expression tried at every position; a run of three or more then
# needs the per-letter pattern. Both are linear.
_ASCII_RUNS = tuple(
    (letter * 2, re.compile(letter + "{2,}"), letter) for letter in "abcdefghijklmnopqrstuvwxyz"
)
# A letter is a word character that is neither a digit nor "_".
_REPEATED_LETTER = re.compile(r"([^\W\d_])\1+")


def _fold(text: str) -> str:
    """Case, accents, ligatures, separators; apostrophes kept as one mark for later."""
    if text.isascii():
        return text.casefold().translate(_ASCII_TABLE)
    for mark in _OTHER_APOSTROPHES:
        if mark in text:
            text = text.replace(mark, _APOSTROPHE)
    # NFKD on both sides of casefold(): compatibility forms such as 𝐇 only become a
    # foldable "H" after NFKD, and folding can yield letters that decompose again.
    folded = unicodedata.normalize("NFKD", text).casefold()
    return unicodedata.normalize("NFKD", folded).translate(_FOLD_TABLE)


def _collapse(text: str) -> str:
    if not text.isascii():
        return _REPEATED_LETTER.sub(r"\1", text)
    for pair, run, letter in _ASCII_RUNS:
        if pair in text:
            text = text.replace(pair, letter)
            if pair in text:
                text = run.sub(letter, text)
    return text


def _forms(text: str) -> list[list[str]]:
    """The word sequences a text can be read as: apostrophes joining, then separating."""
    collapsed = _collapse(_fold(text))
    if _APOSTROPHE not in collapsed:
        return [collapsed.split()]
    pieces = collapsed.split(_APOSTROPHE)
    joined_text = "".join(pieces)
    # Joining makes a new run where the same letter stands on both sides of an apostrophe
    # ("i'll" collapses to "i'l", which joins to "il"); only then is a second pass needed.
    ends = [piece for piece in pieces if piece]
    if any(a[-1] == b[0] and a[-1].isalpha() for a, b in itertools.pairwise(ends)):
        joined_text = _collapse(joined_text)
    joined = joined_text.split()
    split = " ".join(pieces).split()
    return [joined] if split == joined else [joined, split]


def normalize(text: str) -> str:
    """The canonical form terms and messages are compared in: words joined by single spaces."""
    return " ".join(_forms(text)[0])


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
            # Most messages share no word with the first words of any term: one set
            # operation in C settles them.
            if root.keys().isdisjoint(words):
                continue
            end = len(words)
            for start in [i for i, word in enumerate(words) if word in root]:
                node: _Node | None = root[words[start]]
                position = start + 1
                while node is not None:
                    found |= node.kinds
                    if position == end:
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
        if isinstance(language, bool):
            problems.append(
                Problem((str(language),), "quote the code: YAML reads a bare no or on as a boolean")
            )
        elif not isinstance(language, str) or not _LANGUAGE.fullmatch(language):
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
