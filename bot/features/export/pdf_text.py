"""Text in a PDF in any script people write: embedded Noto fonts (Latin, Greek, Cyrillic,
Arabic, Hebrew, the Indic scripts, Thai, CJK and more; see `SCRIPT_FONTS`), subset to the
glyphs used, shaped with HarfBuzz; emoji become their names in brackets (no colour font
would survive a printer). Every line has the same height, so n lines fill exactly
ceil(n / LINES_PER_PAGE) pages. Used by every export that makes a PDF."""

from __future__ import annotations

import importlib.resources
import math
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # fpdf and fontTools load on the first PDF, not at start (issue 25)
    from fpdf import FPDF

LINE_HEIGHT = 6.0  # mm, every line alike
MARGIN_SIDE = 18.0
MARGIN_TOP = 15.0
# A4 is 297 mm tall: 15 + 45 * 6 = 285 leaves the bottom margin below; the extra half
# millimetre keeps float rounding from pushing the 45th line onto the next page.
MARGIN_BOTTOM = 11.5
LINES_PER_PAGE = 45
INDENT = 6.0
BODY, HEADING, TITLE = 10.5, 12.5, 15.0

FONT = "NotoSans"
# bot/fonts: Noto subsets (tools/subset_fonts.py, SIL Open Font License, LICENSE.txt there).
# NotoSans draws Latin, Greek and Cyrillic in three styles; one regular face per other
# script takes over for the characters NotoSans lacks (bold and italic there fall back to
# regular); HarfBuzz (uharfbuzz) shapes Arabic joining, Indic conjuncts and right-to-left
# order. Only the faces a document needs are embedded, and only the glyphs it uses.
_STYLES = {"": "Regular", "B": "Bold", "I": "Italic"}
SCRIPT_FONTS = (
    "NotoSansArabic-Regular.ttf", "NotoSansHebrew-Regular.ttf",
    "NotoSansDevanagari-Regular.ttf", "NotoSansBengali-Regular.ttf",
    "NotoSansGurmukhi-Regular.ttf", "NotoSansGujarati-Regular.ttf",
    "NotoSansOriya-Regular.ttf", "NotoSansTamil-Regular.ttf", "NotoSansTelugu-Regular.ttf",
    "NotoSansKannada-Regular.ttf", "NotoSansMalayalam-Regular.ttf",
    "NotoSansSinhala-Regular.ttf", "NotoSansThai-Regular.ttf",
    "NotoSansArmenian-Regular.ttf", "NotoSansGeorgian-Regular.ttf",
    "NotoSansEthiopic-Regular.ttf", "NotoSansCJKsc-Regular.otf",
)  # fmt: skip
# Drawn by no font and meaning nothing alone: emoji joiners, variation selectors, skin tones,
# tag characters (in some flags). Dropped around the placeholder of what they modify.
_SILENT = frozenset(
    {0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, *range(0xFE00, 0xFE10), *range(0x1F3FB, 0x1F400),
     *range(0xE0020, 0xE0080)}
)  # fmt: skip
_REGIONAL = range(0x1F1E6, 0x1F200)


def font_path(name: str) -> Path:
    return Path(str(importlib.resources.files("bot").joinpath("fonts", name)))


@cache
def coverage() -> dict[int, str]:
    """Each code point the shipped fonts draw -> the file that draws it (NotoSans first)."""
    from fontTools.ttLib import TTFont  # noqa: PLC0415 - heavy, first PDF only

    covered: dict[int, str] = {}
    for name in (f"{FONT}-Regular.ttf", *SCRIPT_FONTS):
        font = TTFont(font_path(name), lazy=True)
        for code in font.getBestCmap():
            covered.setdefault(code, name)
        font.close()
    return covered


def placeholder(char: str) -> str:
    name = unicodedata.name(char, "")
    return f"[{name.lower()}]" if name else "[?]"


def pdf_safe(text: str) -> tuple[str, bool]:
    """Text the shipped fonts can draw, and whether anything became a placeholder: an
    emoji becomes its name in brackets ("[seedling]"), a flag "[flag GB]"."""
    covered = coverage()
    out: list[str] = []
    replaced = False
    flag = ""
    for char in unicodedata.normalize("NFC", text):
        code = ord(char)
        if code in _REGIONAL:
            flag += chr(ord("A") + code - _REGIONAL.start)
            if len(flag) == 2:
                out.append(f"[flag {flag}]")
                replaced, flag = True, ""
            continue
        if char == "\t":
            out.append("    ")
        elif code in _SILENT:
            continue
        elif not char.isprintable() and char not in "\r\n":
            out.append(" ")
        elif code in covered or char in "\r\n":
            out.append(char)
        else:
            out.append(placeholder(char))
            replaced = True
    return "".join(out), replaced


def is_rtl(text: str) -> bool:
    """Right to left when the first letter with a direction is Arabic or Hebrew."""
    for char in text:
        kind = unicodedata.bidirectional(char)
        if kind in ("R", "AL"):
            return True
        if kind == "L":
            return False
    return False


@dataclass(frozen=True)
class PdfLine:
    text: str = ""
    style: str = ""  # "", "B" or "I"
    size: float = BODY
    indent: float = 0.0
    rtl: bool = False  # set flush right


def pages_for(line_count: int) -> int:
    return max(1, math.ceil(line_count / LINES_PER_PAGE))


def fonts_for(texts: Iterable[str]) -> list[str]:
    """The script fonts a document needs (a Latin-only one embeds none of them)."""
    covered = coverage()
    needed = {covered.get(ord(c)) for text in texts for c in text}
    return [name for name in SCRIPT_FONTS if name in needed]


def new_pdf(texts: Iterable[str] = ()) -> FPDF:
    from fpdf import FPDF  # noqa: PLC0415 - heavy, first PDF only

    pdf = FPDF(format="A4", unit="mm")
    pdf.set_margins(MARGIN_SIDE, MARGIN_TOP, MARGIN_SIDE)
    pdf.set_auto_page_break(True, margin=MARGIN_BOTTOM)
    for style, face in _STYLES.items():
        pdf.add_font(FONT, style, font_path(f"{FONT}-{face}.ttf"))
    fallbacks = []
    for name in fonts_for(texts):
        family = name.split("-")[0]
        pdf.add_font(family, "", font_path(name))
        fallbacks.append(family)
    if fallbacks:
        pdf.set_fallback_fonts(fallbacks, exact_match=False)
    pdf.set_text_shaping(True)
    return pdf


class Layout:
    """Wraps text into lines using the fonts' real (shaped) widths."""

    def __init__(self, pdf: FPDF) -> None:
        self.pdf = pdf
        self.width = self.pdf.w - 2 * MARGIN_SIDE
        self.lines: list[PdfLine] = []
        self.replaced = False
        self._widths: dict[tuple[str, float, str], float] = {}

    def blank(self) -> None:
        self.lines.append(PdfLine())

    def text(self, text: str, style: str = "", size: float = BODY, indent: float = 0.0) -> None:
        safe, replaced = pdf_safe(text)
        self.replaced = self.replaced or replaced
        self.pdf.set_font(FONT, style, size)
        room = self.width - indent
        for paragraph in safe.replace("\r\n", "\n").split("\n"):
            rtl = is_rtl(paragraph)
            for line in self._wrap(paragraph, room):
                self.lines.append(PdfLine(line, style, size, indent, rtl))

    def _width(self, text: str) -> float:
        # Shaping and the bidi pass are pure Python in fpdf2: each word once per style.
        key = (self.pdf.font_style, self.pdf.font_size_pt, text)
        found = self._widths.get(key)
        if found is None:
            found = self._widths[key] = float(self.pdf.get_string_width(text))
        return found

    def _fits(self, text: str, room: float) -> bool:
        return self._width(text) <= room

    def _wrap(self, paragraph: str, room: float) -> list[str]:
        # Words are measured one at a time and added up (shaping never joins across a
        # space), so a long paragraph costs one shaping per word, not one per candidate line.
        lines: list[str] = []
        current, width = "", 0.0
        space = self._width(" ")
        for word in paragraph.split(" "):
            word_width = self._width(word)
            if current and width + space + word_width <= room:
                current, width = f"{current} {word}", width + space + word_width
                continue
            if not current and word_width <= room:
                current, width = word, word_width
                continue
            if current:
                lines.append(current)
            if word_width <= room:
                current, width = word, word_width
            else:
                current = self._break_word(word, room, lines)
                width = self._width(current)
        lines.append(current)
        return lines

    def _break_word(self, word: str, room: float, lines: list[str]) -> str:
        """A word wider than a line (a long link, or CJK, which has no spaces): full lines
        go to `lines`, and the remainder is returned to start the next line."""
        piece = ""
        for char in word:
            if piece and not self._fits(piece + char, room):
                lines.append(piece)
                piece = ""
            piece += char
        return piece
