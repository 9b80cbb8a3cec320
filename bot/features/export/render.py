"""/export: everything a person wrote, as a Markdown file or a PDF, made in memory only.

`collect` gathers and decrypts into an `ExportDocument` (all wording already filled in);
`build_markdown` and `build_pdf` only lay it out, so they are pure and tested alone.

Markdown keeps every character exactly. Answers are blockquotes, so nothing a person typed
(a line starting with "#", say) can break the file's structure.

The PDF is something people hand to an advocate, a lawyer or a court, so it shows what
they wrote in any script: it embeds Noto fonts (Latin, Greek, Cyrillic, Arabic, Hebrew,
the Indic scripts, Thai, CJK and more; see `pdf_text.SCRIPT_FONTS`), subset to the glyphs used, and
shapes text with HarfBuzz. Only emoji (no colour font would survive a printer) become their
names in brackets, with a note at the top saying so. Every line has the same height, so a
document of n lines fills exactly ceil(n / LINES_PER_PAGE) pages, which the tests rely on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, tzinfo
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.content.locales import Locale
from bot.content.texts import Tx
from bot.core import local_format
from bot.core.export_parts import ExportEntry, ExportPart
from bot.features.checkins.journal import JournalService
from bot.features.export.pdf_text import (
    FONT,
    HEADING,
    INDENT,
    LINE_HEIGHT,
    MARGIN_SIDE,
    TITLE,
    Layout,
    PdfLine,
    new_pdf,
)
from bot.features.worksheets.service import Answer, WorksheetService
from bot.people.service import Person

if TYPE_CHECKING:  # fpdf loads on the first PDF, not at start (issue 25)
    from fpdf import FPDF

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
class ExportDocument:
    title: str
    subtitle: str
    worksheets: tuple[ExportWorksheet, ...]
    journal_title: str
    journal: tuple[ExportEntry, ...]
    replaced_note: str  # shown at the top of a PDF that shows some characters by name
    parts: tuple[ExportPart, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not self.worksheets and not self.journal and not self.parts


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
    journal: JournalService,
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
            entry.text,
        )
        for entry in await journal.all(person)
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
    for part in doc.parts:
        out += ["", f"## {_one_line(part.title)}"]
        for entry in part.entries:
            if entry.when:
                out += ["", f"### {entry.when}"]
            if entry.prompt:
                out += ["", f"**{_one_line(entry.prompt)}**"]
            if entry.text:
                out += ["", *_quote(entry.text)]
    return "\n".join(out) + "\n"


# --- PDF ------------------------------------------------------------------------------


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
    for part in doc.parts:
        found.append(part.title)
        for entry in part.entries:
            found += [entry.when, entry.prompt or "", entry.text]
    return found


def pdf_lines(doc: ExportDocument, pdf: FPDF | None = None) -> list[PdfLine]:
    layout = Layout(pdf if pdf is not None else new_pdf(_texts(doc)))
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
    for extra in doc.parts:
        layout.blank()
        layout.text(extra.title, "B", HEADING)
        for entry in extra.entries:
            layout.blank()
            if entry.when:
                layout.text(entry.when, "B")
            if entry.prompt:
                layout.text(entry.prompt, "I")
            if entry.text:
                layout.text(entry.text, indent=INDENT)
    rest = layout.lines
    layout.lines = body
    if layout.replaced:
        layout.text(doc.replaced_note, "I")
    return layout.lines + rest


def build_pdf(doc: ExportDocument) -> bytes:
    from fpdf.enums import XPos, YPos  # noqa: PLC0415 - heavy, first PDF only

    pdf = new_pdf(_texts(doc))
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
