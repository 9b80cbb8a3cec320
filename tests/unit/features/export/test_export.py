"""The export builders alone: Markdown that parses back to every answer, and a PDF whose
pages follow from its line count."""

from __future__ import annotations

import io
import math
from datetime import date

import pytest
from pypdf import PdfReader

from bot.features.export.pdf_text import (
    BODY,
    FONT,
    INDENT,
    LINES_PER_PAGE,
    MARGIN_SIDE,
    new_pdf,
    pages_for,
    pdf_safe,
)
from bot.features.export.render import (
    ExportDocument,
    build_markdown,
    build_pdf,
    filename,
    pdf_lines,
)
from tests.helpers.export import document

TRICKY = (
    "# not a heading",
    "> not a quote\n\n**not bold**",
    "Zoë — “quoted” 🌱\nsecond line\n\n\nafter blank lines",
    "ends with a newline\n",
)


def parse(markdown: str) -> list[tuple[str, str]]:
    """(bold line, the blockquote under it), in order."""
    found: list[tuple[str, str]] = []
    current: str | None = None
    quote: list[str] | None = None
    for line in [*markdown.splitlines(), "# end"]:
        if line.startswith(">") and current is not None:
            quote = [*(quote or []), line[2:]]
            continue
        if current is not None and quote is not None:
            found.append((current, "\n".join(quote)))
            current, quote = None, None
        if line.startswith("**") and line.endswith("**"):
            current = line[2:-2]
    return found


def test_markdown_keeps_every_answer_exactly() -> None:
    doc = document(answers=1, parts=TRICKY, journal=2)
    parsed = parse(build_markdown(doc))
    whole = "\n\n".join(TRICKY)
    assert parsed == [("Question 0?", whole), ("A prompt", "entry 1")]
    assert "> entry 0" in build_markdown(doc)  # an entry without a prompt is there too


def test_markdown_structure() -> None:
    text = build_markdown(document(journal=1))
    lines = text.splitlines()
    assert lines[0] == "# Your notes"
    assert "## A worksheet" in lines and "### S" in lines and "_Started 2026-11-29_" in lines
    assert "## Check-in replies" in lines and "### 2026-11-30 08:15" in lines
    assert "## Check-in replies" not in build_markdown(document())


def test_filename_is_neutral() -> None:
    assert filename(date(2026, 11, 30), "md") == "notes-2026-11-30.md"


@pytest.mark.parametrize(
    ("text", "safe", "replaced"),
    [
        ("“Zoë” — café…", "“Zoë” — café…", False),
        ("Łódź", "Łódź", False),
        ("Ελλάδα, Москва", "Ελλάδα, Москва", False),
        ("مرحبا שלום नमस्ते 你好", "مرحبا שלום नमस्ते 你好", False),
        ("I feel 🌱 today", "I feel [seedling] today", True),
        ("❤️", "[heavy black heart]", True),
        ("👍🏽", "[thumbs up sign]", True),  # the skin tone goes with it
        ("🇬🇧", "[flag GB]", True),
        ("bell\x07tab\t", "bell tab    ", False),
    ],
)
def test_pdf_safe(text: str, safe: str, replaced: bool) -> None:
    assert pdf_safe(text) == (safe, replaced)


def _pages(doc: ExportDocument) -> int:
    return len(PdfReader(io.BytesIO(build_pdf(doc))).pages)


@pytest.mark.parametrize(
    ("answers", "extra_part", "lines"),
    [
        (0, False, 7),
        (9, False, 43),
        (9, True, 45),  # exactly one full page
        (10, False, 47),
        (22, False, 95),
    ],
)
def test_pdf_pages_follow_from_the_line_count(answers: int, extra_part: bool, lines: int) -> None:
    # Title, subtitle, blank, worksheet title, status, blank, section title: 7 lines; then
    # each answer is a blank, its question, its date and one line per part (a blank between).
    doc = document(answers, parts=("one",), first=("one", "two") if extra_part else None)
    assert len(pdf_lines(doc)) == lines
    assert _pages(doc) == pages_for(lines) == max(1, math.ceil(lines / LINES_PER_PAGE))


def test_long_text_wraps_within_the_page_and_loses_nothing() -> None:
    long_answer = " ".join(f"word{i}" for i in range(400)) + " " + "x" * 300
    doc = document(1, parts=(long_answer,))
    wrapped = [line for line in pdf_lines(doc) if line.indent == INDENT]
    assert len(wrapped) > 10
    measure = new_pdf()
    measure.set_font(FONT, "", BODY)
    room = measure.w - 2 * MARGIN_SIDE - INDENT
    assert all(measure.get_string_width(line.text) <= room for line in wrapped)
    joined = " ".join(line.text for line in wrapped)
    assert joined.replace(" ", "") == long_answer.replace(" ", "")
    assert _pages(doc) == pages_for(len(pdf_lines(doc)))


def _text(doc: ExportDocument) -> str:
    reader = PdfReader(io.BytesIO(build_pdf(doc)))
    return "\n".join(page.extract_text() for page in reader.pages)


def test_pdf_says_when_emoji_are_shown_by_name() -> None:
    assert "[brackets]" not in _text(document(1, parts=("all latin",)))
    text = _text(document(1, parts=("a 🌱 here",)))
    assert "Emoji appear" in text and "a [seedling] here" in text


MULTI_SCRIPT = (
    "English: “curly quotes” — and an em dash",
    "Français : déjà vu, Ελληνικά: καλημέρα",
    "Русский: доброе утро, Українська: дякую",
    "العربية: صباح الخير يا صديقي",
    "עברית: בוקר טוב חבר",
    "हिन्दी: सुप्रभात दोस्त",
    "বাংলা: শুভ সকাল",
    "தமிழ்: காலை வணக்கம்",
    "ਪੰਜਾਬੀ: ਸ਼ੁਭ ਸਵੇਰ",
    "ไทย: สวัสดีตอนเช้า",
    "中文: 早上好朋友",
    "日本語: おはようございます",
    "한국어: 좋은 아침입니다",
)


def _letters(text: str) -> str:
    """What extraction preserves of a word whatever the layout: its characters, without
    spaces (CJK comes out one glyph at a time) or control characters."""
    return "".join(c for c in text if c.isprintable() and not c.isspace())


def _words(text: str) -> list[str]:
    return text.replace(":", " ").replace(",", " ").split()


def test_every_script_survives_into_the_pdf() -> None:
    doc = document(1, parts=MULTI_SCRIPT, journal=1)
    extracted = _text(doc)
    text = _letters(extracted)
    # Shaping draws an Indic vowel sign before the consonant it follows in writing, and
    # extraction reads glyphs as drawn: such a word is found as the same letters in a word.
    shuffled = {"".join(sorted(_letters(word))) for word in _words(extracted)}
    missing = [
        word
        for word in [w for part in MULTI_SCRIPT for w in _words(part)]
        if _letters(word) not in text and "".join(sorted(_letters(word))) not in shuffled
    ]
    assert not missing
    assert "[" not in text  # nothing shown by name: every script has its font


def test_right_to_left_paragraphs_are_set_flush_right() -> None:
    doc = document(1, parts=("שלום עולם", "hello"))
    lines = {line.text: line for line in pdf_lines(doc)}
    assert lines["שלום עולם"].rtl
    assert not lines["hello"].rtl


def test_only_the_needed_fonts_are_embedded() -> None:
    latin = build_pdf(document(1, parts=("plain words",)))
    cjk = build_pdf(document(1, parts=("你好",)))
    assert b"CJK" not in latin and b"Arabic" not in latin
    assert b"NotoSansCJK" in cjk
    assert len(latin) < 60_000  # the subset of the glyphs used, not whole fonts


def test_long_cjk_text_wraps_within_the_page() -> None:
    answer = "我们一起走" * 80
    doc = document(1, parts=(answer,))
    wrapped = [line for line in pdf_lines(doc) if line.indent == INDENT]
    assert len(wrapped) > 2
    assert "".join(line.text for line in wrapped) == answer


def test_pdf_safe_composes_decomposed_accents() -> None:
    text, replaced = pdf_safe("Zoe\u0308 cafe\u0301")
    assert text == "Zoë café"
    assert not replaced
