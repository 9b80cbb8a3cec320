"""Phrase signals: does a message sound like self-doubt, or like the pull back to the partner?

Two features read what people write in free text: the record (issue 14) offers one of the
person's own entries when they doubt themselves ("maybe it wasn't that bad"), the urge flow
(issue 15) is offered when they want to reach the person they left ("I want to text him").
This module holds the part both need: patterns per signal and language, loaded from
content/phrases/<signal>.yaml, and a matcher that answers which signals a message carries.
It never answers for the crisis path: crisis words outrank every signal here, and putting
the crisis check first is the caller's job.

Patterns. A pattern is a line of tokens separated by spaces, compared word by word with the
message after the crisis detector's `normalize` (case, accents, apostrophes, repeated letters:
"I’m" is "im", "too" is "to", "miss" is "mis"; patterns go through the same function, so
authors write ordinary spelling):

- `word` is one word; `a|b|c` is any of them;
- `stem*` is any word starting with the stem (at least four letters once normalised);
- `word?` may be left out;
- `...` allows up to three other words before the next token (the only place where
  words the pattern does not name may sit inside a match);
- `^` first and `$` last tie the match to the start or end of a clause.

A word written with an apostrophe ("c'était", "n'arrête") matches both the joined form
`normalize` gives ("cetait") and the two words people type without it ("c etait").
Words of seven letters or more also match with one typo (a letter missing, added, changed,
or two swapped) away from the first letter and the last two: "overeacted", "remembreing";
not "extraña" for "extraño" (she misses him, not I) or "dapeler" for "lapeler". Doubled
letters never count as typos, because `normalize` collapses them on both sides.

Clauses. Sentence and clause punctuation (. , ; : ! ? … brackets, line breaks) ends a clause;
no match, gap or cancel window reaches across it, so "I don't know, maybe I overreacted"
still fires while "I don't think I overreacted" does not. A comma before German "dass" or
"ob" does not end one: German requires it, and "ich glaube nicht, dass ich übertrieben habe"
is one thought.

Cancelling. content/phrases/cancel.yaml names per language:

- `before`: words that undo a match when they sit in the five words before it (same clause)
  or in a gap inside it: negation ("I don't miss him", "ce n'était pas ma faute"), someone
  else's words ("he said it was my fault", "she thinks I'm too sensitive"), a belief left
  behind ("I used to think it was my fault", "ya no pienso que...");
- `after`: negation that follows the verb, in the three words after a match ("ich
  vermisse ihn nicht", "ik mis hem niet", "il me manque pas");
- `near`: people and places other than the partner; within two words before or four after
  (or in a gap) they undo a match: "maybe I overreacted at work", "I want to text my sister".
- `ordinary`: words of this language that another language's lists must not cancel.

Every language borrows the other languages' lists (minus its `ordinary` words), because
patterns of every language run on every message (people switch languages, and "exagéré",
"exageré" and "exagero" are French, Spanish and Portuguese) and the negation around a match
must cancel it whichever pattern matched.

Words of a pattern itself never cancel it, so a pattern may hold a negation on purpose
("maybe it wasn't that bad", "I can't stop thinking about him", "he didn't mean it").

Borderline cases, decided:

- Pronouns are read as the partner. "I miss him" fires, though "him" may be a grandfather:
  the offer is gentle, one tap away from gone, and at most once a day (the feature's rule).
  "I miss my mum", "I miss the sun", "I want to text my sister" do not.
- Work, family, friends and places are other contexts: "maybe I overreacted at work",
  "I'm too sensitive with my boss", "it was my fault we missed the train" do not fire.
  Where the partner is not named, only the person's own words about themselves in the
  relationship fire: "I overreacted", "it was my fault", "it's my fault he left".
- Someone else's words, reported, do not fire: "he always told me I was too sensitive",
  "she said it was my fault and it wasn't". The person adopting them does: "he says I'm too
  sensitive, and maybe he's right" fires on "maybe he's right" (without the comma, "says"
  is still within five words and cancels it).
- Third parties do not fire: "my friend misses her ex", "my sister thinks she overreacted".
- Past contact told as a fact is not the pull: "I called him yesterday about the kids",
  "I texted the plumber". A near miss is, and so is fighting the urge: "I almost texted him
  last night", "I'm trying so hard not to text him", "I can't stop thinking about him".
- A decision not to make contact does not fire: "I will never text him again", "I'm not
  going to call him", "I won't unblock him".
- Self-doubt about a memory or a reaction fires even when it is a question: "what if I'm
  remembering it all wrong", "am I overreacting?".
- Negation is read within the clause only. "I don't know maybe I overreacted" written
  without a comma does not fire: a miss costs an offer, a false offer costs trust.

Cost. Clause marks become a break word (one substitution) and the message is normalised once.
One comprehension then looks up each word's first four letters in a set of keys drawn from
each pattern's anchor (its longest required word, and for long anchors every one-typo
variant of their first four letters); most messages stop there. Only where a key matches is
the pattern tried, from the few positions where it could start. The one regular expression
on the message is a single character class; nothing is cached per word, so nothing of what
people wrote is kept.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
import string
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from bot.problems import Path, Problem
from bot.services.crisis import normalize

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
_BREAK = "0000"
_CLAUSE_MARKS = ".,;:!?¿¡…()[]{}\n\r\t—–"
# One character class, so the substitution cannot backtrack; several times cheaper than
# str.translate, which loses its fast path when one character becomes several.
_CLAUSE = re.compile("[" + re.escape(_CLAUSE_MARKS) + "]")
_CLAUSE_WORD = f" {_BREAK} "
# German puts a comma before every "dass" and "ob": the clause they open belongs to the one
# before ("ich glaube nicht, dass ich übertrieben habe").
_JOINERS = frozenset({normalize("dass"), "ob"})
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
                if _one_edit(word, target):
                    return True
            for stem in self.typo_stems:
                if _prefix_one_edit(word, stem):
                    return True
        return False

    def alternatives(self) -> list[str]:
        return [*self.words, *self.stems]


@dataclass(frozen=True)
class _Cancel:
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
class _Pattern:
    signal: str
    language: str
    source: str
    tokens: tuple[_Token, ...]
    at_start: bool
    at_end: bool
    anchor: int
    reach: int  # how many words before the anchor the pattern can start
    cancel: _Cancel = field(compare=False)


def _one_edit(word: str, target: str, *, ending: bool = True) -> bool:
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


def _prefix_one_edit(word: str, stem: str) -> bool:
    size = len(stem)
    return any(_one_edit(word[:cut], stem, ending=False) for cut in (size - 1, size, size + 1))


def _typo_keys(word: str) -> set[str]:
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


def _variants(pattern: str) -> list[list[str]]:
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


def _compile_tokens(texts: list[str]) -> tuple[tuple[_Token, ...], bool, bool] | str:
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


def _anchored(pattern: _Pattern, shared: Counter[str]) -> _Pattern:
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


def _compile(signal: str, language: str, source: str, cancel: _Cancel) -> list[_Pattern]:
    patterns = []
    for texts in _variants(source):
        compiled = _compile_tokens(texts)
        if isinstance(compiled, str):
            raise ValueError(f"{signal}.{language}: {source!r}: {compiled}")  # noqa: TRY004
        tokens, at_start, at_end = compiled
        # The anchor is chosen once all patterns are known (PhraseMatcher).
        patterns.append(_Pattern(signal, language, source, tokens, at_start, at_end, 0, 0, cancel))
    return patterns


def _cancels(raw: Mapping[str, Mapping[str, Iterable[str]]]) -> dict[str, _Cancel]:
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
    result: dict[str, _Cancel] = {}
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
        result[language] = _Cancel(*joined)  # type: ignore[arg-type]
    return result


# --- matching -------------------------------------------------------------------------------


def _match(pattern: _Pattern, words: list[str], start: int, end: int) -> list[int] | None:
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


def _cancelled(
    cancel: _Cancel, words: list[str], positions: list[int], start: int, end: int
) -> bool:
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


class PhraseMatcher:
    def __init__(self, patterns: Iterable[_Pattern]) -> None:
        patterns = list(patterns)
        # How many patterns share each word: a word many share ("him", "niet", "para") makes
        # a poor anchor, since ordinary messages are full of it.
        shared = Counter(a for p in patterns for t in p.tokens for a in set(t.alternatives()))
        self._exact: dict[str, list[_Pattern]] = {}
        self._stems: dict[str, list[_Pattern]] = {}
        self._typos: dict[str, set[tuple[str, bool]]] = {}  # key -> (anchor word or stem, stem?)
        keys: set[str] = set()
        for unanchored in patterns:
            pattern = _anchored(unanchored, shared)
            anchor = pattern.tokens[pattern.anchor]
            for word in anchor.words:
                self._exact.setdefault(word, []).append(pattern)
                keys.add(word[:KEY_LENGTH])
            for stem in anchor.stems:
                self._stems.setdefault(stem, []).append(pattern)
                keys.add(stem[:KEY_LENGTH])
            for target, is_stem in (
                *((w, False) for w in anchor.typo_words),
                *((t, True) for t in anchor.typo_stems),
            ):
                for key in _typo_keys(target):
                    self._typos.setdefault(key, set()).add((target, is_stem))
        self._stem_lengths = tuple(sorted({len(stem) for stem in self._stems}))
        self._keys = frozenset(keys | set(self._typos))
        self.signals = frozenset(p.signal for p in patterns)

    def _anchored_at(self, word: str) -> list[_Pattern]:
        """The patterns whose anchor this word matches: exactly, by stem, or with one typo."""
        found = list(self._exact.get(word, ()))
        size = len(word)
        for length in self._stem_lengths:
            if length > size:
                break
            found.extend(self._stems.get(word[:length], ()))
        if size >= TYPO_LENGTH - 1 and not found:
            for target, is_stem in self._typos.get(word[:KEY_LENGTH], ()):
                if is_stem and _prefix_one_edit(word, target):
                    found.extend(self._stems[target])
                elif not is_stem and _one_edit(word, target):
                    found.extend(self._exact[target])
        return found

    @classmethod
    def from_content(
        cls,
        signals: Mapping[str, Mapping[str, Iterable[str]]],
        cancel: Mapping[str, Mapping[str, Iterable[str]]],
    ) -> PhraseMatcher:
        """Build from the YAML shapes (signal -> language -> patterns; language -> lists).

        Validate first: `validate_signal` and `validate_cancel` name every problem.
        """
        cancels = _cancels(cancel)
        compiled: list[_Pattern] = []
        for signal, by_language in signals.items():
            for language, sources in by_language.items():
                for source in sources:
                    compiled.extend(_compile(signal, language, source, cancels[language]))
        return cls(compiled)

    def hits(self, text: str) -> list[PhraseHit]:
        """One hit per signal the text carries (the first pattern found), in no set order."""
        words = normalize(_CLAUSE.sub(_CLAUSE_WORD, text)).split()
        if _BREAK in words and not _JOINERS.isdisjoint(words):
            words = [
                word
                for word, following in zip(words, [*words[1:], ""], strict=True)
                if word != _BREAK or following not in _JOINERS
            ]
        keys = self._keys
        candidates = [i for i, word in enumerate(words) if word[:KEY_LENGTH] in keys]
        if not candidates:
            return []
        breaks = [i for i, word in enumerate(words) if word == _BREAK]
        found: dict[str, PhraseHit] = {}
        tried: set[tuple[int, int]] = set()
        for i in candidates:
            if len(found) == len(self.signals):
                break
            word = words[i]
            after = bisect.bisect_right(breaks, i)
            start = breaks[after - 1] + 1 if after else 0
            end = breaks[after] if after < len(breaks) else len(words)
            for pattern in self._anchored_at(word):
                if pattern.signal in found:
                    continue
                first = start if pattern.at_start else max(start, i - pattern.reach)
                last = start if pattern.at_start else i
                for position in range(first, last + 1):
                    attempt = (id(pattern), position)
                    if attempt in tried:
                        continue
                    tried.add(attempt)
                    positions = _match(pattern, words, position, end)
                    if positions is None:
                        continue
                    if _cancelled(pattern.cancel, words, positions, start, end):
                        continue
                    found[pattern.signal] = PhraseHit(
                        pattern.signal, pattern.language, pattern.source
                    )
                    break
        return list(found.values())

    def detect(self, text: str) -> frozenset[str]:
        """The signals (file stems such as "self_doubt", "pull_back") the text carries."""
        return frozenset(hit.signal for hit in self.hits(text))


# --- validation -----------------------------------------------------------------------------


def _language_problem(language: object) -> str | None:
    if isinstance(language, bool):
        return "quote the code: YAML reads a bare no or on as a boolean"
    if not isinstance(language, str) or len(language) != 2 or not language.islower():
        return "use a two-letter ISO 639-1 code in lower case"
    if not language.isascii() or not language.isalpha():
        return "use a two-letter ISO 639-1 code in lower case"
    return None


def validate_signal(raw: object, languages: Iterable[str] = ()) -> list[Problem]:
    """Every problem in one parsed signal file (language -> list of patterns).

    `languages` are those with cancel lists: a pattern's language must have them.
    """
    if not isinstance(raw, Mapping) or not raw:
        return [Problem((), "the file must map language codes to lists of patterns")]
    known = set(languages)
    problems: list[Problem] = []
    for language, sources in raw.items():
        where: Path = (str(language),)
        problem = _language_problem(language)
        if problem:
            problems.append(Problem(where, problem))
        elif known and language not in known:
            problems.append(Problem(where, "this language has no lists in phrases/cancel.yaml"))
        if not isinstance(sources, list) or not sources:
            problems.append(Problem(where, "must be a list of patterns"))
            continue
        seen: dict[str, int] = {}
        for index, source in enumerate(sources):
            path: Path = (str(language), index)
            if not isinstance(source, str) or not source.strip():
                problems.append(Problem(path, "must be a non-empty pattern"))
                continue
            failures = [c for c in map(_compile_tokens, _variants(source)) if isinstance(c, str)]
            if failures:
                problems.append(Problem(path, f"{source!r}: {failures[0]}"))
                continue
            canonical = " ".join(
                normalize(t) if t not in ("...", "^", "$") else t for t in source.split()
            )
            if canonical in seen:
                problems.append(Problem(path, f"{source!r} repeats pattern {seen[canonical]}"))
            else:
                seen[canonical] = index
    return problems


_CANCEL_KINDS = ("before", "after", "near", "ordinary")


def validate_cancel(raw: object) -> list[Problem]:
    """Every problem in a parsed cancel file (language -> before/near -> words or stems)."""
    if not isinstance(raw, Mapping) or not raw:
        return [Problem((), "the file must map language codes to 'before' and 'near' lists")]
    problems: list[Problem] = []
    for language, lists in raw.items():
        where: Path = (str(language),)
        problem = _language_problem(language)
        if problem:
            problems.append(Problem(where, problem))
        if not isinstance(lists, Mapping):
            problems.append(Problem(where, "must map 'before' and 'near' to lists"))
            continue
        for kind, entries in lists.items():
            kind_path: Path = (str(language), str(kind))
            if kind not in _CANCEL_KINDS:
                known = "'before', 'after', 'near' or 'ordinary'"
                problems.append(Problem(kind_path, f"unknown list; use {known}"))
            if not isinstance(entries, list):
                problems.append(Problem(kind_path, "must be a list of words or stems"))
                continue
            for index, entry in enumerate(entries):
                path: Path = (*kind_path, index)
                core = entry[:-1] if isinstance(entry, str) and entry.endswith("*") else entry
                normal = normalize(core) if isinstance(core, str) else ""
                if not normal or " " in normal:
                    problems.append(Problem(path, "must be one word, or one stem ending in *"))
                elif isinstance(entry, str) and entry.endswith("*") and len(normal) < 3:
                    problems.append(Problem(path, "a stem needs at least three letters"))
    return problems
