"""Normalisation for crisis matching: the one form terms and messages are compared in.

See the docstring of bot.matching.crisis for what each step does and why.
"""

from __future__ import annotations

import itertools
import re
import unicodedata

_APOSTROPHE = "'"
CRY = "emojicry"
LAUGH = "emojilaugh"
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
    # Crying and broken-heart emoji are distress said without words ("😭😭😭"); they read
    # as one word that patterns can name, and detection also reads the text without it.
    **dict.fromkeys("😭😢😿💔🥺😥😰😖😣😩😫", f" {CRY} "),
    # Laughing emoji are laughter as "haha" is (content/crisis_terms.yaml's `jest`).
    **dict.fromkeys("😂🤣😅😆😹😝😜", f" {LAUGH} "),
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


def forms(text: str) -> list[list[str]]:
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
    return " ".join(forms(text)[0])


# Three or more single letters in a row ("k i l l  m y s e l f", "h e l p"): people space
# letters out to get past filters, or for emphasis. Two spaces or more between letters
# mark a word break; a single space does not.
_SPACED = re.compile(r"(?:(?<=\s)|^)(?:[^\W\d_] ){2,}[^\W\d_](?=\s|$)")
_WORD_BREAK = re.compile(r"\s{2,}")


def spaced_out(text: str) -> str | None:
    """The text with spaced-out letters joined into words, or None when there are none."""
    folded = _fold(text)
    if not _SPACED.search(folded):
        return None
    chunks = _WORD_BREAK.split(folded)
    joined = []
    for chunk in chunks:
        joined.append(_SPACED.sub(lambda m: m.group(0).replace(" ", ""), chunk))
    return _collapse("  ".join(joined))
