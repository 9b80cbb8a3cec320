"""The record's own export, for an advocate, a lawyer or a court: every entry oldest first
(by when it happened), each with when it happened, when it was written, every answer, and
every later addition with its own date; photos embedded. Made in memory only, separate from
the journal's /export (bot/features/export/render.py); fonts and line layout: pdf_text.py.

`RecordDocument` holds everything already worded and opened; `build_markdown` and
`build_pdf` only lay it out, so they are pure and tested alone. Markdown embeds images as
data URIs (one file to hand over); files that are not images are listed by name.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import io
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING

from bot.content.texts import Tx
from bot.features.export import pdf_text
from bot.features.export import render as export
from bot.features.export.parts import build_in_parts, scaled_image
from bot.features.record.dates import happened_label, written_label
from bot.features.record.service import FILES, TEXT_STEPS, RecordService
from bot.people.service import Person

if TYPE_CHECKING:  # fpdf loads on the first PDF, not at start (issue 25)
    from fpdf import FPDF

IMAGE_WIDTH = 120.0  # mm on the page; tall images are scaled to fit a page's height
_MAX_IMAGE_HEIGHT = 200.0


@dataclass(frozen=True)
class DocSection:
    title: str
    parts: tuple[str, ...]


@dataclass(frozen=True)
class DocAmendment:
    when: str
    text: str


@dataclass(frozen=True)
class DocFile:
    label: str
    mime: str
    data: bytes | None  # image bytes to embed; None for other kinds


@dataclass(frozen=True)
class DocEntry:
    heading: str  # when it happened
    written: str  # "Written: ..."
    sections: tuple[DocSection, ...]
    amendments_title: str
    amendments: tuple[DocAmendment, ...]
    files_title: str
    files: tuple[DocFile, ...]
    not_shown: str


@dataclass(frozen=True)
class RecordDocument:
    title: str
    subtitle: str
    entries: tuple[DocEntry, ...]
    replaced_note: str


def _mime(data: bytes) -> str:
    from PIL import Image  # noqa: PLC0415 - on the first record with a photo (issue 25)

    with Image.open(io.BytesIO(data)) as image:
        kind = (image.format or "png").lower()
    return f"image/{'jpeg' if kind == 'jpg' else kind}"


async def collect(
    service: RecordService, person: Person, tx: Tx, now: datetime, language: str, *, title: str
) -> RecordDocument:
    """Every entry opened in memory and worded; images kept for embedding."""
    zone = export.zone_of(person)
    entries: list[DocEntry] = []
    for entry in await service.everything(person):
        heading = happened_label(entry, zone, language) or tx("record.no_when")
        written = tx("record.doc_written", when=written_label(entry.written_at, zone, language))
        sections = [
            DocSection(tx(f"record.step_{step}"), tuple(p.text for p in entry.answers[step]))
            for step in (*TEXT_STEPS, FILES)
            if entry.answers.get(step)
        ]
        amendments = [
            DocAmendment(tx("record.doc_added", when=written_label(a.at, zone, language)), a.text)
            for a in entry.amendments
        ]
        files: list[DocFile] = []
        for attachment in entry.files:
            data = await service.file_bytes(person, entry.entry_id, attachment.file_id)
            label = tx(
                "record.doc_file",
                name=attachment.name or attachment.file_id[:8],
                kind=tx(f"record.kind_{attachment.kind}"),
                size=max(1, round(attachment.size / 1024)),
                when=written_label(attachment.at, zone, language),
            )
            if attachment.caption:
                label += f": {attachment.caption}"
            # One photo at full size at a time: scaled (or dropped) before the next is opened.
            # Off the event loop: decoding a phone photo takes a second or more.
            image = await asyncio.to_thread(scaled_image, data) if data is not None else None
            del data
            files.append(DocFile(label, attachment.mime, image))
        entries.append(
            DocEntry(
                heading=tx("record.doc_happened", when=heading),
                written=written,
                sections=tuple(sections),
                amendments_title=tx("record.doc_amendments"),
                amendments=tuple(amendments),
                files_title=tx("record.doc_files"),
                files=tuple(files),
                not_shown=tx("record.doc_file_not_shown"),
            )
        )
    local = now.astimezone(zone)
    return RecordDocument(
        title=title,
        subtitle=tx("record.doc_exported", date=local.date().isoformat(), zone=str(zone)),
        entries=tuple(entries),
        replaced_note=tx("export_pdf.placeholder_note"),
    )


def filename(day: date, extension: str) -> str:
    """Neutral, like the journal export's, and told apart from it."""
    return f"notes-{day.isoformat()}-dated.{extension}"


# --- Markdown ---------------------------------------------------------------------------


def _part(doc: RecordDocument, entries: Sequence[DocEntry]) -> RecordDocument:
    return dataclasses.replace(doc, entries=tuple(entries))


def markdown_parts(doc: RecordDocument, limit: int) -> list[bytes]:
    """The Markdown file, in parts of whole entries each under `limit` bytes."""
    return build_in_parts(
        doc.entries, lambda entries: build_markdown(_part(doc, entries)).encode(), limit
    )


def pdf_parts(doc: RecordDocument, limit: int) -> list[bytes]:
    """The PDF, in parts of whole entries each under `limit` bytes."""
    return build_in_parts(doc.entries, lambda entries: build_pdf(_part(doc, entries)), limit)


def build_markdown(doc: RecordDocument) -> str:
    one = export._one_line
    out = [f"# {one(doc.title)}", "", doc.subtitle]
    for entry in doc.entries:
        out += ["", f"## {one(entry.heading)}", "", f"_{entry.written}_"]
        for section in entry.sections:
            out += ["", f"**{one(section.title)}**", ""]
            out += export._quoted_parts(section.parts)
        if entry.amendments:
            out += ["", f"### {one(entry.amendments_title)}"]
            for amendment in entry.amendments:
                out += ["", f"_{amendment.when}_", "", *export._quote(amendment.text)]
        if entry.files:
            out += ["", f"### {one(entry.files_title)}"]
            for index, file in enumerate(entry.files, 1):
                out += ["", f"{index}. {one(file.label)}"]
                if file.data is not None:
                    encoded = base64.b64encode(file.data).decode()
                    out += ["", f"![{index}](data:{_mime(file.data)};base64,{encoded})"]
                else:
                    out += ["", f"_{entry.not_shown}_"]
    return "\n".join(out) + "\n"


# --- PDF ------------------------------------------------------------------------------


def _texts(doc: RecordDocument) -> list[str]:
    found = [doc.title, doc.subtitle, doc.replaced_note]
    for entry in doc.entries:
        found += [entry.heading, entry.written, entry.amendments_title, entry.files_title]
        found += [entry.not_shown]
        for section in entry.sections:
            found += [section.title, *section.parts]
        for amendment in entry.amendments:
            found += [amendment.when, amendment.text]
        found += [f.label for f in entry.files]
    return found


def build_pdf(doc: RecordDocument) -> bytes:
    """Text lines as the journal PDF lays them out (every script, shaped); each image on
    the page after its entry's file line, scaled to the text width."""
    from fpdf.enums import XPos, YPos  # noqa: PLC0415 - heavy, first PDF only

    pdf = pdf_text.new_pdf(_texts(doc))
    pdf.set_title(doc.title)
    layout = pdf_text.Layout(pdf)
    pdf.add_page()

    def flush() -> None:
        for line in layout.lines:
            pdf.set_font(pdf_text.FONT, line.style, line.size)
            pdf.set_x(pdf_text.MARGIN_SIDE + line.indent)
            pdf.cell(
                w=pdf.w - 2 * pdf_text.MARGIN_SIDE - line.indent,
                h=pdf_text.LINE_HEIGHT,
                text=line.text,
                align="R" if line.rtl else "L",
                new_x=XPos.LMARGIN,
                new_y=YPos.NEXT,
            )
        layout.lines = []

    layout.text(doc.title, "B", pdf_text.TITLE)
    layout.text(doc.subtitle)
    for entry in doc.entries:
        layout.blank()
        layout.text(entry.heading, "B", pdf_text.HEADING)
        layout.text(entry.written, "I")
        for section in entry.sections:
            layout.blank()
            layout.text(section.title, "B")
            for index, part in enumerate(section.parts):
                if index:
                    layout.blank()
                layout.text(part, indent=pdf_text.INDENT)
        if entry.amendments:
            layout.blank()
            layout.text(entry.amendments_title, "B")
            for amendment in entry.amendments:
                layout.text(amendment.when, "I")
                layout.text(amendment.text, indent=pdf_text.INDENT)
        if entry.files:
            layout.blank()
            layout.text(entry.files_title, "B")
            for index, file in enumerate(entry.files, 1):
                layout.text(f"{index}. {file.label}", indent=pdf_text.INDENT)
                if file.data is None:
                    layout.text(entry.not_shown, "I", indent=pdf_text.INDENT)
                    continue
                flush()
                _image(pdf, file.data)
    if layout.replaced:
        layout.text(doc.replaced_note, "I")
    flush()
    return bytes(pdf.output())


def _image(pdf: FPDF, data: bytes) -> None:
    from PIL import Image  # noqa: PLC0415 - on the first PDF with a photo (issue 25)

    with Image.open(io.BytesIO(data)) as image:
        width, height = image.size
    w = IMAGE_WIDTH
    h = w * height / max(width, 1)
    if h > _MAX_IMAGE_HEIGHT:
        w, h = w * _MAX_IMAGE_HEIGHT / h, _MAX_IMAGE_HEIGHT
    if pdf.get_y() + h > pdf.h - pdf_text.MARGIN_BOTTOM:
        pdf.add_page()
    pdf.image(io.BytesIO(data), x=pdf_text.MARGIN_SIDE + pdf_text.INDENT, y=pdf.get_y(), w=w, h=h)
    pdf.set_y(pdf.get_y() + h + 2)
