"""The little pattern language of content/crisis_terms.yaml, compiled to regular expressions.

A pattern is a sequence of positions separated by spaces, matched against a message's
normalised words (see bot.matching.normal):

    word        that word, normalised like messages ("he's" is "hes" or "he s")
    stem*       any word that starts with the stem ("suicid*": suicide, suicidal, suicidio)
    a|b|c*      one of several words or stems at this position
    [a|b]       an optional position
    ..          up to three words of anything ("he .. my neck": he grabbed my neck)
    ...         up to six words of anything
    <number>    a number ("20 kms")
    @name       any phrase of the language's list `name` (under `words:`), e.g. @he for
                "he", "she", "my ex", "he's" ...; a list holds phrases, so it can say
                what one position cannot ("he is", "he's")
    ^  $        the start or the end of a sentence
    =2          (last) the tier of this one entry, when it differs from its category's

The compiled expression runs on " w1 w2 w3 " (the words, a space on each side), so every
position is a whole word and the gaps are bounded: no expression can backtrack beyond a few
words. Each pattern also names one anchor: a required word or stem that must be in the
message before the expression is tried, so most messages try none.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from bot.core.errors import SteadyError
from bot.matching.normal import forms

GAPS = {"..": 3, "...": 6}
NUMBER = "<number>"
BREAK = "."  # the word between two sentences: normalisation never leaves a "." in a word
MIN_STEM = 3


class PatternError(SteadyError, ValueError):
    """Why a pattern cannot be compiled, in words for the content author."""


@dataclass(frozen=True)
class Anchor:
    literals: tuple[str, ...]  # whole words, any of which lets the pattern be tried
    stems: tuple[str, ...]  # or word beginnings


@dataclass(frozen=True)
class Compiled:
    source: str  # the regular expression, compiled on first use (`regex`)
    anchor: Anchor
    tier: int | None  # the entry's own tier ("=2"), or None for its category's
    words: tuple[str, ...]  # every literal word, for typo tolerance
    stems: tuple[str, ...]
    _regex: list[re.Pattern[str]] = field(
        default_factory=list, init=False, repr=False, compare=False
    )

    @property
    def regex(self) -> re.Pattern[str]:
        # Compiling all 1,300 expressions is most of the cost of loading the content's
        # compiled form (bot/content/compiled.py): each is compiled when its anchor is first
        # in a message, or by `warm` once the bot polls. Two threads compiling one at once
        # both get a working expression.
        if not self._regex:
            self._regex.append(re.compile(self.source))
        return self._regex[0]

    def __getstate__(self) -> dict[str, object]:
        # The compiled form stores the source alone: a pickled re.Pattern compiles again
        # as it loads, which is the cost being put off.
        state = dict(self.__dict__)
        state["_regex"] = []
        return state


Macros = Mapping[str, Sequence[str]]


def _expanded(position: str, macros: Macros) -> list[str]:
    out: list[str] = []
    for raw in position.split("|"):
        if raw.startswith("@"):
            if raw[1:] not in macros:
                raise PatternError(f"{raw!r}: no such list under words:")
            out.extend(macros[raw[1:]])
        else:
            out.append(raw)
    return out


def _alternatives(position: str, macros: Macros) -> list[tuple[str, bool]]:
    """(normalised text, is_stem) for each alternative at one position."""
    found: list[tuple[str, bool]] = []
    for raw in _expanded(position, macros):
        is_stem = raw.endswith("*")
        text = raw.rstrip("*")
        if "*" in text:
            raise PatternError(f"{raw!r}: '*' may only end a stem")
        readings = {" ".join(words) for words in forms(text) if words}
        if not readings:
            raise PatternError(f"{position!r}: an alternative has no letters or digits")
        for reading in sorted(readings):
            if is_stem and (" " in reading or len(reading) < MIN_STEM):
                raise PatternError(f"{raw!r}: a stem needs {MIN_STEM} letters or more, one word")
            found.append((reading, is_stem))
    return found


def _regex_of(alternatives: list[tuple[str, bool]]) -> str:
    # Words inside one alternative ("matar-me" read as "matar me") may trail across a
    # sentence end too, as whole positions do ("quero matar... me").
    parts = [
        r" (?:\. )?".join(map(re.escape, text.split())) + (r"\S*" if is_stem else "")
        for text, is_stem in sorted(set(alternatives))
    ]
    return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"


_MACRO_NAME = re.compile(r"@([^\s|\[\]]+)")


def compile_pattern(pattern: str, macros: Macros | None = None) -> Compiled:
    # Content is validated and then built, each compiling every pattern: the second costs
    # nothing. The key holds the word lists the pattern names, so an edited list recompiles.
    given = macros or {}
    used = tuple(
        (name, tuple(given[name]))
        for name in sorted(set(_MACRO_NAME.findall(pattern)))
        if name in given
    )
    return _compile(pattern, used)


@lru_cache(maxsize=16_384)
def _compile(pattern: str, used: tuple[tuple[str, tuple[str, ...]], ...]) -> Compiled:
    macros: Macros = {name: list(words) for name, words in used}
    positions = pattern.split()
    tier: int | None = None
    if positions and re.fullmatch(r"=[12]", positions[-1]):
        tier = int(positions.pop()[1])
    if not positions:
        raise PatternError("the pattern is empty")
    if positions[0] in GAPS or positions[-1] in GAPS:
        raise PatternError("a gap ('..', '...') must stand between two words")
    regex = ""
    best: tuple[int, Anchor] | None = None
    words: list[str] = []
    stems: list[str] = []
    for index, position in enumerate(positions):
        if position in GAPS:
            if positions[index - 1] in GAPS:
                raise PatternError("two gaps in a row")
            regex += r"(?:\S+ ){0,%d}" % GAPS[position]  # noqa: UP031 - braces are regex here
            continue
        if position == NUMBER:
            regex += r"\d\S* "
            continue
        if position == "^":
            if index != 0:
                raise PatternError("'^' (start of sentence) must come first")
            regex = "^" + regex
            continue
        if position == "$":
            if index != len(positions) - 1:
                raise PatternError("'$' (end of sentence) must come last")
            regex += "$"
            continue
        optional = position.startswith("[") and position.endswith("]")
        inner = position[1:-1] if optional else position
        if not inner or any(c in inner for c in "[]"):
            raise PatternError(f"{position!r}: brackets must wrap a whole position")
        alternatives = _alternatives(inner, macros)
        words.extend(text for text, is_stem in alternatives if not is_stem)
        stems.extend(text for text, is_stem in alternatives if is_stem)
        # A phrase may trail off across a sentence end ("nobody would miss me... ever").
        piece = _regex_of(alternatives) + r" (?:\. )?"
        regex += f"(?:{piece})?" if optional else piece
        if not optional:
            # The anchor is the most selective required position: the one whose shortest
            # alternative is longest.
            # What is looked up is each alternative's longest word (every word of it must
            # be in the message); on a tie the later position wins (content words tend to
            # come after "the", "my", "he").
            score = min(len(max(text.split(), key=len)) for text, _ in alternatives)
            literals = tuple(max(t.split(), key=len) for t, s in alternatives if not s)
            anchor_stems = tuple(t for t, s in alternatives if s)
            if best is None or score >= best[0]:
                best = (score, Anchor(literals, anchor_stems))
    if best is None:
        raise PatternError("every position is optional; one must be required")
    # Sentences are read as one sequence with BREAK between them: "^" and "$" are at the
    # edges of the message or next to a BREAK.
    start = r"(?:^|(?<= \.)) " if regex.startswith("^") else " "
    regex = start + regex.removeprefix("^")
    regex = regex.removesuffix("$") + r"(?=\. |$)" if regex.endswith("$") else regex
    compiled = Compiled(regex, best[1], tier, tuple(words), tuple(stems))
    try:
        compiled.regex  # noqa: B018 - validation: the expression must compile
    except re.error as exc:
        raise PatternError(f"cannot be compiled ({exc})") from None
    return compiled
