"""content/locales/<lang>/: each translation checked against English (bot/content/locales.py holds
the rules) and overlaid on it, one `Locale` per enabled language; a disabled language's
problems become notes and it is never served."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from bot.content import locales as loc
from bot.content.crisis_reply import Book
from bot.content.helpline_texts import FILE as HELPLINES_FILE
from bot.content.helpline_texts import english_strings, strings_parity, translated_book
from bot.content.locales import Locale
from bot.content.prompt_model import parse_prompts
from bot.content.texts import Texts
from bot.content.urge_texts import FILE as URGE_TEXTS_FILE
from bot.content.urge_texts import validate_urge_texts
from bot.content.worksheet_model import Worksheet, parse_worksheet
from bot.content.yaml_lines import Doc, checked, load_yaml, report
from bot.core.languages import ENGLISH, LANGUAGES
from bot.core.problems import Problem


def in_order(worksheets: dict[str, Worksheet], texts: Texts) -> dict[str, Worksheet]:
    order = texts.data.get("worksheet_order", [])
    ordered = {wid: worksheets[wid] for wid in order if wid in worksheets}
    ordered.update({wid: s for wid, s in sorted(worksheets.items()) if wid not in ordered})
    return ordered


def languages_agree(folder: Path, found: set[str]) -> list[str]:
    """The translations present and the languages the code keeps data for
    (bot/core/languages.py) are the same set: an eighth language needs both."""
    wanted = set(LANGUAGES) - {ENGLISH}
    out = [
        f"{folder / code}:1: not in bot/core/languages.py LANGUAGES; add it there too"
        for code in sorted(found - wanted)
    ]
    out += [
        f"{folder}:1: no folder for {code}, which bot/core/languages.py lists"
        for code in sorted(wanted - found)
    ]
    return out


@dataclass(frozen=True)
class English:
    """The source a translation is checked against and overlaid on."""

    texts: dict[str, Doc]  # by file name
    sheets: dict[str, Any]  # raw worksheet documents by id
    prompts: Any
    book: Book


def load_locale(
    folder: Path, english: English, problems: list[str], notes: list[str]
) -> Locale | None:
    """content/locales/<lang>/: checked against English whether enabled or not. An enabled
    language's problems fail the load; a disabled one's become notes and it is not served."""
    code = folder.name
    found: list[str] = []
    enabled = False
    language = checked(folder, loc.LANGUAGE_FILE, loc.language_problems, found)
    if language is not None:
        enabled = bool(language.data["enabled"])

    def compare(doc: Doc | None, rule: Callable[[object], list[Problem]]) -> bool:
        if doc is None:
            return False
        trouble = rule(doc.data)
        report(doc, trouble, found)
        return not trouble

    text_data: dict[str, Any] = {}
    for name, source in sorted(english.texts.items()):
        doc = _present(folder / "texts" / name, found)
        if compare(doc, partial(loc.text_parity, source.data)) and doc is not None:
            data = doc.data or {}
            if name == Path(URGE_TEXTS_FILE).name:
                compare(doc, validate_urge_texts)
            text_data.update(loc.overlay_texts(source.data, data))
    _extra_files(folder / "texts", set(english.texts), found)

    worksheets: dict[str, Worksheet] = {}
    sheets = english.sheets
    for wid, english_sheet in sheets.items():
        doc = _present(folder / "worksheets" / f"{wid}.yaml", found)
        if compare(doc, partial(loc.worksheet_parity, english_sheet)) and doc:
            assembled = loc.overlay_worksheet(english_sheet, doc.data)
            budgets = loc.assembled_worksheet_problems(english_sheet, assembled)
            report(doc, budgets, found)
            if not budgets:
                worksheets[wid] = parse_worksheet(assembled)
    _extra_files(folder / "worksheets", {f"{wid}.yaml" for wid in sheets}, found)

    prompt_texts: dict[str, str] = {}
    doc = _present(folder / "prompts.yaml", found)
    prompts = english.prompts
    if compare(doc, partial(loc.prompt_parity, prompts)) and doc is not None:
        prompt_texts = {p.id: p.text for p in parse_prompts(loc.overlay_prompts(prompts, doc.data))}

    book = english.book
    doc = _present(folder / HELPLINES_FILE, found)
    wanted = english_strings(book)
    if compare(doc, partial(strings_parity, wanted)) and doc is not None:
        book = translated_book(book, doc.data["strings"] or {})

    if not enabled:
        notes.extend(f"{line} (disabled: not shown)" for line in found)
        return None
    problems.extend(found)
    if found:
        return None
    texts = Texts(text_data)
    return Locale(code, texts, in_order(worksheets, texts), prompt_texts, book)


def _present(file: Path, found: list[str]) -> Doc | None:
    if not file.is_file():
        found.append(f"{file}:1: missing (English has it)")
        return None
    return load_yaml(file, found)


def _extra_files(folder: Path, expected: set[str], found: list[str]) -> None:
    for file in sorted(folder.glob("*.yaml")):
        if file.name not in expected:
            found.append(f"{file}:1: extra file (English has no {file.name})")
