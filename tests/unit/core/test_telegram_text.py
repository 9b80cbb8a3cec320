"""The one UTF-16 length and the one truncator (bot/core/telegram_text.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.core.telegram_text import CALLBACK_DATA_LIMIT, ELLIPSIS, MESSAGE_LIMIT, truncate, utf16_len


def test_limits_come_from_ptb() -> None:
    assert (MESSAGE_LIMIT, CALLBACK_DATA_LIMIT) == (4096, 64)


def test_length_counts_utf16_units() -> None:
    assert utf16_len("abc") == 3
    assert utf16_len("\U0001f600") == 2


def test_truncate_keeps_short_text_and_marks_a_cut() -> None:
    assert truncate("short", 10, marker=ELLIPSIS) == "short"
    clipped = truncate("🌿" * 10, 7, marker=ELLIPSIS)  # each leaf is two UTF-16 units
    assert utf16_len(clipped) <= 7 and clipped.endswith(ELLIPSIS)
    assert truncate("abc", 1, marker=ELLIPSIS) == ELLIPSIS
    assert truncate("abc", 0, marker=ELLIPSIS) == ""


def test_truncate_ends_on_a_space_near_the_end() -> None:
    assert truncate("one two three four", 16) == "one two three "
    assert truncate("abcdefghijklmnop qr", 10) == "abcdefghij"  # no space near: split the word


@given(st.text(), st.integers(min_value=0, max_value=50), st.booleans())
def test_truncate_never_exceeds_the_budget(text: str, budget: int, marked: bool) -> None:
    marker = ELLIPSIS if marked else ""
    cut = truncate(text, budget, marker=marker)
    assert utf16_len(cut) <= max(budget, 0)
    assert text.startswith(cut.removesuffix(marker).rstrip() if marker else cut)
