"""No tell-tales: the neutral command menu and every decoy text hold no word a watcher would
notice (tests/data/telltale_words.tsv, seven languages), and the default menu names no
crisis, abuse or deletion. Matching is on whole words after the crisis normalisation."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.content.decoys import LANGUAGES
from bot.matching.crisis import normalize
from tests.conftest import shared_content

DATA = Path(__file__).resolve().parents[1] / "data" / "telltale_words.tsv"
# Telegram's limit for a command description. Source:
# https://core.telegram.org/bots/api#botcommand ("1-256 characters").
COMMAND_DESCRIPTION_LIMIT = 256


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


@pytest.fixture(scope="module")
def telltales() -> Telltales:
    return Telltales(read_rows())


def test_list_covers_every_language_and_level() -> None:
    rows = read_rows()
    for language in LANGUAGES:
        for level in ("alarm", "notice"):
            assert sum(1 for lang, lvl, _ in rows if (lang, lvl) == (language, level)) >= 10
    assert {level for _, level, _ in rows} == {"alarm", "notice"}
    for _, _, term in rows:
        assert normalize(term.rstrip("*")), term
        assert "*" not in term.rstrip("*"), term


def test_matcher_finds_the_tell_tales_the_issue_names(telltales: Telltales) -> None:
    # The menu as issue 13 found it, and words in other languages, accents and case.
    assert telltales.found("Crisis and support lines") == ["crisis", "support*"]
    assert "delete*" in telltales.found("Delete everything you stored here")
    assert "losch*" in telltales.found("Alles LÖSCHEN")
    assert "abus*" in telltales.found("un rapport abusif")
    assert "maus tratos" in telltales.found("maus-tratos")
    # Whole words only: "helpful" is not "help", "extra" is not "ex".
    assert telltales.found("a helpful extra spoon of sugar") == []


def test_neutral_menu_has_no_tell_tales(telltales: Telltales) -> None:
    texts = shared_content().texts
    menu = texts.data["command_menu"]
    for name in menu:
        key = f"command_menu_neutral.{name}"
        assert texts.has(key), f"{name} has no neutral description"
        description = texts(key)
        assert len(description) <= COMMAND_DESCRIPTION_LIMIT
        assert telltales.found(description) == [], (name, description)
    known = texts.keys()  # Texts is not a mapping; keys() lists every dotted key
    neutral = {k.split(".", 1)[1] for k in known if k.startswith("command_menu_neutral.")}
    assert neutral == set(menu), "neutral descriptions for commands not in the menu"


def test_default_menu_names_no_crisis_abuse_or_deletion(telltales: Telltales) -> None:
    texts = shared_content().texts
    for name in texts.data["command_menu"]:
        description = texts(f"commands.{name}")
        assert telltales.found(description, ("alarm",)) == [], (name, description)


def decoy_texts() -> Iterator[tuple[str, str, str]]:
    for theme, voices in shared_content().decoys.themes.items():
        for language, voice in voices.items():
            singles = [voice.label, voice.message, voice.welcome]
            for text in [*singles, *voice.more, *voice.enough, *voice.entries]:
                yield theme, language, text


def test_no_decoy_text_has_a_tell_tale(telltales: Telltales) -> None:
    problems = [
        f"{theme}/{language}: {hits} in {text!r}"
        for theme, language, text in decoy_texts()
        if (hits := telltales.found(text))
    ]
    assert problems == []


def test_the_three_themes_are_there_in_every_language() -> None:
    themes = shared_content().decoys.themes
    assert {"quote", "recipe", "word"} <= set(themes)
    for voices in themes.values():
        assert set(voices) == set(LANGUAGES)
