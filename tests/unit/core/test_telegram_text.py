"""The one UTF-16 length and the one truncator (bot/core/telegram_text.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.core.telegram_text import (
    CALLBACK_DATA_LIMIT,
    CAPTION_LIMIT,
    ELLIPSIS,
    MESSAGE_LIMIT,
    split_caption,
    truncate,
    utf16_len,
)
from bot.features.discretion.service import EXPORT_LIFETIME
from tests.helpers.bot import shared_content


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


@given(st.text(max_size=5000))
def test_split_caption_always_fits_and_loses_nothing(text: str) -> None:
    caption, whole = split_caption(text)
    assert utf16_len(caption) <= CAPTION_LIMIT
    if whole is None:
        assert caption == text.strip()
    else:
        assert caption.endswith(ELLIPSIS) and utf16_len(whole) <= MESSAGE_LIMIT
        assert text.strip().startswith(whole)


def test_every_caption_the_bot_writes_fits_in_every_language() -> None:
    """The captions come from content: the exports' (with the notes added to them, the
    longest way round) and the /progress chart's reading."""
    content = shared_content()
    for code in content.locales.codes:
        tx = content.locales[code].texts
        notes = "\n\n" + tx("discretion.export_copy") + " "
        notes += tx("discretion.export_leaves", minutes=EXPORT_LIFETIME // 60)
        captions = [
            tx(key) + notes
            for key in ("worksheets.export.caption", "worksheets.export.caption_pdf")
        ]
        names = tx.keys()  # a Tx is no mapping: it lists its keys
        readings = [tx(k) for k in names if k.startswith("progress.reading.")]
        assert readings
        captions += readings + [tx(k) for k in names if "export_caption" in k]
        for caption in captions:
            assert utf16_len(caption.strip()) <= CAPTION_LIMIT, (code, caption[:60])
