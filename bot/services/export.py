"""/export: everything a person wrote, as a Markdown file or a PDF, made in memory only.

`collect` gathers and decrypts into an `ExportDocument` (all wording already filled in);
`build_markdown` and `build_pdf` only lay it out, so they are pure and tested alone.

Markdown keeps every character exactly. Answers are blockquotes, so nothing a person typed
(a line starting with "#", say) can break the file's structure.

The PDF is something people hand to an advocate, a lawyer or a court, so it shows what
they wrote in any script: it embeds Noto fonts (Latin, Greek, Cyrillic, Arabic, Hebrew,
the Indic scripts, Thai, CJK and more; see `_SCRIPT_FONTS`), subset to the glyphs used, and
shapes text with HarfBuzz. Only emoji (no colour font would survive a printer) become their
names in brackets, with a note at the top saying so. Every line has the same height, so a
document of n lines fills exactly ceil(n / LINES_PER_PAGE) pages, which the tests rely on.
"""

from __future__ import annotations

import importlib.resources
import math
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, tzinfo
from functools import cache
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from fontTools.ttLib import TTFont
from fpdf import FPDF
from fpdf.enums import XPos, YPos

from bot.locales import Locale
from bot.services import local_format
from bot.services.people import Person
from bot.services.worksheets import Answer, WorksheetService
from bot.storage.journal import JournalStore, journal_slot
from bot.texts import Tx

# --- the document -----------------------------------------------------------------------


@dataclass(frozen=True)
class ExportAnswer:
    question: str
    date: str
    parts: tuple[str, ...]


@dataclass(frozen=True)
class ExportSection:
    title: str
    answers: tuple[ExportAnswer, ...]


@dataclass(frozen=True)
class ExportWorksheet:
    title: str
    status: str
    sections: tuple[ExportSection, ...]


@dataclass(frozen=True)
class ExportEntry:
    when: str
    prompt: str | None
    text: str


@dataclass(frozen=True)
class ExportDocument:
    title: str
    subtitle: str
    worksheets: tuple[ExportWorksheet, ...]
    journal_title: str
    journal: tuple[ExportEntry, ...]
    replaced_note: str  # shown at the top of a PDF that shows some characters by name

    @property
    def is_empty(self) -> bool:
        return not self.worksheets and not self.journal


def filename(day: date, extension: str) -> str:
    """Neutral on purpose: a file list or a download bar shows nothing about the content."""
    return f"notes-{day.isoformat()}.{extension}"


def zone_of(person: Person) -> tzinfo:
    name = person.profile.timezone
    if not name:
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def _day(timestamp: int, zone: tzinfo, language: str) -> str:
    return local_format.day(datetime.fromtimestamp(timestamp, zone).date(), language)


def _moment(timestamp: int, zone: tzinfo, language: str) -> str:
    return local_format.moment(datetime.fromtimestamp(timestamp, zone), language)


async def collect(
    service: WorksheetService,
    journal: JournalStore,
    person: Person,
    locale: Locale,
    now: datetime,
) -> ExportDocument:
    """Everything the person wrote, with headings, worksheet titles and questions, prompts
    and dates in their language (`locale`)."""
    zone = zone_of(person)
    tx: Tx = locale.texts
    prompts = locale.prompts
    lang = local_format.locale_for(locale.code, person.profile.country)
    sheets: list[ExportWorksheet] = []
    for row in sorted(await service.started(person), key=lambda r: r.started_at):
        answers = await service.answers(person, row.worksheet_id)
        if not answers:
            continue
        worksheet = locale.worksheets.get(row.worksheet_id) or service.get(row.worksheet_id)
        questions = {q.id: q.text for q in worksheet.questions} if worksheet is not None else {}
        sections: list[ExportSection] = []
        placed: set[str] = set()
        for section in worksheet.sections if worksheet is not None else ():
            items = [answers[q.id] for q in section.questions if q.id in answers]
            placed.update(a.question.id for a in items)
            if items:
                sections.append(_section(section.title, items, zone, lang, questions))
        others = [a for qid, a in answers.items() if qid not in placed]
        if others:
            sections.append(
                _section(tx("worksheets.export.doc_other"), others, zone, lang, questions)
            )
        started = _day(row.started_at, zone, lang)
        status = (
            tx(
                "worksheets.export.doc_finished",
                date=started,
                finished=_day(row.finished_at, zone, lang),
            )
            if row.finished_at is not None
            else tx("worksheets.export.doc_started", date=started)
        )
        title = worksheet.title if worksheet is not None else row.worksheet_id
        sheets.append(ExportWorksheet(title, status, tuple(sections)))
    entries = [
        ExportEntry(
            _moment(entry.created_at, zone, lang),
            prompts.get(entry.prompt_id) if entry.prompt_id else None,
            person.cipher.open_text(journal_slot(entry.entry_id), entry.text_enc),
        )
        for entry in await journal.all(person.person_id)
    ]
    return ExportDocument(
        title=tx("worksheets.export.doc_title"),
        subtitle=tx(
            "worksheets.export.doc_exported",
            date=local_format.day(now.astimezone(zone).date(), lang),
        ),
        worksheets=tuple(sheets),
        journal_title=tx("worksheets.export.doc_journal"),
        journal=tuple(entries),
        replaced_note=tx("export_pdf.placeholder_note"),
    )


def _section(
    title: str, answers: list[Answer], zone: tzinfo, language: str, questions: Mapping[str, str]
) -> ExportSection:
    return ExportSection(
        title,
        tuple(
            ExportAnswer(
                questions.get(a.question.id, a.question.text),
                _day(a.first_at, zone, language),
                a.parts,
            )
            for a in answers
        ),
    )


# --- Markdown ---------------------------------------------------------------------------


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _quote(text: str) -> list[str]:
    return [f"> {line}" if line else ">" for line in text.replace("\r\n", "\n").split("\n")]


def _quoted_parts(parts: tuple[str, ...]) -> list[str]:
    lines: list[str] = []
    for index, part in enumerate(parts):
        if index:
            lines.append(">")
        lines.extend(_quote(part))
    return lines


def build_markdown(doc: ExportDocument) -> str:
    out = [f"# {_one_line(doc.title)}", "", doc.subtitle]
    for sheet in doc.worksheets:
        out += ["", f"## {_one_line(sheet.title)}", "", f"_{sheet.status}_"]
        for section in sheet.sections:
            out += ["", f"### {_one_line(section.title)}"]
            for answer in section.answers:
                out += ["", f"**{_one_line(answer.question)}**", f"_{answer.date}_", ""]
                out += _quoted_parts(answer.parts)
    if doc.journal:
        out += ["", f"## {_one_line(doc.journal_title)}"]
        for entry in doc.journal:
            out += ["", f"### {entry.when}"]
            if entry.prompt:
                out += ["", f"**{_one_line(entry.prompt)}**"]
            out += ["", *_quote(entry.text)]
    return "\n".join(out) + "\n"


# --- PDF ------------------------------------------------------------------------------

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
_SCRIPT_FONTS = (
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
def _coverage() -> dict[int, str]:
    """Each code point the shipped fonts draw -> the file that draws it (NotoSans first)."""
    covered: dict[int, str] = {}
    for name in (f"{FONT}-Regular.ttf", *_SCRIPT_FONTS):
        font = TTFont(font_path(name), lazy=True)
        for code in font.getBestCmap():
            covered.setdefault(code, name)
        font.close()
    return covered


def _placeholder(char: str) -> str:
    name = unicodedata.name(char, "")
    return f"[{name.lower()}]" if name else "[?]"


def pdf_safe(text: str) -> tuple[str, bool]:
    """Text the shipped fonts can draw, and whether anything became a placeholder: an
    emoji becomes its name in brackets ("[seedling]"), a flag "[flag GB]"."""
    covered = _coverage()
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
            out.append(_placeholder(char))
            replaced = True
    return "".join(out), replaced


def _is_rtl(text: str) -> bool:
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


def _fonts_for(texts: Iterable[str]) -> list[str]:
    """The script fonts a document needs (a Latin-only one embeds none of them)."""
    covered = _coverage()
    needed = {covered.get(ord(c)) for text in texts for c in text}
    return [name for name in _SCRIPT_FONTS if name in needed]


def _new_pdf(texts: Iterable[str] = ()) -> FPDF:
    pdf = FPDF(format="A4", unit="mm")
    pdf.set_margins(MARGIN_SIDE, MARGIN_TOP, MARGIN_SIDE)
    pdf.set_auto_page_break(True, margin=MARGIN_BOTTOM)
    for style, face in _STYLES.items():
        pdf.add_font(FONT, style, font_path(f"{FONT}-{face}.ttf"))
    fallbacks = []
    for name in _fonts_for(texts):
        family = name.split("-")[0]
        pdf.add_font(family, "", font_path(name))
        fallbacks.append(family)
    if fallbacks:
        pdf.set_fallback_fonts(fallbacks, exact_match=False)
    pdf.set_text_shaping(True)
    return pdf


def _texts(doc: ExportDocument) -> list[str]:
    found = [doc.title, doc.subtitle, doc.journal_title, doc.replaced_note]
    for sheet in doc.worksheets:
        found += [sheet.title, sheet.status]
        for section in sheet.sections:
            found.append(section.title)
            for answer in section.answers:
                found += [answer.question, answer.date, *answer.parts]
    for entry in doc.journal:
        found += [entry.when, entry.prompt or "", entry.text]
    return found


class _Layout:
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
            rtl = _is_rtl(paragraph)
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


def pdf_lines(doc: ExportDocument, pdf: FPDF | None = None) -> list[PdfLine]:
    layout = _Layout(pdf if pdf is not None else _new_pdf(_texts(doc)))
    layout.text(doc.title, "B", TITLE)
    layout.text(doc.subtitle)
    body = layout.lines
    layout.lines = []
    for sheet in doc.worksheets:
        layout.blank()
        layout.text(sheet.title, "B", HEADING)
        layout.text(sheet.status, "I")
        for section in sheet.sections:
            layout.blank()
            layout.text(section.title, "B", HEADING)
            for answer in section.answers:
                layout.blank()
                layout.text(answer.question, "B")
                layout.text(answer.date, "I")
                for index, part in enumerate(answer.parts):
                    if index:
                        layout.blank()
                    layout.text(part, indent=INDENT)
    if doc.journal:
        layout.blank()
        layout.text(doc.journal_title, "B", HEADING)
        for entry in doc.journal:
            layout.blank()
            layout.text(entry.when, "B")
            if entry.prompt:
                layout.text(entry.prompt, "I")
            layout.text(entry.text, indent=INDENT)
    rest = layout.lines
    layout.lines = body
    if layout.replaced:
        layout.text(doc.replaced_note, "I")
    return layout.lines + rest


def build_pdf(doc: ExportDocument) -> bytes:
    pdf = _new_pdf(_texts(doc))
    pdf.set_title(doc.title)
    lines = pdf_lines(doc, pdf)
    pdf.add_page()
    for line in lines:
        pdf.set_font(FONT, line.style, line.size)
        pdf.set_x(MARGIN_SIDE + line.indent)
        pdf.cell(
            w=pdf.w - 2 * MARGIN_SIDE - line.indent,
            h=LINE_HEIGHT,
            text=line.text,
            align="R" if line.rtl else "L",
            new_x=XPos.LMARGIN,
            new_y=YPos.NEXT,
        )
    return bytes(pdf.output())
