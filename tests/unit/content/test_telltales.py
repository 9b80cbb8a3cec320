"""No tell-tales: the neutral command menu and every decoy text hold no word a watcher would
notice (tests/data/telltale_words.tsv, seven languages), and the default menu names no
crisis, abuse or deletion. Matching is on whole words after the crisis normalisation."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.content.decoys import LANGUAGES
from bot.matching.crisis import normalize
from tests.helpers.bot import shared_content
from tests.helpers.telltales import (
    Telltales,
    read_rows,
)

# Telegram's limit for a command description. Source:
# https://core.telegram.org/bots/api#botcommand ("1-256 characters").
COMMAND_DESCRIPTION_LIMIT = 256


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
