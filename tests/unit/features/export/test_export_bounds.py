"""Exports bounded in size (issue 27, finding 10): a phone photo of many megabytes is
scaled down before it is embedded, and a file over the upload limit comes in parts, each
under it, together holding everything once. The limit is injected small here; the bot's
is telegram_text.EXPORT_PART_LIMIT, under Telegram's 50 MB."""

from __future__ import annotations

import io
import os

from PIL import Image
from pypdf import PdfReader

from bot.core.telegram_text import EXPORT_PART_LIMIT, UPLOAD_LIMIT
from bot.features.export import render
from bot.features.export.parts import MAX_SIDE, build_in_parts, part_name, scaled_image
from bot.features.record.export import (
    DocEntry,
    DocFile,
    RecordDocument,
    markdown_parts,
    pdf_parts,
)
from tests.helpers.export import document


def noise_jpeg(width: int, height: int) -> bytes:
    """Random pixels: the worst case for a compressor, like a photo at full size."""
    image = Image.frombytes("RGB", (width, height), os.urandom(width * height * 3))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=95)
    return out.getvalue()


def test_the_part_limit_is_under_telegrams() -> None:
    assert EXPORT_PART_LIMIT < UPLOAD_LIMIT == 50_000_000


def test_a_big_photo_is_scaled_and_a_small_one_kept_as_it_came() -> None:
    big = noise_jpeg(3200, 2400)
    scaled = scaled_image(big)
    assert scaled is not None and len(scaled) < len(big) / 2
    with Image.open(io.BytesIO(scaled)) as image:
        assert max(image.size) <= MAX_SIDE and image.size[0] > image.size[1]
    small = noise_jpeg(40, 30)
    assert scaled_image(small) == small
    assert scaled_image(b"not an image at all") is None


def _entries(photos: list[bytes]) -> RecordDocument:
    entries = tuple(
        DocEntry(
            heading=f"Happened: entry-{n}",
            written="Written: today",
            sections=(),
            amendments_title="Added later",
            amendments=(),
            files_title="Files",
            files=(DocFile(f"photo {n}", "image/jpeg", photo),),
            not_shown="(not shown)",
        )
        for n, photo in enumerate(photos)
    )
    return RecordDocument("Record", "Exported", entries, "note")


def test_a_record_export_over_the_limit_comes_in_parts_of_whole_entries() -> None:
    # About 100 kB each, embedded as they are; each its own (a PDF stores a repeat once).
    photos = [noise_jpeg(300, 300) for _ in range(6)]
    doc = _entries(photos)
    limit = 3 * len(photos[0])
    for parts, text_of in (
        (markdown_parts(doc, limit), lambda data: data.decode()),
        (
            pdf_parts(doc, limit),
            lambda data: " ".join(
                p.extract_text() or "" for p in PdfReader(io.BytesIO(data)).pages
            ),
        ),
    ):
        assert len(parts) > 1 and all(len(part) <= limit for part in parts)
        texts = [text_of(part) for part in parts]
        for n in range(6):
            assert sum(f"entry-{n}" in text for text in texts) == 1, n
    assert len(markdown_parts(doc, 10 * limit)) == 1  # under the limit: one file, as before


def test_a_journal_export_over_the_limit_comes_in_parts() -> None:
    doc = document(3, journal=400)
    whole = render.build_markdown(doc).encode()
    parts = render.markdown_parts(doc, len(whole) // 3)
    assert len(parts) > 2 and all(len(part) <= len(whole) // 3 for part in parts)
    joined = b"\n".join(parts).decode()
    assert all(f"> entry {n}\n" in joined + "\n" for n in range(400))
    pdfs = render.pdf_parts(doc, len(render.build_pdf(doc)) * 2 // 3)
    assert len(pdfs) >= 2
    text = " ".join(
        page.extract_text() or "" for data in pdfs for page in PdfReader(io.BytesIO(data)).pages
    )
    assert all(f"entry {n}" in text for n in (0, 199, 399))


def test_an_item_too_big_alone_is_one_part_and_parts_are_named_in_order() -> None:
    assert build_in_parts([b"x" * 50, b"y"], b"".join, 10) == [
        b"x" * 50,
        b"y",
    ]
    assert part_name("notes-2026-12-01.md", 1, 1) == "notes-2026-12-01.md"
    assert part_name("notes-2026-12-01-dated.pdf", 2, 3) == "notes-2026-12-01-dated-2-of-3.pdf"
