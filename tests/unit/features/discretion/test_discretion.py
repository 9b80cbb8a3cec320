"""Discretion's pure parts: the menu's buttons, the codecs, the decoy language, the cover
cache, and the worksheet schema's `sensitive` field."""

from __future__ import annotations

from pathlib import Path

import yaml

from bot.content.panic_word import PanicWords, WordKind
from bot.content.worksheet_model import parse_worksheet, validate_worksheet
from bot.features.discretion.callbacks import DiscretionButton
from bot.features.discretion.prefs import DiscretionPrefs
from bot.features.discretion.service import Armed, Cover, CoverCache, decoy_language
from bot.features.discretion.state import DiscretionState, discretion_state
from bot.features.discretion.views import discretion_menu, menu_entries
from bot.features.setup.callbacks import SettingsButton
from bot.people.profile import Profile
from tests.helpers.bot import shared_content
from tests.helpers.codecs import decode_state

WORKSHEETS = Path(__file__).resolve().parents[4] / "content" / "worksheets"


def tx(key: str, **values: object) -> str:
    return shared_content().texts(key, **values)


def decodes(data: str) -> bool:
    prefix, _, rest = data.partition(":")
    kinds = {DiscretionButton.PREFIX: DiscretionButton, SettingsButton.PREFIX: SettingsButton}
    return prefix in kinds and kinds[prefix].decode(rest) is not None


def test_every_menu_button_decodes_with_its_codec() -> None:
    themes = [("quote", "Quote"), ("recipe", "Recipe"), ("word", "Word")]
    armed = Profile().holding(
        DiscretionPrefs(panic_digest="00" * 32, return_digest="11" * 32, decoy_theme="recipe")
    )
    for profile in (Profile(), armed):
        text, rows = discretion_menu(tx, profile, themes)
        assert text
        assert all(decodes(data) for row in rows for _, data in row)
    _, rows = discretion_menu(tx, armed, themes)
    labels = [label for row in rows for label, _ in row]
    assert "✓ Recipe" in labels and "Remove the return word" in labels


def test_forged_discretion_buttons_do_not_decode() -> None:
    for rest in ("theme:", "theme:QUOTE", "erase:maybe", "panic\n", "x" * 40, ""):
        assert DiscretionButton.decode(rest) is None
    assert DiscretionButton.decode("theme:recipe") == DiscretionButton("theme:recipe")


def test_state_codec_round_trips_the_discretion_steps() -> None:
    for word in ("panic", "return"):
        state = DiscretionState(word)
        assert decode_state(state.encode()) == state
        assert discretion_state(state.encode()) == state
    assert discretion_state("disc:other") is None
    assert discretion_state("setup:country:settings") is None


def test_neutral_menu_follows_the_default_menus_order() -> None:
    texts = shared_content().texts
    names = ["start", "settings", "sos", "forget", "unknown"]
    default = [name for name, _ in menu_entries(texts, names, neutral=False)]
    neutral = menu_entries(texts, names, neutral=True)
    assert [name for name, _ in neutral] == default
    assert dict(neutral)["forget"] == texts("command_menu_neutral.forget")


def test_decoy_language_falls_back_to_english() -> None:
    assert decoy_language("pt-br") == "pt"
    assert decoy_language("DE") == "de"
    assert decoy_language("ja") == "en"
    assert decoy_language(None) == "en"


def test_cover_cache_tracks_words_covers_and_chats() -> None:
    cache = CoverCache()
    words = PanicWords.create(b"k" * 32, "blueberry pancakes", "violet harbour")
    cache.arm("r1", Armed(words, "quote", erase=False))
    assert cache.match("r1", "Blueberry pancakes!") is WordKind.PANIC
    assert cache.match("r1", "violet harbour") is WordKind.RETURN
    assert cache.match("r2", "blueberry pancakes") is None
    cache.enter("r1", Cover(55, "quote", "en", 0, 0, "2026-12-01"))
    assert cache.in_cover("r1") and cache.chat_in_cover(55)
    cache.forgotten("r1")
    assert not cache.chat_in_cover(55) and cache.armed("r1") is None


def test_sensitive_must_be_a_boolean_and_marks_the_safety_plan() -> None:
    raw = yaml.safe_load((WORKSHEETS / "safety_plan.yaml").read_text())
    assert validate_worksheet(raw, file_stem="safety_plan") == []
    sheet = parse_worksheet(raw)
    marked = {q.id for q in sheet.questions if q.sensitive}
    assert marked == {"code_word", "somewhere_to_go", "where_kept"}
    raw["sections"][0]["questions"][0]["sensitive"] = "yes"
    problems = validate_worksheet(raw, file_stem="safety_plan")
    assert any("sensitive" in str(p.path) for p in problems)
