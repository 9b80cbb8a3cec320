"""The tell-tale words list (tests/data/telltale_words.tsv), read once."""

from __future__ import annotations

from pathlib import Path

from bot.matching.crisis import normalize

DATA = Path(__file__).resolve().parents[1] / "data" / "telltale_words.tsv"


class Telltales:
    def __init__(self, rows: list[tuple[str, str, str]]) -> None:
        self.rows = rows
        self._terms = {
            (level, term, normalize(term.rstrip("*")), term.endswith("*"))
            for _, level, term in rows
        }

    def found(self, text: str, levels: tuple[str, ...] = ("alarm", "notice")) -> list[str]:
        words = normalize(text).split()
        hits: set[str] = set()
        for level, term, canonical, prefix in self._terms:
            if level not in levels:
                continue
            wanted = canonical.split()
            for i in range(len(words) - len(wanted) + 1):
                window = words[i : i + len(wanted)]
                if window[:-1] == wanted[:-1] and (
                    window[-1].startswith(wanted[-1]) if prefix else window[-1] == wanted[-1]
                ):
                    hits.add(term)
                    break
        return sorted(hits)


def read_rows() -> list[tuple[str, str, str]]:
    rows = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        language, level, term = line.split("\t")
        rows.append((language, level, term))
    return rows
