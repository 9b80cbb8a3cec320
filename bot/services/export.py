"""/export: everything a person wrote, as a Markdown file or a PDF, made in memory only.

`collect` gathers and decrypts into an `ExportDocument` (all wording already filled in);
`build_markdown` and `build_pdf` only lay it out, so they are pure and tested alone.

Markdown keeps every character exactly. Answers are blockquotes, so nothing a person typed
(a line starting with "#", say) can break the file's structure.

The PDF embeds no font: a TrueType font that covers every script would make each file
megabytes, and the core Helvetica only knows Latin-1. So text is transliterated (curly
quotes, dashes, accented letters outside Latin-1 become their plain forms) and anything
left (emoji, most non-Latin scripts) becomes "?", with a note at the top saying so. Every
line has the same height, so a document of n lines fills exactly ceil(n / LINES_PER_PAGE)
pages, which the tests rely on.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from fpdf import FPDF
from fpdf.enums import XPos, YPos

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
    replaced_note: str  # shown at the top of a PDF that had to replace characters

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


def _day(timestamp: int, zone: tzinfo) -> str:
    return datetime.fromtimestamp(timestamp, zone).date().isoformat()


def _moment(timestamp: int, zone: tzinfo) -> str:
    return datetime.fromtimestamp(timestamp, zone).strftime("%Y-%m-%d %H:%M")


async def collect(
    service: WorksheetService,
    journal: JournalStore,
    person: Person,
    prompts: Mapping[str, str],
    tx: Tx,
    now: datetime,
) -> ExportDocument:
    zone = zone_of(person)
    sheets: list[ExportWorksheet] = []
    for row in sorted(await service.started(person), key=lambda r: r.started_at):
        answers = await service.answers(person, row.worksheet_id)
        if not answers:
            continue
        worksheet = service.get(row.worksheet_id)
        sections: list[ExportSection] = []
        placed: set[str] = set()
        for section in worksheet.sections if worksheet is not None else ():
            items = [answers[q.id] for q in section.questions if q.id in answers]
            placed.update(a.question.id for a in items)
            if items:
                sections.append(_section(section.title, items, zone))
        others = [a for qid, a in answers.items() if qid not in placed]
        if others:
            sections.append(_section(tx("worksheets.export.doc_other"), others, zone))
        started = _day(row.started_at, zone)
        status = (
            tx("worksheets.export.doc_finished", date=started, finished=_day(row.finished_at, zone))
            if row.finished_at is not None
            else tx("worksheets.export.doc_started", date=started)
        )
        title = worksheet.title if worksheet is not None else row.worksheet_id
        sheets.append(ExportWorksheet(title, status, tuple(sections)))
    entries = [
        ExportEntry(
            _moment(entry.created_at, zone),
            prompts.get(entry.prompt_id) if entry.prompt_id else None,
            person.cipher.open_text(journal_slot(entry.entry_id), entry.text_enc),
        )
        for entry in await journal.all(person.person_id)
    ]
    return ExportDocument(
        title=tx("worksheets.export.doc_title"),
        subtitle=tx("worksheets.export.doc_exported", date=now.astimezone(zone).date().isoformat()),
        worksheets=tuple(sheets),
        journal_title=tx("worksheets.export.doc_journal"),
        journal=tuple(entries),
        replaced_note=tx("worksheets.export.doc_replaced"),
    )


def _section(title: str, answers: list[Answer], zone: tzinfo) -> ExportSection:
    return ExportSection(
        title,
        tuple(ExportAnswer(a.question.text, _day(a.first_at, zone), a.parts) for a in answers),
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


# --- PDF --------------------------------------------------------------------------------

FONT = "Helvetica"
LINE_HEIGHT = 6.0  # mm, every line alike
MARGIN_SIDE = 18.0
MARGIN_TOP = 15.0
# A4 is 297 mm tall: 15 + 45 * 6 = 285 leaves the bottom margin below; the extra half
# millimetre keeps float rounding from pushing the 45th line onto the next page.
MARGIN_BOTTOM = 11.5
LINES_PER_PAGE = 45
INDENT = 6.0
BODY, HEADING, TITLE = 10.5, 12.5, 15.0

_PLAIN = {
    "‘": "'", "’": "'", "‚": ",", "‛": "'", "“": '"', "”": '"', "„": '"', "‟": '"',
    "–": "-", "—": "-", "‒": "-", "―": "-", "−": "-", "‐": "-", "‑": "-",
    "…": "...", "•": "*", "‹": "<", "›": ">", "€": "EUR", "™": "TM",
    "ł": "l", "Ł": "L", "œ": "oe", "Œ": "OE", "ı": "i", "đ": "d", "Đ": "D",
    "\u200b": "", "\u200c": "", "\u200d": "", "\ufe0f": "", "\ufe0e": "", "\t": "    ",
}  # fmt: skip


def pdf_safe(text: str) -> tuple[str, bool]:
    """Text the core font can draw, and whether anything had to become "?"."""
    out: list[str] = []
    replaced = False
    # Composed first: "e" + a combining accent becomes "é", which the core font has.
    for char in unicodedata.normalize("NFC", text):
        if char in _PLAIN:
            out.append(_PLAIN[char])
        elif ord(char) < 256:
            out.append(char if char.isprintable() else " ")
        else:
            base = "".join(
                c
                for c in unicodedata.normalize("NFKD", char)
                if ord(c) < 256 and c.isprintable() and not unicodedata.combining(c)
            )
            replaced = replaced or not base
            out.append(base or "?")
    return "".join(out), replaced


@dataclass(frozen=True)
class PdfLine:
    text: str = ""
    style: str = ""  # "", "B" or "I"
    size: float = BODY
    indent: float = 0.0


def pages_for(line_count: int) -> int:
    return max(1, math.ceil(line_count / LINES_PER_PAGE))


def _new_pdf() -> FPDF:
    pdf = FPDF(format="A4", unit="mm")
    pdf.set_margins(MARGIN_SIDE, MARGIN_TOP, MARGIN_SIDE)
    pdf.set_auto_page_break(True, margin=MARGIN_BOTTOM)
    return pdf


class _Layout:
    """Wraps text into lines using the core font's widths."""

    def __init__(self) -> None:
        self.pdf = _new_pdf()
        self.width = self.pdf.w - 2 * MARGIN_SIDE
        self.lines: list[PdfLine] = []
        self.replaced = False

    def blank(self) -> None:
        self.lines.append(PdfLine())

    def text(self, text: str, style: str = "", size: float = BODY, indent: float = 0.0) -> None:
        safe, replaced = pdf_safe(text)
        self.replaced = self.replaced or replaced
        self.pdf.set_font(FONT, style, size)
        room = self.width - indent
        for paragraph in safe.replace("\r\n", "\n").split("\n"):
            for line in self._wrap(paragraph, room):
                self.lines.append(PdfLine(line, style, size, indent))

    def _fits(self, text: str, room: float) -> bool:
        return bool(self.pdf.get_string_width(text) <= room)

    def _wrap(self, paragraph: str, room: float) -> list[str]:
        lines: list[str] = []
        current = ""
        for word in paragraph.split(" "):
            candidate = f"{current} {word}" if current else word
            if self._fits(candidate, room):
                current = candidate
                continue
            if current:
                lines.append(current)
            current = ""
            current = self._break_word(word, room, lines) if not self._fits(word, room) else word
        lines.append(current)
        return lines

    def _break_word(self, word: str, room: float, lines: list[str]) -> str:
        """A word wider than a line (a long link, say): full lines go to `lines`, and the
        remainder is returned to start the next line."""
        piece, width = "", 0.0
        for char in word:
            char_width = float(self.pdf.get_string_width(char))
            if piece and width + char_width > room:
                lines.append(piece)
                piece, width = "", 0.0
            piece += char
            width += char_width
        return piece


def pdf_lines(doc: ExportDocument) -> list[PdfLine]:
    layout = _Layout()
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
    pdf = _new_pdf()
    pdf.set_title(pdf_safe(doc.title)[0])
    pdf.add_page()
    for line in pdf_lines(doc):
        pdf.set_font(FONT, line.style, line.size)
        pdf.set_x(MARGIN_SIDE + line.indent)
        pdf.cell(
            w=pdf.w - 2 * MARGIN_SIDE - line.indent,
            h=LINE_HEIGHT,
            text=line.text,
            new_x=XPos.LMARGIN,
            new_y=YPos.NEXT,
        )
    return bytes(pdf.output())
