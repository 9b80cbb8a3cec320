"""Crisis detection: in any message, in any of our languages, before anything else runs.

Every message, caption and edit is asked: does it show a crisis, of which kind (the reply:
danger, self_harm, sexual_violence, general), of which finer category, and how sure are
we? Tier 1 (certain) gets the emergency reply at once; tier 2 (uncertain) gets "Are you
safe right now?" (bot/features/crisis/handlers/safety_check.py). The data is
content/crisis_terms.yaml:
categories with their kind, tier and what lowers them, and per language patterns by
category (the pattern language is in bot/matching/patterns.py). docs/crisis.md has
the design, the decisions and the measured numbers.

Normalisation (`normalize`, bot/matching/normal.py), the same for patterns and messages:

1. Apostrophes in all their forms (' ’ ‘ ‛ ` ´ ʼ ʻ ′ ＇) become one mark. This happens
   first because NFKD would turn ´ into a space and a combining accent.
2. NFKD and case folding, then combining marks are dropped: "SOCORRO", "Urgência" and
   "urgencia" meet. Case folding turns ß into ss; letters NFKD leaves whole (œ, æ, ø, ł)
   are spelt out.
3. 🆘 reads as the word "sos"; crying and broken-heart emoji as one word ("emojicry") that
   patterns can name ("😭😭😭" is distress); the text is also read without it. Laughing
   emoji read as "emojilaugh", laughter like "haha" (the `jest` lists).
   Zero-width characters and soft hyphens are deleted, so "help" pasted with an invisible
   break inside is still "help".
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
is also read with the apostrophe as a space, and every pattern word is compiled in both forms, so
"he's outside", "he’s outside", "hes outside" and "besoin d'aide" all find their term.

How a message is read:

- Sentences end at . ! ? ; … followed by a space, or a blank line. They are read as one
  sequence of words with a break word between them, so a phrase may trail off across
  "..." and "^"/"$" in a pattern mean the edges of a sentence.
- Readings: apostrophes joining and separating; without crying emoji; spaced-out letters
  joined ("k i l l  m y s e l f"); and, in messages up to 280 characters, one typo guessed
  per long word against the words the patterns use (a match that needs a guess is tier 2).
- Each pattern has an anchor, a required word or stem; only patterns whose anchor occurs
  are tried, and each only in a window of text around its anchor. Most messages try none.
  The cost does not grow with the number of patterns a message does not touch.
- `not_crisis` spans remove any match they share a word with; `past` markers lower tier 1
  to tier 2 in their own sentence, as `jest` (laughter) and `framed` (a class, a sport, a
  story, the writer's work) do, `safe_now` anywhere in the
  message, for the categories that list them in `lowered_by`; a lowered tier-2 finding is
  dropped. `not_a_plea` spans remove only the general findings (a plea, distress) they
  share a word with. Then the best tier
  wins, and within it the most urgent kind.

All languages are matched at once: people switch languages, and the person's setting may
not be the language they are writing in. So a pattern must not collide with an ordinary
phrase of another language after normalisation ("me mata" is a Portuguese threat and a
Spanish idiom about the heat; the Portuguese pattern names the subject).

Borderline decisions are listed, with their reasons, in docs/crisis.md and pinned in
tests/unit/matching/test_crisis_detector.py (test_borderline_decisions).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from bot.matching.crisis_kinds import (
    CERTAIN,
    FRAMED,
    JEST,
    LOWERINGS,
    NOT_A_PLEA,
    PAST,
    ROLES,
    SAFE_NOW,
    SHIELD,
    UNCERTAIN,
    WORDS,
    Category,
    CrisisKind,
    CrisisMatch,
    lowered_tier,
    parse_categories,
)
from bot.matching.normal import CRY, forms, normalize, spaced_out
from bot.matching.patterns import BREAK, Compiled, Macros, compile_pattern
from bot.matching.sentences import covered as all_covered
from bot.matching.sentences import sentences as split_sentences

# The screen's vocabulary lives in crisis_kinds.py; callers import it from here with the
# detector that speaks it.
__all__ = [
    "CERTAIN",
    "LOWERINGS",
    "ROLES",
    "UNCERTAIN",
    "WORDS",
    "CrisisDetector",
    "CrisisKind",
    "CrisisMatch",
    "normalize",
    "parse_categories",
]


# Most urgent first: a message with a threat and a plea for help gets the danger reply; a
# threat to life (from someone else, then from oneself) before the sexual-violence reply.
_URGENCY = (
    CrisisKind.DANGER,
    CrisisKind.SELF_HARM,
    CrisisKind.SEXUAL_VIOLENCE,
    CrisisKind.GENERAL,
)


@dataclass(frozen=True)
class _Entry:
    compiled: Compiled
    role: str  # a category name, or one of ROLES
    category: Category | None


_TYPO_MIN = 6  # letters (after doubled letters collapse) before a word is typo-corrected
# Typo guesses are for short messages, typed in a hurry: on a long journal entry they would
# cost more than they find.
_TYPO_MAX_TEXT = 280
# Characters either side of an anchor that an expression may need: longer than any pattern
# with its gaps and its longest listed phrases.
_WINDOW = 240


def _deletions(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


class CrisisDetector:
    def __init__(
        self,
        categories: Mapping[str, Category],
        entries: Iterable[tuple[str, str, Macros]],
    ) -> None:
        """`entries`: (role, pattern, the language's word lists); the role is a category
        name or one of ROLES."""
        self._entries: list[_Entry] = []
        self._by_word: dict[str, list[int]] = {}
        self._by_stem: dict[str, list[int]] = {}
        vocabulary: set[str] = set()
        for role, pattern, macros in entries:
            compiled = compile_pattern(pattern, macros)
            index = len(self._entries)
            self._entries.append(_Entry(compiled, role, categories.get(role)))
            for word in compiled.anchor.literals:
                self._by_word.setdefault(word, []).append(index)
            for stem in compiled.anchor.stems:
                self._by_stem.setdefault(stem, []).append(index)
            for word in compiled.words:
                vocabulary.update(word.split())
        # One expression finds every stem at a word start, in C: longest first, and each
        # stem also stands for the shorter stems it begins with ("suicid" has "sui").
        stems = sorted(self._by_stem, key=len, reverse=True)
        self._stem_re = re.compile(" (" + "|".join(map(re.escape, stems)) + ")") if stems else None
        self._by_stem = {
            stem: sorted(
                {i for other in stems if stem.startswith(other) for i in self._by_stem[other]}
            )
            for stem in stems
        }
        self._vocabulary = frozenset(vocabulary)
        # Symmetric deletion: a typo (one letter missing, extra, wrong or two swapped) and
        # the word it stands for share a form with one letter deleted.
        self._near: dict[str, str | None] = {}
        for word in sorted(vocabulary):
            if len(word) < _TYPO_MIN or not word.isalpha():
                continue
            for variant in {word} | _deletions(word):
                if self._near.get(variant, word) != word:
                    self._near[variant] = None  # two words are this close: guess neither
                else:
                    self._near[variant] = word

    def warm(self) -> None:
        """Compile every expression now (in a worker thread once the bot polls, when the
        content came from its compiled form) rather than when a message first needs one."""
        for entry in self._entries:
            entry.compiled.regex  # noqa: B018 - compiled on first use

    @classmethod
    def from_terms(cls, terms: Mapping[str, Any]) -> CrisisDetector:
        """Build from the YAML's shape (see content/crisis_terms.yaml). Validate first."""
        categories = parse_categories(terms["categories"])
        entries: list[tuple[str, str, Macros]] = []
        for by_role in terms["languages"].values():
            macros = by_role.get(WORDS, {})
            for role, patterns in by_role.items():
                if role == WORDS:
                    continue
                if isinstance(patterns, str):
                    raise TypeError(f"{role}: expected a list of patterns, got one string")
                entries.extend((role, pattern, macros) for pattern in patterns)
        return cls(categories, entries)

    def _candidates(self, words: list[str], text: str) -> dict[int, list[tuple[int, int]]]:
        """Entries whose anchor is in the text, each with the stretches of text around its
        anchor's occurrences: an expression then runs on a few words, not on 4,096
        characters."""
        at: dict[int, list[int]] = {}
        by_word = self._by_word
        if not by_word.keys().isdisjoint(words):
            position = 0
            for word in words:
                hits = by_word.get(word)
                if hits:
                    for index in hits:
                        at.setdefault(index, []).append(position)
                position += len(word) + 1
        if self._stem_re is not None:
            for m in self._stem_re.finditer(text):
                for index in self._by_stem[m.group(1)]:
                    at.setdefault(index, []).append(m.start())
        end = len(text)
        windows: dict[int, list[tuple[int, int]]] = {}
        for index, positions in at.items():
            merged: list[tuple[int, int]] = []
            for position in sorted(positions):
                low, high = max(0, position - _WINDOW), min(end, position + _WINDOW)
                if merged and low <= merged[-1][1]:
                    merged[-1] = (merged[-1][0], high)
                else:
                    merged.append((low, high))
            windows[index] = merged
        return windows

    def _corrected(self, words: list[str]) -> list[str] | None:
        """The words with likely typos replaced by the term words they stand for (the
        replacements in upper case, so a match can tell it relied on one), or None."""
        changed = False
        out = []
        for word in words:
            if len(word) >= _TYPO_MIN and word not in self._vocabulary:
                guess = self._near.get(word)
                if guess is None:
                    # Every one-deletion form, not the first one found: a set's order
                    # changes from one process to the next, and the guess must not (two
                    # words this close: guess neither, as for the forms themselves).
                    guesses = {self._near.get(variant) for variant in _deletions(word)}
                    guesses.discard(None)
                    guess = guesses.pop() if len(guesses) == 1 else None
                # Same first letter, and not a word with an ending added or cut: that is
                # inflection ("auxilios", "helped"), not a typo.
                if (
                    guess is not None
                    and guess[0] == word[0]
                    and guess[:-1] != word
                    and word[:-1] != guess
                ):
                    out.append(guess.upper())
                    changed = True
                    continue
            out.append(word)
        return out if changed else None

    def _readings(self, sentences: list[str]) -> list[tuple[list[str], list[int], bool]]:
        """Word sequences to match, each with the word index where each sentence starts and
        True when it holds a typo guess. Sentences are read in one sequence, so a phrase
        that trails off across "..." still matches."""
        per_sentence = [forms(sentence) for sentence in sentences]
        readings: list[tuple[list[str], list[int], bool]] = []
        for pick in (0, -1):  # apostrophes joining, then separating
            words: list[str] = []
            starts: list[int] = []
            for options in per_sentence:
                if words:
                    words.append(BREAK)
                starts.append(len(words))
                words.extend(options[pick])
            readings.append((words, starts, False))
            if all(len(options) == 1 for options in per_sentence):
                break
        extra: list[tuple[list[str], list[int], bool]] = []
        for words, starts, _ in readings:
            if CRY in words:
                # Without the emoji, words either side of it meet again.
                kept = [i for i, w in enumerate(words) if w != CRY]
                shifted = [sum(1 for i in kept if i < start) for start in starts]
                extra.append(([words[i] for i in kept], shifted, False))
        readings.extend(extra)
        spaced = spaced_out(" ".join(sentences))
        if spaced is not None:
            readings.extend((words, [0], False) for words in forms(spaced))
        if sum(map(len, sentences)) <= _TYPO_MAX_TEXT:
            for words, starts, _ in list(readings):
                corrected = self._corrected(words)
                if corrected is not None:
                    readings.append((corrected, starts, True))
        return readings

    def _scan(
        self,
        sentences: list[str],
        whole: list[bool] | None = None,
        tempering: list[bool] | None = None,
    ) -> list[tuple[Category, int, frozenset[str]]]:
        """(category, tier, what lowers it here: PAST, JEST, FRAMED in its sentence, SAFE_NOW in
        the message) of every term not inside a not_crisis span. `whole` (if given) gets
        True when, in some reading, those terms cover every word of the message."""
        found: list[tuple[Category, int, int]] = []  # category, tier, sentence
        past: set[int] = set()
        jest: set[int] = set()
        framed: set[int] = set()
        safe = False
        for words, starts, guessed in self._readings(sentences):
            lowered = [w.lower() for w in words] if guessed else words
            text = " " + " ".join(lowered) + " "
            candidates = self._candidates(lowered, text)
            if not candidates:
                continue
            marked = " " + " ".join(words) + " " if guessed else text
            # Character offset where each sentence starts in `text`.
            offsets, position, index = [], 0, 0
            for start in starts:
                while index < start:
                    position += len(words[index]) + 1
                    index += 1
                offsets.append(position)
            shields: list[tuple[int, int]] = []
            not_pleas: list[tuple[int, int]] = []
            hits: list[tuple[_Entry, int, int]] = []
            covered: list[tuple[int, int]] = []
            spans: set[tuple[_Entry, int, int]] = set()
            for candidate, windows in candidates.items():
                entry = self._entries[candidate]
                for low, high in windows:
                    for m in entry.compiled.regex.finditer(text, low, high):
                        spans.add((entry, *m.span()))
            for entry, m_start, m_end in spans:
                if entry.role == SHIELD:
                    shields.append((m_start, m_end))
                elif entry.role == NOT_A_PLEA:
                    not_pleas.append((m_start, m_end))
                elif entry.role == PAST:
                    past.add(bisect.bisect_right(offsets, m_start) - 1)
                elif entry.role == JEST:
                    jest.add(bisect.bisect_right(offsets, m_start) - 1)
                elif entry.role == FRAMED:
                    framed.add(bisect.bisect_right(offsets, m_start) - 1)
                elif entry.role == SAFE_NOW:
                    safe = True
                else:
                    hits.append((entry, m_start, m_end))
            if tempering is not None and (shields or not_pleas or jest or framed):
                tempering.append(True)
            # Someone else's threat holds the words of a wish to die ("il a dit qu'il allait
            # me tuer" holds "me tuer"): inside a danger match they are the threat, so the
            # reply is the danger one alone, never the suicide one beside it.
            threats = [
                (start, end)
                for entry, start, end in hits
                if entry.category is not None and entry.category.kind == CrisisKind.DANGER
            ]
            hits = [
                (entry, start, end)
                for entry, start, end in hits
                if entry.category is None
                or entry.category.kind != CrisisKind.SELF_HARM
                or not any(s <= start and end <= e for s, e in threats)
            ]
            for entry, start, end in hits:
                # A not_crisis span that shares a word with a term takes it out ("please
                # help me pick a time" overlaps "help me pick"). Spans carry a space at
                # each end, which neighbouring spans share, hence the slack of one.
                if any(s < end - 1 and start + 1 < e for s, e in shields):
                    continue
                if (
                    entry.category is not None
                    and entry.category.kind == CrisisKind.GENERAL
                    and any(s < end - 1 and start + 1 < e for s, e in not_pleas)
                ):
                    continue
                if guessed and marked[start:end] == text[start:end]:
                    continue  # no guessed word in it: the plain reading has it already
                category = entry.category
                if category is None:  # a role's entry (shield, past...), sorted out above
                    continue
                tier = entry.compiled.tier or category.tier
                # A match that needed a typo guess is a weak match: ask, don't alarm.
                sentence = bisect.bisect_right(offsets, start) - 1
                found.append((category, UNCERTAIN if guessed else tier, sentence))
                if whole is not None:
                    covered.append((start, end))
            if whole is not None and covered and all_covered(text, covered):
                whole.append(True)
        return [
            (
                c,
                t,
                frozenset(
                    name
                    for name, holds in (
                        (PAST, sentence in past),
                        (JEST, sentence in jest),
                        (FRAMED, sentence in framed),
                    )
                    if holds
                )
                | ({SAFE_NOW} if safe else frozenset()),
            )
            for c, t, sentence in found
        ]

    def covers(self, text: str) -> bool:
        """Whether crisis terms make up the whole message once normalised ("HEEELP!!!",
        "au secours", "help me please"): nothing in it but the call itself. Slower than
        `detect` (it is asked only after a match, off the crisis path)."""
        return self._marked(text, whole=True)

    def tempered(self, text: str) -> bool:
        """Whether the rules read words of this text as not a crisis (a not_crisis or
        not_a_plea span: "how do I help her", "this exam will kill me") or as said laughing.
        The model's emergency reply becomes a check there (model_gate.temper): the rules
        know these uses of crisis words, and the model reads them least surely."""
        return self._marked(text, tempering=True)

    def _marked(self, text: str, *, whole: bool = False, tempering: bool = False) -> bool:
        """Whether the scan marked the text (`whole`, `tempering`: see `_scan`)."""
        sentences = split_sentences(text)
        marks: list[bool] = []
        if sentences:
            self._scan(sentences, marks if whole else None, marks if tempering else None)
        return bool(marks)

    def detect(self, text: str) -> CrisisMatch | None:
        sentences = split_sentences(text)
        if not sentences:
            return None
        lowered = [(c, lowered_tier(c, t, by)) for c, t, by in self._scan(sentences)]
        kept = [(c, t) for c, t in lowered if t]
        if not kept:
            return None
        tier = min(t for _, t in kept)
        # By name among equals: the scan's order follows the hash seed, and the category
        # named in figures and tests should not change from one process to the next.
        best = min(
            (c for c, t in kept if t == tier), key=lambda c: (_URGENCY.index(c.kind), c.name)
        )
        return CrisisMatch(
            kind=best.kind,
            kinds=frozenset(c.kind for c, _ in kept),
            tier=tier,
            category=best.name,
            categories=frozenset(c.name for c, _ in kept),
        )
