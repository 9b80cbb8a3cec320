"""Exports bounded in size and memory (issue 27, finding 10): photos scaled down one at a
time as they are opened, and a file too big for Telegram's 50 MB upload limit cut into
parts, each under `EXPORT_PART_LIMIT` (bot/core/telegram_text.py)."""

from __future__ import annotations

import io
import logging
import warnings
from collections.abc import Callable, Sequence
from typing import TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

# Enough to read a photographed letter or a bruise on a printed page; a phone's 4000 px
# photo of 18 MB becomes a few hundred kilobytes.
MAX_SIDE = 1600
JPEG_QUALITY = 82
# An image already this small (in both senses) is embedded exactly as it came.
KEEP_AS_IS_BYTES = 1_000_000


def scaled_image(data: bytes) -> bytes | None:
    """The image's bytes for an export: as they came when small, else a JPEG at most
    MAX_SIDE pixels a side. None when it is not an image Pillow can open safely."""
    from PIL import Image  # noqa: PLC0415 - on the first export with a photo (issue 25)

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                if len(data) <= KEEP_AS_IS_BYTES and max(image.size) <= MAX_SIDE:
                    image.verify()
                    return data
                # A JPEG decodes straight at a fraction of its size: the full photo is
                # never held as pixels.
                image.draft("RGB", (MAX_SIDE, MAX_SIDE))
                image.thumbnail((MAX_SIDE, MAX_SIDE))
                out = io.BytesIO()
                image.convert("RGB").save(out, "JPEG", quality=JPEG_QUALITY, optimize=True)
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError, Warning):
        return None
    return out.getvalue()


def build_in_parts(
    items: Sequence[T], build: Callable[[Sequence[T]], bytes], limit: int
) -> list[bytes]:
    """`build(items)` as one file when it is under `limit` bytes, else the items halved
    (in order) until every part is; one item that alone is over the limit is one part
    (Telegram will refuse it, and the send policy will not retry it)."""
    whole = build(items)
    if len(whole) <= limit or len(items) < 2:
        if len(whole) > limit:
            log.warning("export part over the upload limit: %d bytes", len(whole))
        return [whole]
    del whole  # not kept while the halves are built
    half = len(items) // 2
    return build_in_parts(items[:half], build, limit) + build_in_parts(items[half:], build, limit)


def part_name(name: str, index: int, count: int) -> str:
    """notes-2026-12-01.md, or notes-2026-12-01-2-of-3.md for a part."""
    if count == 1:
        return name
    stem, dot, extension = name.rpartition(".")
    return f"{stem}-{index}-of-{count}{dot}{extension}"
