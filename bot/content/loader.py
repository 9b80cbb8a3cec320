"""Loads and validates everything in `content/`, naming file and line for every problem.

Content authors edit YAML and run `python -m bot content check`; the bot runs the same
checks at start-up and refuses to serve half-valid content, unless it finds the compiled
form of exactly these files, which they already passed (bot/content/compiled.py).
"""

from __future__ import annotations

import datetime
import importlib.resources
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from bot.content.conversation import Words, validate_words
from bot.content.crisis_reply import Book
from bot.content.crisis_terms import validate_terms
from bot.content.decoys import Decoys, DecoyVoice, parse_theme, validate_theme
from bot.content.emergency import (
    Emergency,
    disagreements,
    helpline_differences,
    parse_emergency,
    review_differences,
    stale_entries,
    validate_emergency,
)
from bot.content.helplines import Country, parse_helplines, stale_lines, validate_helplines
from bot.content.locales import Locale, Locales
from bot.content.panic_word import parse_common_words, validate_common_words
from bot.content.phrases import PhraseMatcher, validate_cancel, validate_signal
from bot.content.places import Places
from bot.content.prompt_model import Prompt, parse_prompts, validate_prompts
from bot.content.texts import Texts, validate_texts
from bot.content.translations import English, in_order, languages_agree, load_locale
from bot.content.urge_texts import FILE as URGE_TEXTS_FILE
from bot.content.urge_texts import validate_urge_texts
from bot.content.worksheet_model import (
    Worksheet,
    parse_worksheet,
    validate_worksheet,
    validate_worksheet_ids,
)
from bot.content.yaml_lines import Doc, checked, load_yaml, report
from bot.core.errors import SteadyError
from bot.core.languages import ENGLISH, LANGUAGES
from bot.matching.crisis import CrisisDetector

CONTENT_DIR_ENV = "BOT_CONTENT_DIR"


class ContentError(SteadyError):
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
    # Emergency numbers libphonenumber does not list: for someone to look at, not failures.
    review: tuple[str, ...] = ()


def content_dir() -> Path:
    """BOT_CONTENT_DIR, or the content installed with the package (`bot_content`)."""
    override = os.environ.get(CONTENT_DIR_ENV)
    if override:
        return Path(override)
    return Path(str(importlib.resources.files("bot_content")))


def _load_texts(
    root: Path, problems: list[str], docs: dict[str, Doc] | None = None
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
        doc = load_yaml(file, problems)
        if doc is None:
            ok = False
            continue
        found = validate_texts(doc.data)
        if isinstance(doc.data, dict) and "conversation_words" in doc.data:
            found += validate_words(doc.data["conversation_words"])
        report(doc, found, problems)
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
    cancel = checked(folder, "cancel.yaml", validate_cancel, problems)
    files = sorted(f for f in folder.glob("*.yaml") if f.name != "cancel.yaml")
    if not files:
        problems.append(f"{folder}:1: no phrase signal files found")
    languages = set(cancel.data) if cancel else set()
    signals: dict[str, Any] = {}
    for file in files:
        doc = load_yaml(file, problems)
        if doc is None:
            continue
        found = validate_signal(doc.data, languages)
        report(doc, found, problems)
        if not found:
            signals[file.stem] = doc.data
    if cancel is None or len(signals) != len(files) or not files:
        return None
    return PhraseMatcher.from_content(signals, cancel.data)


def load_content(root: Path | None = None, *, today: datetime.date | None = None) -> Content:
    """Load everything or raise ContentError listing every problem found. With `today`,
    a line or entry checked more than twelve months before it is a problem too: `content
    check` and CI hold that rule; the running bot does not stop serving numbers over it."""
    root = root or content_dir()
    problems: list[str] = []
    text_docs: dict[str, Doc] = {}
    texts = _load_texts(root, problems, text_docs)
    help_doc = checked(root, "helplines.yaml", validate_helplines, problems)
    emergency_doc = checked(root, "emergency_numbers.yaml", validate_emergency, problems)
    review: list[str] = []  # differences for someone to look at, never failures
    helplines = parse_helplines(help_doc.data) if help_doc is not None else None
    emergency = parse_emergency(emergency_doc.data) if emergency_doc is not None else None
    if help_doc is not None and helplines is not None and emergency is not None:
        report(help_doc, disagreements(helplines, emergency), problems)
        report(help_doc, helpline_differences(helplines, emergency), review)
    if emergency_doc is not None and emergency is not None:
        report(emergency_doc, review_differences(emergency), review)
    if today is not None and help_doc is not None:
        report(help_doc, stale_lines(help_doc.data, today), problems)
    if today is not None and emergency_doc is not None:
        report(emergency_doc, stale_entries(emergency_doc.data, today), problems)
    terms_doc = checked(
        root, "crisis_terms.yaml", partial(validate_terms, required=LANGUAGES), problems
    )
    prompts_doc = checked(root, "prompts.yaml", validate_prompts, problems)
    # The urge flow's keys and placeholders, beyond what every text file gets.
    checked(root, URGE_TEXTS_FILE, validate_urge_texts, problems)
    phrases = _load_phrases(root, problems)

    worksheets: dict[str, Worksheet] = {}
    sheet_raw: dict[str, Any] = {}
    sheet_docs: list[tuple[str, object]] = []
    sheet_files = sorted((root / "worksheets").glob("*.yaml"))
    if not sheet_files:
        problems.append(f"{root / 'worksheets'}:1: no worksheets found")
    for file in sheet_files:
        doc = load_yaml(file, problems)
        if doc is None:
            continue
        found = validate_worksheet(doc.data, file_stem=file.stem)
        report(doc, found, problems)
        sheet_docs.append((str(file), doc.data))
        if not found:
            sheet = parse_worksheet(doc.data)
            worksheets[sheet.id] = sheet
            sheet_raw[sheet.id] = doc.data
    for file_name, problem in validate_worksheet_ids(sheet_docs):
        problems.append(f"{file_name}:1: {problem.message}")
    decoys = _load_decoys(root, problems)
    panic_doc = checked(
        root, "panic_words.yaml", lambda raw: validate_common_words(raw, LANGUAGES), problems
    )

    notes: list[str] = []
    locales: dict[str, Locale] = {}
    book: Book | None = None
    if not problems and helplines is not None and emergency is not None:
        book = Book(helplines, emergency)
    if not problems and texts is not None and prompts_doc is not None and book is not None:
        english = English(text_docs, sheet_raw, prompts_doc.data, book)
        folders = sorted(p for p in (root / "locales").glob("*") if p.is_dir())
        problems += languages_agree(root / "locales", {f.name for f in folders})
        for folder in folders:
            locale = load_locale(folder, english, problems, notes)
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
    ordered = in_order(worksheets, texts)
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
        review=tuple(review),
    )


def _load_decoys(root: Path, problems: list[str]) -> dict[str, dict[str, DecoyVoice]]:
    """content/decoys/<theme>.yaml, one theme per file, named by the file."""
    themes: dict[str, dict[str, DecoyVoice]] = {}
    files = sorted((root / "decoys").glob("*.yaml"))
    if not files:
        problems.append(f"{root / 'decoys'}:1: no decoy themes found")
    for file in files:
        doc = load_yaml(file, problems)
        if doc is None:
            continue
        found = validate_theme(doc.data)
        report(doc, found, problems)
        if not found:
            themes[file.stem] = parse_theme(doc.data)
    return themes


def utc_today() -> datetime.date:
    return datetime.datetime.now(datetime.UTC).date()


def check_content(root: Path | None = None, *, today: datetime.date | None = None) -> list[str]:
    return check_all(root, today=today).problems


def check_report(
    root: Path | None = None, *, today: datetime.date | None = None
) -> tuple[list[str], list[str]]:
    """(problems, notes): problems fail the check; notes are disabled languages' gaps."""
    result = check_all(root, today=today)
    return result.problems, result.notes


@dataclass(frozen=True)
class CheckResult:
    problems: list[str]  # fail the check
    notes: list[str]  # disabled languages' gaps: listed, not failing
    review: list[str]  # emergency numbers that differ from libphonenumber: listed, not failing


def check_all(root: Path | None = None, *, today: datetime.date | None = None) -> CheckResult:
    """Everything `python -m bot content check` says. Dates are held to `today` (default:
    today in UTC)."""
    try:
        content = load_content(root, today=today or utc_today())
    except ContentError as exc:
        return CheckResult(exc.problems, exc.notes, [])
    return CheckResult([], list(content.notes), list(content.review))
