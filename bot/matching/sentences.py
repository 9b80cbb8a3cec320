"""How a message is cut for the crisis screen: its sentences, and whether terms
cover every word of it. Plain text work, shared by the rules (crisis.py) and the model's
reading of long entries (crisis_model.py), so both cut a message the same way.
"""

from __future__ import annotations

import re

from bot.matching.patterns import BREAK

# A sentence ends at . ! ? ; … followed by a space, or at a blank line: "S.O.S." and
# "want...to...die" stay whole, "It was years ago. He's outside." is two sentences. A single
# line break does not end one: people break lines in the middle of a phrase.
SENTENCE_END = re.compile(r"[.!?;…。]+(?=\s|$)|\n\s*\n")


# Where a clause ends inside a sentence too: a comma, a colon or a dash before a space.
CLAUSE_END = re.compile(r"[,:–—]+(?=\s)|" + SENTENCE_END.pattern)


def sentences(text: str) -> list[str]:
    return [s for s in SENTENCE_END.split(text) if s.strip()]


def clauses(text: str) -> list[str]:
    """The text's clauses, whitespace collapsed: "long day, made dinner, then he came back
    and he has a knife" is three."""
    return [" ".join(c.split()) for c in CLAUSE_END.split(text) if c.strip()]


def covered(text: str, spans: list[tuple[int, int]]) -> bool:
    """Whether the spans leave no word of `text` (" w1 w2 . w3 ") outside them; the
    break between sentences is not a word."""
    inside = bytearray(len(text))
    for start, end in spans:
        inside[start:end] = b"\x01" * (end - start)
    position = 0
    for word in text.split(" "):
        if word and word != BREAK and not all(inside[position : position + len(word)]):
            return False
        position += len(word) + 1
    return True
