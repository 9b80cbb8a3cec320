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
from collections import Counter
from collections.abc import Iterable, Mapping

from bot.core.problems import Path, Problem
from bot.matching.crisis import normalize
from bot.matching.phrase_patterns import (
    BREAK,
    CLAUSE,
    CLAUSE_WORD,
    JOINERS,
    KEY_LENGTH,
    TYPO_LENGTH,
    Pattern,
    PhraseHit,
    anchored,
    cancelled,
    cancels,
    compile_pattern,
    compile_tokens,
    match_at,
    one_edit,
    prefix_one_edit,
    typo_keys,
    variants,
)

# Signals are named by their files' stems (content/phrases/<signal>.yaml); these two are
# the ones features act on: the record's look-back offer and the urge flow's offer.
SELF_DOUBT = "self_doubt"
PULL_BACK = "pull_back"


class PhraseMatcher:
    def __init__(self, patterns: Iterable[Pattern]) -> None:
        patterns = list(patterns)
        # How many patterns share each word: a word many share ("him", "niet", "para") makes
        # a poor anchor, since ordinary messages are full of it.
        shared = Counter(a for p in patterns for t in p.tokens for a in set(t.alternatives()))
        self._exact: dict[str, list[Pattern]] = {}
        self._stems: dict[str, list[Pattern]] = {}
        self._typos: dict[str, set[tuple[str, bool]]] = {}  # key -> (anchor word or stem, stem?)
        keys: set[str] = set()
        for unanchored in patterns:
            pattern = anchored(unanchored, shared)
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
                for key in typo_keys(target):
                    self._typos.setdefault(key, set()).add((target, is_stem))
        self._stem_lengths = tuple(sorted({len(stem) for stem in self._stems}))
        self._keys = frozenset(keys | set(self._typos))
        self.signals = frozenset(p.signal for p in patterns)

    def _anchored_at(self, word: str) -> list[Pattern]:
        """The patterns whose anchor this word matches: exactly, by stem, or with one typo."""
        found = list(self._exact.get(word, ()))
        size = len(word)
        for length in self._stem_lengths:
            if length > size:
                break
            found.extend(self._stems.get(word[:length], ()))
        if size >= TYPO_LENGTH - 1 and not found:
            for target, is_stem in self._typos.get(word[:KEY_LENGTH], ()):
                if is_stem and prefix_one_edit(word, target):
                    found.extend(self._stems[target])
                elif not is_stem and one_edit(word, target):
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
        cancel_of = cancels(cancel)
        compiled: list[Pattern] = []
        for signal, by_language in signals.items():
            for language, sources in by_language.items():
                for source in sources:
                    compiled.extend(compile_pattern(signal, language, source, cancel_of[language]))
        return cls(compiled)

    def hits(self, text: str) -> list[PhraseHit]:
        """One hit per signal the text carries (the first pattern found), in no set order."""
        words = normalize(CLAUSE.sub(CLAUSE_WORD, text)).split()
        if BREAK in words and not JOINERS.isdisjoint(words):
            words = [
                word
                for word, following in zip(words, [*words[1:], ""], strict=True)
                if word != BREAK or following not in JOINERS
            ]
        keys = self._keys
        candidates = [i for i, word in enumerate(words) if word[:KEY_LENGTH] in keys]
        if not candidates:
            return []
        breaks = [i for i, word in enumerate(words) if word == BREAK]
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
                    positions = match_at(pattern, words, position, end)
                    if positions is None:
                        continue
                    if cancelled(pattern.cancel, words, positions, start, end):
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
            failures = [c for c in map(compile_tokens, variants(source)) if isinstance(c, str)]
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
