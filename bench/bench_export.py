"""The advocate export's memory and size with many large photos, by hand:
`python -m bench.bench_export [--photos N] [--side PX]` (docs/performance.md).

Issue 27, finding 10: 20 photos of 18.8 MB made the export take 2.2 GB of memory and
produce 500 MB (Markdown) and 375 MB (PDF). This runs what the export does after the
store has opened each photo (decryption is not included): each photo opened, scaled
(bot/features/export/parts.py) and dropped before the next, then both formats built in
parts under EXPORT_PART_LIMIT. It prints the peak RSS of the process and the sizes.
Random pixels make the photos compress as badly as any photo can.
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import time

from PIL import Image

from bot.core.telegram_text import EXPORT_PART_LIMIT
from bot.features.export.parts import scaled_image
from bot.features.record.export import (
    DocEntry,
    DocFile,
    RecordDocument,
    markdown_parts,
    pdf_parts,
)


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def photo(side: int) -> bytes:
    """A JPEG of random pixels, `side` by 3/4 of it: about what a phone's camera makes."""
    height = side * 3 // 4
    image = Image.frombytes("RGB", (side, height), os.urandom(side * height * 3))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=95)
    return out.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--photos", type=int, default=20)
    parser.add_argument("--side", type=int, default=4000)
    args = parser.parse_args()
    files = []
    sizes: list[int] = []
    scaling = 0.0
    for n in range(args.photos):
        data = photo(args.side)  # each its own pixels: a PDF stores a repeated image once
        sizes.append(len(data))
        started = time.perf_counter()
        files.append(DocFile(f"photo {n}", "image/jpeg", scaled_image(data)))
        scaling += time.perf_counter() - started
        del data
    scaled = sum(len(f.data or b"") for f in files)
    print(f"{args.photos} photos of {min(sizes) / 1e6:.1f}-{max(sizes) / 1e6:.1f} MB")
    print(f"scaled in {scaling:.1f} s ({scaling / args.photos:.2f} s each): {scaled / 1e6:.1f} MB")
    entries = tuple(
        DocEntry(f"Happened: {n}", "Written", (), "Added", (), "Files", (file,), "-")
        for n, file in enumerate(files)
    )
    doc = RecordDocument("Record", "Exported", entries, "note")
    for name, build in (("markdown", markdown_parts), ("pdf", pdf_parts)):
        started = time.perf_counter()
        parts = build(doc, EXPORT_PART_LIMIT)
        took = time.perf_counter() - started
        shown = ", ".join(f"{len(p) / 1e6:.1f}" for p in parts)
        print(f"{name}: {len(parts)} part(s) of {shown} MB in {took:.1f} s")
        del parts
    print(f"peak RSS: {peak_mb():.0f} MB")


if __name__ == "__main__":
    main()
