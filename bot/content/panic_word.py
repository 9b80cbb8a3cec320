"""The panic word and the return word: kept only as keyed hashes, checked on every message.

A person may choose a word or short phrase (the panic word) that hides the bot behind a
decoy, and optionally a second one (the return word) that brings it back. Neither is ever
stored or held in memory as text: each is normalised exactly as crisis words are
(`bot.matching.crisis.normalize`: case, accents, punctuation, repeated letters) and then
hashed with HMAC-SHA256 under a key derived from the person's own data key. A copied
database therefore shows at most that some digest exists; without the master key (which
unwraps the data key) the digest cannot even be tested against a guess, and whoever holds
the master key can read the person's journal anyway, so a slow password hash would protect
nothing more while costing milliseconds on every message.

Matching is on the whole message: the message, normalised, must be exactly the word or
phrase. A panic word inside a longer sentence does not count, on purpose: the panic path
deletes the chat (and may erase everything), so it must never fire on an ordinary sentence
that happens to contain the word, and a person in a hurry types the word alone. "Blueberry",
"BLUEBERRY!", "blueberry." and "bluebery" all match "blueberry"; "I ate a blueberry" does not.

The cost per message is one normalisation of a short text and one HMAC, both skipped for
messages too long to be a panic word (see bench/bench_panic.py and docs/performance.md).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from bot.core.problems import Problem
from bot.matching.crisis import normalize

# Limits on a chosen word, counted on its normalised form.
MIN_LETTERS = 3
MAX_CHARS = 40
MAX_WORDS = 4
# A message longer than this, before normalisation, is not read at all: even with
# punctuation and emoji around it, a 40-character phrase does not need more.
MAX_MESSAGE_CHARS = 4 * MAX_CHARS

DIGEST_BYTES = 32
_NOT_A_WORD = (
    "expected a word with letters (quote yes, no, on and off: YAML reads them as booleans)"
)
# The derived key is only ever used for these digests; the label keeps it apart from any
# other use of the data key, and the version lets a new scheme live beside this one.
_KEY_LABEL = b"steady|panic word key|v1"


class WordKind(StrEnum):
    PANIC = "panic"
    RETURN = "return"


class WordProblem(StrEnum):
    """Why a chosen word was refused; each has a kind explanation in content/texts."""

    EMPTY = "empty"
    TOO_SHORT = "too_short"
    TOO_LONG = "too_long"
    COMMAND = "command"
    CRISIS = "crisis"
    COMMON = "common"
    SAME_AS_PANIC = "same_as_panic"

    @property
    def text_key(self) -> str:
        return f"panic.problem.{self.value}"


class CrisisWords(Protocol):
    """Anything that says whether a text holds a crisis word (CrisisDetector does)."""

    def detect(self, text: str) -> object | None: ...


def derive_word_key(data_key: bytes) -> bytes:
    """The person's key for word digests, derived from (never equal to) their data key."""
    return hmac.new(data_key, _KEY_LABEL, hashlib.sha256).digest()


def _digest_of_normalised(word_key: bytes, canonical: str) -> bytes:
    return hmac.new(word_key, canonical.encode(), hashlib.sha256).digest()


def word_digest(word_key: bytes, word: str) -> bytes:
    """What is stored for a chosen word: HMAC-SHA256 of its normalised form."""
    return _digest_of_normalised(word_key, normalize(word))


@dataclass(frozen=True, slots=True)
class PanicWords:
    """One person's words as memory and storage hold them: the derived key and digests.

    This is what the handler keeps in its in-memory cache (like the crisis country cache),
    so the check on each message needs no storage, no unwrap and no decryption.
    """

    key: bytes
    panic: bytes
    back: bytes | None = None

    def __repr__(self) -> str:  # no key or digest in tracebacks or debug output
        return f"PanicWords(return_word={self.back is not None})"

    @classmethod
    def create(cls, data_key: bytes, panic_word: str, return_word: str | None = None) -> PanicWords:
        key = derive_word_key(data_key)
        back = None if return_word is None else word_digest(key, return_word)
        return cls(key=key, panic=word_digest(key, panic_word), back=back)

    def with_return_word(self, return_word: str | None) -> PanicWords:
        back = None if return_word is None else word_digest(self.key, return_word)
        return PanicWords(key=self.key, panic=self.panic, back=back)

    def match(self, text: str) -> WordKind | None:
        """PANIC or RETURN when the whole message is that word, else None."""
        if len(text) > MAX_MESSAGE_CHARS:
            return None
        canonical = normalize(text)
        if not canonical or len(canonical) > MAX_CHARS:
            return None
        digest = _digest_of_normalised(self.key, canonical)
        # Both comparisons always run, in constant time: the answer's timing says nothing
        # about which word was close.
        is_panic = hmac.compare_digest(digest, self.panic)
        is_back = self.back is not None and hmac.compare_digest(digest, self.back)
        if is_panic:
            return WordKind.PANIC
        if is_back:
            return WordKind.RETURN
        return None


def check_word(
    word: str,
    *,
    crisis: CrisisWords,
    commands: Collection[str],
    common: Collection[str],
    panic_word: str | None = None,
) -> WordProblem | None:
    """Why `word` cannot be a panic (or, with `panic_word`, a return) word, or None.

    - EMPTY: nothing left after normalisation (only spaces, punctuation or emoji).
    - TOO_SHORT: fewer than MIN_LETTERS letters; short words are typed by accident.
    - TOO_LONG: more than MAX_CHARS characters or MAX_WORDS words once normalised; it
      has to be quick to type in a hurry, and the limit keeps the check cheap.
    - CRISIS: holds a crisis word. The crisis reply runs first on every message, so the
      word would bring up support lines on a watched screen; and the reverse would hide
      the crisis reply from someone who needs it. Checked before COMMAND: "help" is both.
    - COMMAND: starts with "/" or is a command's name ("start", "settings"): the command
      would run instead, or the person would mix the two up under stress.
    - COMMON: every word of it is in `common`, the normalised words and phrases people
      send on their own ("ok", "yes", "thanks", "good night", "tired"); see
      content/panic_words.yaml. A panic word that fires by accident wipes the chat.
    - SAME_AS_PANIC: a return word equal to the panic word would leave cover at once.

    `commands` are the bot's command names; `common` is `parse_common_words(...)`.
    """
    canonical = normalize(word)
    if not canonical:
        return WordProblem.EMPTY
    if sum(char.isalpha() for char in canonical) < MIN_LETTERS:
        return WordProblem.TOO_SHORT
    words = canonical.split()
    if len(canonical) > MAX_CHARS or len(words) > MAX_WORDS:
        return WordProblem.TOO_LONG
    if crisis.detect(word) is not None:
        return WordProblem.CRISIS
    if word.lstrip().startswith("/") or canonical in {normalize(c) for c in commands}:
        return WordProblem.COMMAND
    if canonical in common or all(w in common for w in words):
        return WordProblem.COMMON
    if panic_word is not None and canonical == normalize(panic_word):
        return WordProblem.SAME_AS_PANIC
    return None


def validate_common_words(raw: object, languages: Sequence[str]) -> list[Problem]:
    """content/panic_words.yaml: `common:` maps each language to a list of words."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("common"), Mapping):
        return [Problem((), "expected `common:` mapping each language to a list of words")]
    by_language = raw["common"]
    problems: list[Problem] = [
        Problem(("common",), f"missing language {code!r}")
        for code in languages
        if code not in by_language
    ]
    for code, entries in by_language.items():
        path = ("common", str(code))
        if code not in languages:
            problems.append(Problem(path, f"unknown language; use one of {', '.join(languages)}"))
        if not isinstance(entries, list) or not entries:
            problems.append(Problem(path, "expected a non-empty list of words"))
            continue
        for index, entry in enumerate(entries):
            if not isinstance(entry, str) or not normalize(entry):
                problems.append(
                    Problem(
                        (*path, index),
                        _NOT_A_WORD,
                    )
                )
    return problems


def parse_common_words(raw: Mapping[str, Mapping[str, list[str]]]) -> frozenset[str]:
    """Every language's entries, normalised, in one set (people switch languages)."""
    return frozenset(normalize(entry) for entries in raw["common"].values() for entry in entries)
