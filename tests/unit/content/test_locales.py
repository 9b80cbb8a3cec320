"""Translations against English: each parity rule has a failing case, and the content
check names file and line, failing for an enabled language and only noting a disabled one."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.content.helpline_texts import strings_parity
from bot.content.loader import check_report, load_content
from bot.content.locales import (
    Locales,
    overlay_variant,
    primary_subtag,
    prompt_parity,
    text_parity,
    variant_parity,
    worksheet_parity,
)
from bot.core.problems import Problem
from bot.core.telegram_text import MESSAGE_LIMIT
from tests.helpers.bot import shared_content
from tests.helpers.locale_fill import complete_content

EN_TEXTS: dict[str, Any] = {
    "worksheet_order": ["a"],
    "greet": {"hello": "Hello, {name}.", "bye": "Bye."},
}
SHEET: dict[str, Any] = {
    "id": "s",
    "title": "T",
    "summary": "S",
    "intro": "I",
    "before_you_start": "B",
    "closing": "C",
    "sections": [
        {"title": "One", "framing": "F", "questions": [{"id": "q1", "text": "Q1?", "hint": "H"}]},
        {"title": "Two", "framing": "F", "questions": [{"id": "q2", "text": "Q2?"}]},
    ],
}
PROMPTS: dict[str, Any] = {
    "prompts": [{"id": "p1", "theme": "grounding", "text": "Breathe."}],
}


def good_sheet() -> dict[str, Any]:
    return {
        "title": "T",
        "summary": "S",
        "intro": "I",
        "before_you_start": "B",
        "closing": "C",
        "sections": [{"title": "Uno", "framing": "F"}, {"title": "Dos", "framing": "F"}],
        "questions": {"q1": {"text": "¿Q1?", "hint": "P"}, "q2": {"text": "¿Q2?"}},
    }


def messages(problems: list[Problem]) -> list[str]:
    return [p.message for p in problems]


def test_a_complete_translation_passes_every_rule() -> None:
    assert text_parity(EN_TEXTS, {"greet": {"hello": "Hola, {name}.", "bye": "Adiós."}}) == []
    assert worksheet_parity(SHEET, good_sheet()) == []
    assert prompt_parity(PROMPTS, {"prompts": {"p1": "Respira."}}) == []


def test_missing_key() -> None:
    found = text_parity(EN_TEXTS, {"greet": {"hello": "Hola, {name}."}})
    assert messages(found) == ["missing key greet.bye"]
    assert found[0].path == ("greet",)  # reported where it belongs


def test_extra_key() -> None:
    found = text_parity(EN_TEXTS, {"greet": {"hello": "Hola, {name}.", "bye": "A.", "byee": "B"}})
    assert messages(found) == ["extra key greet.byee (not in English)"]
    assert found[0].path == ("greet", "byee")


@pytest.mark.parametrize("hello", ["Hola.", "Hola, {nombre}.", "Hola, {name} {name2}."])
def test_different_placeholders(hello: str) -> None:
    found = text_parity(EN_TEXTS, {"greet": {"hello": hello, "bye": "Adiós."}})
    assert len(found) == 1 and "placeholders differ from English: {name}" in found[0].message


def test_broken_placeholder() -> None:
    found = text_parity(EN_TEXTS, {"greet": {"hello": "Hola, {name.", "bye": "Adiós."}})
    assert messages(found) == ["greet.hello: broken {placeholder}"]


@pytest.mark.parametrize("empty", ["", "   ", None, 3])
def test_empty_text(empty: object) -> None:
    found = text_parity(EN_TEXTS, {"greet": {"hello": "Hola, {name}.", "bye": empty}})
    assert messages(found) == ["greet.bye: expected non-empty text"]


def test_over_telegram_limit() -> None:
    long = "x" * (MESSAGE_LIMIT + 1)
    found = text_parity(EN_TEXTS, {"greet": {"hello": "Hola, {name}.", "bye": long}})
    assert messages(found) == [f"greet.bye: longer than Telegram's {MESSAGE_LIMIT}"]


def test_data_keys_stay_in_english() -> None:
    found = text_parity(
        EN_TEXTS, {"worksheet_order": ["b"], "greet": {"hello": "{name}", "bye": "A"}}
    )
    assert messages(found) == [
        "worksheet_order is data and stays in the English file only; leave it out"
    ]
    # The menu's order may be repeated unchanged (translators' files have it).
    english = {**EN_TEXTS, "command_menu": ["start"]}
    same = {"command_menu": ["start"], "greet": {"hello": "{name}", "bye": "A"}}
    assert text_parity(english, same) == []
    assert text_parity(english, {**same, "command_menu": ["help"]}) != []


def test_worksheet_question_ids_must_match() -> None:
    missing = good_sheet()
    del missing["questions"]["q2"]
    assert messages(worksheet_parity(SHEET, missing)) == ["missing question id q2"]
    extra = good_sheet()
    extra["questions"]["q3"] = {"text": "?"}
    assert messages(worksheet_parity(SHEET, extra)) == ["extra question id q3 (not in English)"]


def test_worksheet_section_count_must_match() -> None:
    fewer = good_sheet()
    fewer["sections"] = fewer["sections"][:1]
    assert messages(worksheet_parity(SHEET, fewer)) == ["1 sections; English has 2"]


def test_worksheet_hints_only_where_english_has_one() -> None:
    hinted = good_sheet()
    hinted["questions"]["q2"]["hint"] = "P"
    assert messages(worksheet_parity(SHEET, hinted)) == ["English has no hint here"]
    unhinted = good_sheet()
    del unhinted["questions"]["q1"]["hint"]
    assert messages(worksheet_parity(SHEET, unhinted)) == ["missing key hint"]


def test_worksheet_structure_cannot_be_changed() -> None:
    changed = {**good_sheet(), "id": "other"}
    assert messages(worksheet_parity(SHEET, changed)) == [
        "extra key id (ids and order live in English)"
    ]
    empty = good_sheet()
    empty["sections"][1]["framing"] = " "
    assert messages(worksheet_parity(SHEET, empty)) == [
        "sections.1.framing: expected non-empty text"
    ]


def test_prompt_ids_must_match() -> None:
    assert messages(prompt_parity(PROMPTS, {"prompts": {}})) == ["missing prompt id p1"]
    found = prompt_parity(PROMPTS, {"prompts": {"p1": "Respira.", "p9": "Otra."}})
    assert messages(found) == ["extra prompt id p9 (not in English)"]


def test_prompt_budget_applies_to_the_translation() -> None:
    found = prompt_parity(PROMPTS, {"prompts": {"p1": "x" * 450}})
    assert len(found) == 1 and "keep it under 400" in found[0].message
    assert found[0].path == ("prompts", "p1")


def test_language_choice() -> None:
    assert primary_subtag("pt-BR") == "pt" and primary_subtag("de_AT") == "de"
    assert primary_subtag("") is None and primary_subtag(None) is None
    locales = Locales({"en": object(), "es": object()})  # type: ignore[dict-item]
    assert locales.resolve(None, "es-MX") == "es"
    assert locales.resolve("en", "es-MX") == "en"  # a stored choice wins over Telegram
    assert locales.resolve(None, "ja") == "en" and locales.resolve(None, None) == "en"
    assert locales.resolve("fr", None) == "en"  # a choice no longer served (disabled)
    assert locales.codes == ("en", "es")


# --- through the content check: file and line, enabled or not ------------------------------


@pytest.fixture(scope="module")
def complete(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return complete_content(tmp_path_factory.mktemp("locales") / "content")


def copy_of(complete: Path, tmp_path: Path) -> Path:
    import shutil  # noqa: PLC0415

    target = tmp_path / "content"
    shutil.copytree(complete, target)
    return target


def test_complete_languages_load(complete: Path) -> None:
    content = load_content(complete)
    assert content.locales.codes == ("en", "de", "es", "fr", "it", "nl", "pt")
    assert content.notes == ()


def test_an_enabled_language_with_a_gap_fails_with_file_and_line(
    complete: Path, tmp_path: Path
) -> None:
    root = copy_of(complete, tmp_path)
    file = root / "locales" / "fr" / "texts" / "core.yaml"
    data = yaml.safe_load(file.read_text(encoding="utf-8"))
    del data["start"]["welcome"]
    data["start"]["not_started"] = "Salut {name}"
    file.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    problems, notes = check_report(root)
    line = next(
        n for n, text in enumerate(file.read_text().splitlines(), 1) if "not_started" in text
    )
    assert f"{file}:{line}: start.not_started: placeholders differ" in "\n".join(problems)
    assert any(p.startswith(f"{file}:") and "missing key start.welcome" in p for p in problems)
    assert notes == []


def test_a_disabled_language_is_noted_not_failed_and_never_served(
    complete: Path, tmp_path: Path
) -> None:
    root = copy_of(complete, tmp_path)
    (root / "locales" / "nl" / "language.yaml").write_text("enabled: false\n", encoding="utf-8")
    (root / "locales" / "nl" / "prompts.yaml").write_text("prompts: {}\n", encoding="utf-8")
    problems, notes = check_report(root)
    assert problems == []
    assert notes and all(n.endswith("(disabled: not shown)") for n in notes)
    assert any("missing prompt id grounding_01" in n for n in notes)
    assert "nl" not in load_content(root).locales.codes


@pytest.mark.parametrize("language_file", [None, "enabled: maybe\n"])
def test_language_file_is_required(
    complete: Path, tmp_path: Path, language_file: str | None
) -> None:
    root = copy_of(complete, tmp_path)
    target = root / "locales" / "it" / "language.yaml"
    if language_file is None:
        target.unlink()
    else:
        target.write_text(language_file, encoding="utf-8")
    problems, notes = check_report(root)
    assert problems == []  # without a valid `enabled: true` nothing is shown
    assert any(str(target) in n for n in notes)


def test_missing_and_extra_files_are_reported(complete: Path, tmp_path: Path) -> None:
    root = copy_of(complete, tmp_path)
    (root / "locales" / "de" / "worksheets" / "safety_plan.yaml").unlink()
    (root / "locales" / "de" / "texts" / "typo.yaml").write_text("a: b\n", encoding="utf-8")
    problems, _ = check_report(root)
    joined = "\n".join(problems)
    assert "locales/de/worksheets/safety_plan.yaml:1: missing (English has it)" in joined
    assert "locales/de/texts/typo.yaml:1: extra file (English has no typo.yaml)" in joined


def test_a_translated_worksheet_keeps_english_ids(complete: Path) -> None:
    content = load_content(complete)
    for code in content.locales.codes[1:]:
        for wid, english in content.worksheets.items():
            mine = content.locales[code].worksheets[wid]
            assert [q.id for q in mine.questions] == [q.id for q in english.questions]
            assert len(mine.sections) == len(english.sections)
            assert mine.title != english.title


# --- helplines' words -----------------------------------------------------------------------

HELP_EN = ["24/7", "Press 1 for the Veterans Crisis Line."]


def test_helpline_strings_complete_pass() -> None:
    assert strings_parity(HELP_EN, {"strings": {"24/7": "24 h", HELP_EN[1]: "Pulsa 1."}}) == []


@pytest.mark.parametrize(
    ("translated", "expected"),
    [
        ({"strings": {"24/7": "24 h"}}, "missing translation of 'Press 1"),
        (
            {"strings": {"24/7": "24 h", HELP_EN[1]: "Pulsa 1.", "Old note.": "Vieja."}},
            "extra: English has no 'Old note.'",
        ),
        ({"strings": {"24/7": " ", HELP_EN[1]: "Pulsa 1."}}, "empty translation"),
        ({"strings": {"24/7": "x" * 600, HELP_EN[1]: "Pulsa 1."}}, "too long"),
        ({"lines": {}}, "expected one key, `strings:`"),
    ],
)
def test_helpline_strings_parity_fails(translated: dict[str, Any], expected: str) -> None:
    found = messages(strings_parity(HELP_EN, translated))
    assert any(message.startswith(expected) for message in found), found


def test_an_english_helpline_note_edited_flags_its_stale_translation(
    complete: Path, tmp_path: Path
) -> None:
    root = copy_of(complete, tmp_path)
    english = root / "helplines.yaml"
    text = english.read_text(encoding="utf-8")
    note = "Press 1 for the Veterans Crisis Line, 2 for Spanish."
    assert note in text
    english.write_text(text.replace(note, "Press 1 for veterans, 2 for Spanish."), "utf-8")
    problems, _ = check_report(root)
    joined = "\n".join(problems)
    for code in ("de", "es", "fr", "it", "nl", "pt"):
        file = root / "locales" / code / "helplines.yaml"
        assert f"{file}:2: missing translation of 'Press 1 for veterans" in joined  # `strings:`
        assert f"{file}:" in joined and f"extra: English has no {note!r}" in joined


def test_the_crisis_reply_book_is_translated(complete: Path) -> None:
    content = load_content(complete)
    english = content.locales["en"].book.helplines["US"].lines[1]
    spanish = content.locales["es"].book.helplines["US"].lines[1]
    assert english.notes and spanish.notes and english.notes != spanish.notes
    assert (spanish.name, spanish.phone) == (english.name, english.phone)  # the service's own
    assert content.locales["en"].book is content.crisis_book


def test_a_translation_folder_the_code_does_not_know_is_a_problem(
    complete: Path, tmp_path: Path
) -> None:
    root = copy_of(complete, tmp_path)
    shutil.copytree(root / "locales" / "es", root / "locales" / "pl")
    shutil.rmtree(root / "locales" / "nl")
    problems, _ = check_report(root)
    joined = "\n".join(problems)
    assert "locales/pl:1: not in bot/core/languages.py LANGUAGES" in joined
    assert "no folder for nl, which bot/core/languages.py lists" in joined


# --- regional variants (issue 23: European Portuguese) -----------------------------------


def test_a_variant_overlays_only_keys_the_language_has() -> None:
    language = {"setup": {"ask": "Em que país você está?", "set": "País: {country}."}}
    assert variant_parity(language, {"setup": {"ask": "Em que país está?"}}) == []
    extra = variant_parity(language, {"setup": {"typo": "x"}})
    assert [p.message for p in extra] == ["extra key setup.typo (the language has none)"]
    wrong = variant_parity(language, {"setup": {"set": "País: {pais}."}})
    assert "placeholders differ" in wrong[0].message
    assert "non-empty" in variant_parity(language, {"setup": {"ask": " "}})[0].message
    merged = overlay_variant(language, {"setup": {"ask": "Em que país está?"}})
    assert merged == {"setup": {"ask": "Em que país está?", "set": "País: {country}."}}


def test_which_variant_a_person_reads() -> None:
    locales = shared_content().locales
    european = locales["pt"].variants["PT"]
    assert locales.variant("pt", "PT") is european  # the country, Telegram saying "pt"
    assert locales.variant("pt", None, "pt-PT") is european  # Telegram's region
    assert locales.variant("pt", "PT", "pt-BR") is locales["pt"]  # the phone's choice wins
    assert locales.variant("pt", "BR") is locales["pt"]
    assert locales.variant("es", "PT") is locales["es"]  # only where a variant exists
    assert european.texts("setup.time_unknown") != locales["pt"].texts("setup.time_unknown")
    assert european.texts("urge.label") == locales["pt"].texts("urge.label")  # left to pt
