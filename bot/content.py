"""Loads and validates everything in `content/`, naming file and line for every problem.

Content authors edit YAML and run `python -m bot content check`; the bot runs the same
checks at start-up and refuses to serve half-valid content.
"""

from __future__ import annotations

import importlib.resources
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import yaml

from bot import locales as loc
from bot.core.languages import ENGLISH, LANGUAGES
from bot.locales import Locale, Locales
from bot.problems import Path as ProblemPath
from bot.problems import Problem
from bot.services.conversation import Words, validate_words
from bot.services.crisis import CrisisDetector
from bot.services.crisis_reply import Book
from bot.services.crisis_terms import validate_terms
from bot.services.decoys import Decoys, DecoyVoice, parse_theme, validate_theme
from bot.services.emergency import Emergency, disagreements, parse_emergency, validate_emergency
from bot.services.helpline_texts import FILE as HELPLINES_FILE
from bot.services.helpline_texts import english_strings, strings_parity, translated_book
from bot.services.helplines import Country, parse_helplines, validate_helplines
from bot.services.panic_word import parse_common_words, validate_common_words
from bot.services.phrases import PhraseMatcher, validate_cancel, validate_signal
from bot.services.places import Places
from bot.services.prompt_model import Prompt, parse_prompts, validate_prompts
from bot.services.urge_texts import FILE as URGE_TEXTS_FILE
from bot.services.urge_texts import validate_urge_texts
from bot.services.worksheet_model import (
    Worksheet,
    parse_worksheet,
    validate_worksheet,
    validate_worksheet_ids,
)
from bot.texts import Texts, validate_texts

CONTENT_DIR_ENV = "BOT_CONTENT_DIR"


class ContentError(Exception):
    def __init__(self, problems: list[str], notes: list[str] | None = None) -> None:
        super().__init__(f"{len(problems)} problem(s) in content")
        self.problems = problems
        self.notes = notes or []  # disabled languages' problems: listed, not failing


@dataclass(frozen=True)
class Content:
    root: Path
    texts: Texts
    helplines: Mapping[str, Country]
    emergency: Mapping[str, Emergency]  # every ISO 3166-1 country
    crisis_book: Book  # helplines and emergency numbers together, for the crisis reply
    places: Places  # country names typed in any of the seven languages
    crisis_terms: dict[str, Any]  # categories and languages, as in crisis_terms.yaml
    detector: CrisisDetector
    prompts: tuple[Prompt, ...]
    worksheets: dict[str, Worksheet]  # in display order
    decoys: Decoys
    common_words: frozenset[str]  # normalised; a panic word made only of these is refused
    phrases: PhraseMatcher  # content/phrases: self-doubt and pull-back signals
    words: Words  # stop, cancel, menu, hi, thanks... (content/texts/conversation.yaml)
    locales: Locales  # every enabled language, English first (content/locales/<lang>/)
    notes: tuple[str, ...] = ()  # problems of disabled languages, for `content check`


def content_dir() -> Path:
    """BOT_CONTENT_DIR, or the content installed with the package (`bot_content`)."""
    override = os.environ.get(CONTENT_DIR_ENV)
    if override:
        return Path(override)
    return Path(str(importlib.resources.files("bot_content")))


@dataclass
class _Doc:
    file: Path
    data: Any
    lines: dict[ProblemPath, int]

    def locate(self, path: ProblemPath) -> str:
        # The deepest known ancestor of the path gives the nearest line.
        for cut in range(len(path), -1, -1):
            line = self.lines.get(path[:cut])
            if line is not None:
                return f"{self.file}:{line}"
        return f"{self.file}:1"


def _load_yaml(file: Path, problems: list[str]) -> _Doc | None:
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"{file}:1: cannot read ({type(exc).__name__})")
        return None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problems.append(f"{file}:{line}: not valid YAML ({getattr(exc, 'problem', exc)})")
        return None
    lines: dict[ProblemPath, int] = {}
    if node is None:
        return _Doc(file, None, lines)
    data = _to_python(node, (), lines, file, problems)
    return _Doc(file, data, lines)


def _to_python(
    node: yaml.Node,
    path: ProblemPath,
    lines: dict[ProblemPath, int],
    file: Path,
    problems: list[str],
) -> Any:
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = _scalar(key_node)
            if key in result:
                # PyYAML keeps the last duplicate silently; an author needs to know.
                problems.append(f"{file}:{key_node.start_mark.line + 1}: duplicate key {key!r}")
            result[key] = _to_python(value_node, (*path, key), lines, file, problems)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [
            _to_python(item, (*path, index), lines, file, problems)
            for index, item in enumerate(node.value)
        ]
    try:
        return _scalar(node)
    except ValueError:
        # PyYAML raises on a date-shaped typo (2026-13-01) instead of keeping the text; keep
        # it, so the file's own check reports it at its line instead of a traceback.
        return str(node.value)


def _scalar(node: yaml.Node) -> Any:
    # A loader over an empty stream is only used for its constructors (dates, ints, bools).
    return yaml.SafeLoader("").construct_object(node, deep=True)


def _report(doc: _Doc, found: list[Problem], problems: list[str]) -> None:
    problems.extend(f"{doc.locate(p.path)}: {p.message}" for p in found)


def _checked(
    root: Path,
    name: str,
    validate: Callable[[object], list[Problem]],
    problems: list[str],
) -> _Doc | None:
    file = root / name
    if not file.is_file():
        problems.append(f"{file}:1: missing")
        return None
    doc = _load_yaml(file, problems)
    if doc is None:
        return None
    found = validate(doc.data)
    _report(doc, found, problems)
    return None if found else doc


def _load_texts(
    root: Path, problems: list[str], docs: dict[str, _Doc] | None = None
) -> Texts | None:
    """content/texts/*.yaml, merged: one file per feature, no key defined twice. `docs`
    receives each file's document by file name (the source of structure for translations)."""
    files = sorted((root / "texts").glob("*.yaml"))
    if not files:
        problems.append(f"{root / 'texts'}:1: no text files found")
        return None
    merged: dict[str, Any] = {}
    owner: dict[str, Path] = {}
    ok = True
    for file in files:
        doc = _load_yaml(file, problems)
        if doc is None:
            ok = False
            continue
        found = validate_texts(doc.data)
        if isinstance(doc.data, dict) and "conversation_words" in doc.data:
            found += validate_words(doc.data["conversation_words"])
        _report(doc, found, problems)
        if found:
            ok = False
            continue
        if docs is not None:
            docs[file.name] = doc
        for key, value in doc.data.items():
            if key in merged:
                problems.append(
                    f"{doc.locate((key,))}: top-level key {key!r} is already in {owner[key]}"
                )
                ok = False
            merged[key] = value
            owner[key] = file
    return Texts(merged) if ok else None


def _load_phrases(root: Path, problems: list[str]) -> PhraseMatcher | None:
    """content/phrases/: cancel.yaml, and one file per signal named after it."""
    folder = root / "phrases"
    cancel = _checked(folder, "cancel.yaml", validate_cancel, problems)
    files = sorted(f for f in folder.glob("*.yaml") if f.name != "cancel.yaml")
    if not files:
        problems.append(f"{folder}:1: no phrase signal files found")
    languages = set(cancel.data) if cancel else set()
    signals: dict[str, Any] = {}
    for file in files:
        doc = _load_yaml(file, problems)
        if doc is None:
            continue
        found = validate_signal(doc.data, languages)
        _report(doc, found, problems)
        if not found:
            signals[file.stem] = doc.data
    if cancel is None or len(signals) != len(files) or not files:
        return None
    return PhraseMatcher.from_content(signals, cancel.data)


def load_content(root: Path | None = None) -> Content:
    """Load everything or raise ContentError listing every problem found."""
    root = root or content_dir()
    problems: list[str] = []
    text_docs: dict[str, _Doc] = {}
    texts = _load_texts(root, problems, text_docs)
    help_doc = _checked(root, "helplines.yaml", validate_helplines, problems)
    emergency_doc = _checked(root, "emergency_numbers.yaml", validate_emergency, problems)
    if help_doc is not None and emergency_doc is not None:
        found = disagreements(parse_helplines(help_doc.data), parse_emergency(emergency_doc.data))
        _report(help_doc, found, problems)
    terms_doc = _checked(
        root, "crisis_terms.yaml", partial(validate_terms, required=LANGUAGES), problems
    )
    prompts_doc = _checked(root, "prompts.yaml", validate_prompts, problems)
    # The urge flow's keys and placeholders, beyond what every text file gets.
    _checked(root, URGE_TEXTS_FILE, validate_urge_texts, problems)
    phrases = _load_phrases(root, problems)

    worksheets: dict[str, Worksheet] = {}
    sheet_raw: dict[str, Any] = {}
    sheet_docs: list[tuple[str, object]] = []
    sheet_files = sorted((root / "worksheets").glob("*.yaml"))
    if not sheet_files:
        problems.append(f"{root / 'worksheets'}:1: no worksheets found")
    for file in sheet_files:
        doc = _load_yaml(file, problems)
        if doc is None:
            continue
        found = validate_worksheet(doc.data, file_stem=file.stem)
        _report(doc, found, problems)
        sheet_docs.append((str(file), doc.data))
        if not found:
            sheet = parse_worksheet(doc.data)
            worksheets[sheet.id] = sheet
            sheet_raw[sheet.id] = doc.data
    for file_name, problem in validate_worksheet_ids(sheet_docs):
        problems.append(f"{file_name}:1: {problem.message}")
    decoys = _load_decoys(root, problems)
    panic_doc = _checked(
        root, "panic_words.yaml", lambda raw: validate_common_words(raw, LANGUAGES), problems
    )

    notes: list[str] = []
    locales: dict[str, Locale] = {}
    book: Book | None = None
    if not problems and help_doc is not None and emergency_doc is not None:
        book = Book(parse_helplines(help_doc.data), parse_emergency(emergency_doc.data))
    if not problems and texts is not None and prompts_doc is not None and book is not None:
        english = _English(text_docs, sheet_raw, prompts_doc.data, book)
        folders = sorted(p for p in (root / "locales").glob("*") if p.is_dir())
        problems += _languages_agree(root / "locales", {f.name for f in folders})
        for folder in folders:
            locale = _load_locale(folder, english, problems, notes)
            if locale is not None:
                locales[locale.code] = locale

    if (
        problems
        or texts is None
        or phrases is None
        or help_doc is None
        or emergency_doc is None
        or terms_doc is None
        or prompts_doc is None
        or panic_doc is None
        or book is None
    ):
        raise ContentError(problems, notes)
    ordered = _in_order(worksheets, texts)
    prompts = parse_prompts(prompts_doc.data)
    # English's worksheets are the structure itself (`worksheets`): not held twice.
    locales[ENGLISH] = Locale(ENGLISH, texts, {}, {p.id: p.text for p in prompts}, book)
    return Content(
        root=root,
        texts=texts,
        helplines=book.helplines,
        emergency=book.emergency,
        crisis_book=book,
        places=Places(book.helplines, texts.data.get("country_aliases", {})),
        crisis_terms=terms_doc.data,
        detector=CrisisDetector.from_terms(terms_doc.data),
        prompts=prompts,
        worksheets=ordered,
        decoys=Decoys(decoys),
        common_words=parse_common_words(panic_doc.data),
        phrases=phrases,
        words=Words.from_data(texts.data["conversation_words"]),
        locales=Locales(locales),
        notes=tuple(notes),
    )


def _in_order(worksheets: dict[str, Worksheet], texts: Texts) -> dict[str, Worksheet]:
    order = texts.data.get("worksheet_order", [])
    ordered = {wid: worksheets[wid] for wid in order if wid in worksheets}
    ordered.update({wid: s for wid, s in sorted(worksheets.items()) if wid not in ordered})
    return ordered


def _languages_agree(folder: Path, found: set[str]) -> list[str]:
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
class _English:
    """The source a translation is checked against and overlaid on."""

    texts: dict[str, _Doc]  # by file name
    sheets: dict[str, Any]  # raw worksheet documents by id
    prompts: Any
    book: Book


def _load_locale(
    folder: Path, english: _English, problems: list[str], notes: list[str]
) -> Locale | None:
    """content/locales/<lang>/: checked against English whether enabled or not. An enabled
    language's problems fail the load; a disabled one's become notes and it is not served."""
    code = folder.name
    found: list[str] = []
    enabled = False
    language = _checked(folder, loc.LANGUAGE_FILE, loc.language_problems, found)
    if language is not None:
        enabled = bool(language.data["enabled"])

    def compare(doc: _Doc | None, rule: Callable[[object], list[Problem]]) -> bool:
        if doc is None:
            return False
        trouble = rule(doc.data)
        _report(doc, trouble, found)
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
            _report(doc, budgets, found)
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
    return Locale(code, texts, _in_order(worksheets, texts), prompt_texts, book)


def _present(file: Path, found: list[str]) -> _Doc | None:
    if not file.is_file():
        found.append(f"{file}:1: missing (English has it)")
        return None
    return _load_yaml(file, found)


def _extra_files(folder: Path, expected: set[str], found: list[str]) -> None:
    for file in sorted(folder.glob("*.yaml")):
        if file.name not in expected:
            found.append(f"{file}:1: extra file (English has no {file.name})")


def _load_decoys(root: Path, problems: list[str]) -> dict[str, dict[str, DecoyVoice]]:
    """content/decoys/<theme>.yaml, one theme per file, named by the file."""
    themes: dict[str, dict[str, DecoyVoice]] = {}
    files = sorted((root / "decoys").glob("*.yaml"))
    if not files:
        problems.append(f"{root / 'decoys'}:1: no decoy themes found")
    for file in files:
        doc = _load_yaml(file, problems)
        if doc is None:
            continue
        found = validate_theme(doc.data)
        _report(doc, found, problems)
        if not found:
            themes[file.stem] = parse_theme(doc.data)
    return themes


def check_content(root: Path | None = None) -> list[str]:
    return check_report(root)[0]


def check_report(root: Path | None = None) -> tuple[list[str], list[str]]:
    """(problems, notes): problems fail the check; notes are disabled languages' gaps."""
    try:
        content = load_content(root)
    except ContentError as exc:
        return exc.problems, exc.notes
    return [], list(content.notes)
