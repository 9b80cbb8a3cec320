"""How phrase patterns are compiled and matched (bot/content/phrases.py says what they
mean and what counts as a hit): tokens with stems, alternatives, optional words and gaps;
one typo on long words; the cancel words that read negation and other people's words."""

from __future__ import annotations

import dataclasses
import re
import string
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from bot.matching.crisis import normalize

GAP = 3  # words a "..." may stand for
BEFORE = 5  # words before a match in which a `before` word cancels it
AFTER = 3  # words after a match in which an `after` word cancels it
NEAR_BEFORE = 2  # words before a match in which a `near` word cancels it
NEAR_AFTER = 4  # and after it
TYPO_LENGTH = 7  # normalised words this long tolerate one typo
KEY_LENGTH = 4  # the prefilter compares this many first letters
STEM_LENGTH = 4  # a stem shorter than this would match too many words

# Punctuation that ends a clause becomes a word of its own that `normalize` keeps (digits
# survive it) and that no pattern contains. A person typing it only splits a clause.
BREAK = "0000"
_CLAUSE_MARKS = ".,;:!?¿¡…()[]{}\n\r\t—–"
# One character class, so the substitution cannot backtrack; several times cheaper than
# str.translate, which loses its fast path when one character becomes several.
CLAUSE = re.compile("[" + re.escape(_CLAUSE_MARKS) + "]")
CLAUSE_WORD = f" {BREAK} "
# German puts a comma before every "dass" and "ob": the clause they open belongs to the one
# before ("ich glaube nicht, dass ich übertrieben habe").
JOINERS = frozenset({normalize("dass"), "ob"})
_GAP_TOKEN = "..."  # noqa: S105 - pattern syntax, not a secret
_LETTERS = string.ascii_lowercase


@dataclass(frozen=True)
class PhraseHit:
    """Which pattern made a signal fire: for tests and for authors, never logged with text."""

    signal: str
    language: str
    pattern: str


@dataclass(frozen=True)
class _Token:
    words: frozenset[str]
    stems: tuple[str, ...]
    optional: bool
    gap: int  # other words allowed before this token
    typo_words: tuple[str, ...] = ()
    typo_stems: tuple[str, ...] = ()

    def matches(self, word: str) -> bool:
        if word in self.words:
            return True
        for stem in self.stems:
            if word.startswith(stem):
                return True
        if len(word) >= TYPO_LENGTH - 1:
            for target in self.typo_words:
                if one_edit(word, target):
                    return True
            for stem in self.typo_stems:
                if prefix_one_edit(word, stem):
                    return True
        return False

    def alternatives(self) -> list[str]:
        return [*self.words, *self.stems]


@dataclass(frozen=True)
class Cancel:
    before_words: frozenset[str] = frozenset()
    before_stems: tuple[str, ...] = ()
    after_words: frozenset[str] = frozenset()
    after_stems: tuple[str, ...] = ()
    near_words: frozenset[str] = frozenset()
    near_stems: tuple[str, ...] = ()

    def before(self, word: str) -> bool:
        return word in self.before_words or word.startswith(self.before_stems)

    def after(self, word: str) -> bool:
        return word in self.after_words or word.startswith(self.after_stems)

    def near(self, word: str) -> bool:
        return word in self.near_words or word.startswith(self.near_stems)


@dataclass(frozen=True)
class Pattern:
    signal: str
    language: str
    source: str
    tokens: tuple[_Token, ...]
    at_start: bool
    at_end: bool
    anchor: int
    reach: int  # how many words before the anchor the pattern can start
    cancel: Cancel = field(compare=False)


def one_edit(word: str, target: str, *, ending: bool = True) -> bool:
    """At most one insertion, deletion, substitution or swap of neighbours apart.

    With `ending`, `target` is a whole word whose last two letters must be as written.
    """
    if word == target:
        return True
    size, other = len(word), len(target)
    if abs(size - other) > 1:
        return False
    i = 0
    limit = min(size, other)
    while i < limit and word[i] == target[i]:
        i += 1
    # The first letter and the last two are taken as written: endings carry person and
    # tense ("extraño", "extraña"), and there the languages differ ("exagere", "exagerei").
    if i == 0 or (ending and i >= other - 2):
        return False
    if size == other:
        if word[i + 1 :] == target[i + 1 :]:
            return True
        return (
            i + 1 < size
            and word[i] == target[i + 1]
            and word[i + 1] == target[i]
            and word[i + 2 :] == target[i + 2 :]
        )
    if size > other:
        return word[i + 1 :] == target[i:]
    return word[i:] == target[i + 1 :]


def prefix_one_edit(word: str, stem: str) -> bool:
    size = len(stem)
    return any(one_edit(word[:cut], stem, ending=False) for cut in (size - 1, size, size + 1))


def typo_keys(word: str) -> set[str]:
    """The first KEY_LENGTH letters of every word one typo away from `word`."""
    head = word[: KEY_LENGTH + 1]
    variants = {head}
    for i in range(1, len(head)):  # the first letter is taken as written
        variants.add(head[:i] + head[i + 1 :])
        for letter in _LETTERS:
            variants.add(head[:i] + letter + head[i + 1 :])
            variants.add(head[:i] + letter + head[i:])
        if i + 1 < len(head):
            variants.add(head[:i] + head[i + 1] + head[i] + head[i + 2 :])
    return {variant[:KEY_LENGTH] for variant in variants}


# --- parsing patterns -----------------------------------------------------------------------


def _parse_alternatives(text: str) -> tuple[list[str], list[str], str | None]:
    """Words and stems of one token such as `miss|misses|overreact*`; or a problem."""
    words: list[str] = []
    stems: list[str] = []
    for alternative in text.split("|"):
        is_stem = alternative.endswith("*")
        core = normalize(alternative[:-1] if is_stem else alternative)
        if not core or " " in core or "*" in core:
            return [], [], f"{alternative!r} must be one word (or one stem ending in *)"
        if is_stem:
            if len(core) < STEM_LENGTH:
                return [], [], f"stem {alternative!r} needs at least {STEM_LENGTH} letters"
            stems.append(core)
        else:
            words.append(core)
    return words, stems, None


def variants(pattern: str) -> list[list[str]]:
    """Token texts of a pattern: as written, and with apostrophes in plain words as spaces."""
    raw = pattern.replace("’", "'").split()
    joined = raw
    split: list[str] = []
    for token in raw:
        if "'" in token and not any(mark in token for mark in "|*?"):
            split.extend(part for part in token.split("'") if part)
        else:
            split.append(token)
    return [joined] if split == joined else [joined, split]


def compile_tokens(texts: list[str]) -> tuple[tuple[_Token, ...], bool, bool] | str:
    at_start = bool(texts) and texts[0] == "^"
    at_end = bool(texts) and texts[-1] == "$"
    body = texts[int(at_start) : len(texts) - int(at_end)]
    tokens: list[_Token] = []
    gap = 0
    for text in body:
        if text == _GAP_TOKEN:
            if not tokens or gap:
                return "'...' must stand between two tokens"
            gap = GAP
            continue
        if text in ("^", "$"):
            return "'^' may only come first and '$' only last"
        optional = text.endswith("?")
        core = text[:-1] if optional else text
        if "|" in core or "*" in core or optional:
            words, stems, problem = _parse_alternatives(core)
            if problem:
                return problem
            pieces = [(words, stems)]
        else:
            # A plain word may normalise to several ("self-doubt" is "self doubt").
            normal = normalize(core)
            if not normal:
                return f"{core!r} has no letters or digits to match"
            pieces = [([w], []) for w in normal.split()]
        for words, stems in pieces:
            long_words = tuple(w for w in words if len(w) >= TYPO_LENGTH)
            long_stems = tuple(s for s in stems if len(s) >= TYPO_LENGTH)
            tokens.append(
                _Token(frozenset(words), tuple(stems), optional, gap, long_words, long_stems)
            )
            gap = 0
    if gap:
        return "'...' must stand between two tokens"
    if not any(not t.optional for t in tokens):
        return "needs at least one word that is not optional"
    return tuple(tokens), at_start, at_end


def anchored(pattern: Pattern, shared: Counter[str]) -> Pattern:
    """The pattern with its anchor: the required token least likely in ordinary text.

    Short words are everywhere: the token whose shortest alternative is longest wins, and
    among those the one fewer patterns share ("him", "niet" and "para" are in many).
    """
    tokens = pattern.tokens

    def cost(index: int) -> tuple[int, int, int]:
        alternatives = tokens[index].alternatives()
        shortest = min(len(a) for a in alternatives)
        return (-shortest, max(shared[a] for a in alternatives), index)

    anchor = min((i for i, t in enumerate(tokens) if not t.optional), key=cost)
    reach = sum(1 + t.gap for t in tokens[:anchor]) + tokens[anchor].gap
    return dataclasses.replace(pattern, anchor=anchor, reach=reach)


def compile_pattern(signal: str, language: str, source: str, cancel: Cancel) -> list[Pattern]:
    patterns = []
    for texts in variants(source):
        compiled = compile_tokens(texts)
        if isinstance(compiled, str):
            raise ValueError(f"{signal}.{language}: {source!r}: {compiled}")  # noqa: TRY004
        tokens, at_start, at_end = compiled
        # The anchor is chosen once all patterns are known (PhraseMatcher).
        patterns.append(Pattern(signal, language, source, tokens, at_start, at_end, 0, 0, cancel))
    return patterns


def cancels(raw: Mapping[str, Mapping[str, Iterable[str]]]) -> dict[str, Cancel]:
    """Each language's lists, joined by every other language's minus its `ordinary` words.

    Patterns of all languages run on every message, and a Spanish pattern may match French
    text ("exagéré" is both); the French negation around it must still cancel it. A word
    that is a cancel word in one language and an everyday word in another (Portuguese "no",
    "in the"; Dutch "dit", "this") is listed as `ordinary` there and not borrowed.
    """

    def split(entries: Iterable[str]) -> tuple[set[str], set[str]]:
        entries = list(entries)
        words = {normalize(e) for e in entries if not e.endswith("*")}
        stems = {normalize(e[:-1]) for e in entries if e.endswith("*")}
        return words, stems

    kinds = ("before", "after", "near")
    own = {
        language: {kind: split(lists.get(kind, ())) for kind in kinds}
        for language, lists in raw.items()
    }
    result: dict[str, Cancel] = {}
    for language, lists in raw.items():
        ordinary = {normalize(e) for e in lists.get("ordinary", ())}
        joined: list[frozenset[str] | tuple[str, ...]] = []
        for kind in kinds:
            words, stems = set(own[language][kind][0]), set(own[language][kind][1])
            for other, other_lists in own.items():
                if other != language:
                    words |= other_lists[kind][0] - ordinary
                    stems |= {
                        stem
                        for stem in other_lists[kind][1]
                        if not any(word.startswith(stem) for word in ordinary)
                    }
            joined += [frozenset(words), tuple(sorted(stems))]
        result[language] = Cancel(*joined)  # type: ignore[arg-type]
    return result


# --- matching -------------------------------------------------------------------------------


def match_at(pattern: Pattern, words: list[str], start: int, end: int) -> list[int] | None:
    """Positions of the matched tokens when the pattern matches from `start`, else None."""
    tokens = pattern.tokens
    count = len(tokens)
    positions: list[int] = []

    def walk(index: int, position: int) -> bool:
        if index == count:
            return not pattern.at_end or position == end
        token = tokens[index]
        for offset in range(token.gap + 1 if positions else 1):
            at = position + offset
            if at >= end:
                break
            if token.matches(words[at]):
                positions.append(at)
                if walk(index + 1, at + 1):
                    return True
                positions.pop()
        return token.optional and walk(index + 1, position)

    return positions if walk(0, start) and positions else None


def cancelled(cancel: Cancel, words: list[str], positions: list[int], start: int, end: int) -> bool:
    first, last = positions[0], positions[-1]
    matched = set(positions)
    gaps = [words[p] for p in range(first, last + 1) if p not in matched]
    for word in (*words[max(start, first - BEFORE) : first], *gaps):
        if cancel.before(word):
            return True
    if any(cancel.after(word) for word in words[last + 1 : min(end, last + 1 + AFTER)]):
        return True
    around = (
        *words[max(start, first - NEAR_BEFORE) : first],
        *gaps,
        *words[last + 1 : min(end, last + 1 + NEAR_AFTER)],
    )
    return any(cancel.near(word) for word in around)
