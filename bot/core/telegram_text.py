"""Telegram's text rules in one place: its limits (from PTB's constants, which cite the Bot
API), how it counts length, and the one way we shorten a text to fit."""

from __future__ import annotations

from telegram.constants import BulkRequestLimit, InlineKeyboardButtonLimit, MessageLimit

# Characters (UTF-16 code units) in one message; 1-64 bytes of callback data per button;
# 1-64 characters of a /start deep-link payload; ids per deleteMessages call.
MESSAGE_LIMIT: int = MessageLimit.MAX_TEXT_LENGTH
CALLBACK_DATA_LIMIT: int = InlineKeyboardButtonLimit.MAX_CALLBACK_DATA
DEEP_LINK_LIMIT: int = MessageLimit.DEEP_LINK_LENGTH
BULK_DELETE_LIMIT: int = BulkRequestLimit.MAX_LIMIT
ELLIPSIS = "…"


def utf16_len(text: str) -> int:
    """Telegram counts message length and entity offsets in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def truncate(text: str, budget: int, *, marker: str = "") -> str:
    """At most `budget` UTF-16 units of `text`, `marker` (e.g. an ellipsis) included when
    the text had to be cut. Cut at a word: after the last whole word that fits, unless that
    would lose more than half of the room (one very long word, or a script written without
    spaces), when the word is split instead."""
    if utf16_len(text) <= budget:
        return text
    room = budget - utf16_len(marker)
    if room <= 0:
        return marker[: max(budget, 0)]
    units = 0
    end = len(text)
    for index, char in enumerate(text):
        units += 2 if ord(char) > 0xFFFF else 1
        if units > room:
            end = index
            break
    kept = text[:end]
    if end < len(text) and not text[end].isspace():  # inside a word: end before it
        space = max(kept.rfind(c) for c in (" ", "\n", "\t", "\u00a0"))
        kept = kept[: space + 1] if space >= len(kept) // 2 else kept
    return kept.rstrip() + marker if marker else kept


def pieces(text: str, budget: int) -> list[str]:
    """`text` whole, in as few pieces of at most `budget` UTF-16 units as `truncate`'s word
    cuts allow: for words that must all reach the person, one message after another."""
    out: list[str] = []
    rest = text
    while utf16_len(rest) > budget:
        piece = truncate(rest, budget) or rest[0]
        out.append(piece.rstrip() or piece)
        rest = rest[len(piece) :].lstrip()
    if rest or not out:
        out.append(rest)
    return out
