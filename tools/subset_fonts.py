"""Make the fonts the PDF export embeds (bot/fonts/) from Debian's Noto packages.

    apt-get install fonts-noto-core fonts-noto-cjk
    .venv/bin/python tools/subset_fonts.py

Noto covers every script people write and is under the SIL Open Font License 1.1, which
allows shipping it (and subsets of it) with software; bot/fonts/LICENSE.txt is that licence.
Each font is cut down to the scripts it is there for, hinting dropped (a PDF viewer does not
need it), and every shaping feature kept, since Arabic joining and Indic conjuncts depend on
them. CJK is a subset too: the full faces are 19 MB each; the characters in everyday use
(GB 2312 level 1, JIS X 0208 level 1, KS X 1001 Hangul, Big5 level 1, kana) are a few MB.
Run it again after a Noto update; the output is committed, so no build needs these packages.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

NOTO = Path("/usr/share/fonts/truetype/noto")
CJK = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
OUT = Path(__file__).resolve().parents[1] / "bot" / "fonts"

LATIN_GREEK_CYRILLIC = [
    *range(0x20, 0x7F), *range(0xA0, 0x250), *range(0x250, 0x370), *range(0x370, 0x400),
    *range(0x400, 0x530), *range(0x1E00, 0x2000), *range(0x2000, 0x2070),
    *range(0x20A0, 0x20C1), *range(0x2100, 0x2150), *range(0x2190, 0x2200), 0x2212, 0x25CC,
]  # fmt: skip
# One regular face per script beyond Latin: bold text in these falls back to it.
SCRIPTS = [
    "Arabic", "Hebrew", "Devanagari", "Bengali", "Gurmukhi", "Gujarati", "Oriya", "Tamil",
    "Telugu", "Kannada", "Malayalam", "Sinhala", "Thai", "Armenian", "Georgian", "Ethiopic",
]  # fmt: skip


def _decodable(codec: str, lead: range, trail: range) -> set[int]:
    found: set[int] = set()
    for first in lead:
        for second in trail:
            try:
                text = bytes((first, second)).decode(codec)
            except UnicodeDecodeError:
                continue
            found.update(ord(c) for c in text)
    return found


def cjk_characters() -> set[int]:
    """Characters of the national standards' first (everyday) levels, by decoding their
    code ranges: no list of our own."""
    chars = set(range(0x3000, 0x3100))  # CJK punctuation, Hiragana, Katakana
    chars |= set(range(0xFF00, 0xFFF0))  # full-width forms
    chars |= set(range(0x3130, 0x3190))  # Hangul compatibility jamo
    chars |= _decodable("gb2312", range(0xB0, 0xD8), range(0xA1, 0xFF))  # GB 2312 level 1
    chars |= _decodable("euc_jp", range(0xB0, 0xD0), range(0xA1, 0xFF))  # JIS level 1
    chars |= _decodable("euc_kr", range(0xB0, 0xC9), range(0xA1, 0xFF))  # KS X 1001 Hangul
    chars |= _decodable("big5", range(0xA4, 0xC7), range(0x40, 0xFF))  # Big5 level 1
    return {c for c in chars if c >= 0x2E80}


def _subset(font: TTFont, unicodes: Iterable[int], target: Path) -> None:
    options = subset.Options()
    options.layout_features = ["*"]
    options.hinting = False
    options.name_IDs = ["*"]  # keep the copyright and licence names
    options.notdef_outline = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(unicodes))
    subsetter.subset(font)
    font.save(target)
    print(f"{target.name}: {target.stat().st_size // 1024} KiB")


def main() -> int:
    OUT.mkdir(exist_ok=True)
    for style in ("Regular", "Bold", "Italic"):
        source = NOTO / f"NotoSans-{style}.ttf"
        _subset(TTFont(source), LATIN_GREEK_CYRILLIC, OUT / f"NotoSans-{style}.ttf")
    for script in SCRIPTS:
        source = NOTO / f"NotoSans{script}-Regular.ttf"
        font = TTFont(source)
        cmap = set(font.getBestCmap())
        # The script's own letters plus the marks and punctuation its shaping needs.
        _subset(font, cmap, OUT / f"NotoSans{script}-Regular.ttf")
    collection = TTCollection(CJK)
    simplified = next(
        face for face in collection.fonts if "SC" in str(face["name"].getDebugName(4))
    )
    wanted = cjk_characters() & set(simplified.getBestCmap())
    _subset(simplified, wanted, OUT / "NotoSansCJKsc-Regular.otf")
    return 0


if __name__ == "__main__":
    sys.exit(main())
