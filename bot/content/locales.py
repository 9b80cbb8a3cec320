"""The bot in several languages: English is the source of structure, a translation only
overlays strings by id (texts by key, worksheets by question id and section index, prompts
by id), so it can never change what stored progress depends on.

The parity rules live here as pure functions over parsed YAML, each returning problems at
paths inside the translation's document; bot/content/loader.py reads the files, turns paths into
file and line, and builds one `Locale` per enabled language. Layout and rules for
translators: docs/content.md.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from babel import Locale as BabelLocale

from bot.content.crisis_reply import Book
from bot.content.prompt_model import validate_prompts
from bot.content.texts import DATA_KEYS, Texts
from bot.content.worksheet_model import Worksheet, validate_worksheet
from bot.core.languages import ENGLISH
from bot.core.problems import Path, Problem
from bot.core.telegram_text import MESSAGE_LIMIT, utf16_len

LANGUAGE_FILE = "language.yaml"
# A translation holds these worksheet parts, by section index and question id.
_SHEET_TOP = ("title", "summary", "intro", "before_you_start", "sections", "questions", "closing")
_SECTION_KEYS = ("title", "framing")
# Data keys a translation may repeat only unchanged (the command menu's order).
_DATA_MAY_REPEAT = ("command_menu",)


def primary_subtag(code: str | None) -> str | None:
    """Telegram's IETF tag to our language code: "pt-BR" -> "pt", "" -> None."""
    if not code:
        return None
    return code.replace("_", "-").split("-", 1)[0].lower() or None


@cache
def endonym(code: str) -> str:
    """A language's name in itself, from CLDR ("Español", "Deutsch")."""
    name = BabelLocale.parse(code).get_display_name(code) or code
    return name[:1].upper() + name[1:]


def placeholders(text: str) -> frozenset[str] | None:
    """The `{names}` a template uses; None when its braces are broken."""
    try:
        return frozenset(f for _, f, _, _ in string.Formatter().parse(text) if f is not None)
    except ValueError:
        return None


def _leaves(node: Mapping[Any, Any], path: Path = ()) -> dict[Path, object]:
    found: dict[Path, object] = {}
    for key, value in node.items():
        if not path and key in DATA_KEYS:
            continue
        here = (*path, key)
        if isinstance(value, Mapping):
            found.update(_leaves(value, here))
        else:
            found[here] = value
    return found


def _dotted(path: Path) -> str:
    return ".".join(str(p) for p in path)


def _check_string(path: Path, value: object, english: str, problems: list[Problem]) -> None:
    if not isinstance(value, str) or not value.strip():
        problems.append(Problem(path, f"{_dotted(path)}: expected non-empty text"))
        return
    if utf16_len(value.strip()) > MESSAGE_LIMIT:
        problems.append(Problem(path, f"{_dotted(path)}: longer than Telegram's {MESSAGE_LIMIT}"))
    mine, theirs = placeholders(value), placeholders(english)
    if mine is None:
        problems.append(Problem(path, f"{_dotted(path)}: broken {{placeholder}}"))
    elif theirs is not None and mine != theirs:
        want = ", ".join(f"{{{n}}}" for n in sorted(theirs)) or "no placeholders"
        have = ", ".join(f"{{{n}}}" for n in sorted(mine)) or "none"
        problems.append(
            Problem(path, f"{_dotted(path)}: placeholders differ from English: {want}, not {have}")
        )


def text_parity(english: Mapping[str, Any], translated: object) -> list[Problem]:
    """A texts file against its English twin: same keys, same placeholders, no empty text,
    nothing over Telegram's message limit."""
    if translated is None:
        translated = {}
    if not isinstance(translated, Mapping):
        return [Problem((), "expected a mapping of text keys")]
    problems: list[Problem] = []
    for key in DATA_KEYS:
        if key in translated and (
            key not in _DATA_MAY_REPEAT or translated[key] != english.get(key)
        ):
            problems.append(
                Problem((key,), f"{key} is data and stays in the English file only; leave it out")
            )
    theirs, mine = _leaves(english), _leaves(translated)
    for path, value in theirs.items():
        if path not in mine:
            problems.append(Problem(_nearest(path, translated), f"missing key {_dotted(path)}"))
        elif isinstance(value, str):
            _check_string(path, mine[path], value, problems)
    for path in mine:
        if path not in theirs:
            problems.append(Problem(path, f"extra key {_dotted(path)} (not in English)"))
    return problems


def _nearest(path: Path, node: object) -> Path:
    """The deepest part of `path` that exists in `node`: where a missing key belongs."""
    found: Path = ()
    for part in path[:-1]:
        if not isinstance(node, Mapping) or part not in node:
            break
        node = node[part]
        found = (*found, part)
    return found


def overlay_texts(english: Mapping[str, Any], translated: Mapping[str, Any]) -> dict[str, Any]:
    """English's data keys with the translation's strings (parity already checked)."""
    merged = {k: v for k, v in translated.items() if k not in DATA_KEYS}
    merged.update({k: english[k] for k in DATA_KEYS if k in english})
    return merged


# --- worksheets ---------------------------------------------------------------------------


def worksheet_parity(english: Mapping[str, Any], translated: object) -> list[Problem]:
    """A worksheet translation against the English worksheet: the same number of sections,
    every question id exactly once, a hint only where English has one, no empty text.
    Length budgets are checked on the assembled worksheet (`overlay_worksheet`)."""
    if not isinstance(translated, Mapping):
        return [Problem((), "expected a mapping (title, summary, sections, questions, …)")]
    problems: list[Problem] = []
    for key in _SHEET_TOP:
        if key not in translated:
            problems.append(Problem((), f"missing key {key}"))
    for key in translated:
        if key not in _SHEET_TOP:
            problems.append(Problem((key,), f"extra key {key} (ids and order live in English)"))
    for key in ("title", "summary", "intro", "before_you_start", "closing"):
        if key in translated:
            _check_string((key,), translated[key], str(english.get(key, "")), problems)
    sections = translated.get("sections")
    english_sections = english.get("sections", [])
    if "sections" in translated:
        if not isinstance(sections, list):
            problems.append(Problem(("sections",), "expected a list of sections"))
        elif len(sections) != len(english_sections):
            problems.append(
                Problem(
                    ("sections",),
                    f"{len(sections)} sections; English has {len(english_sections)}",
                )
            )
        else:
            for index, (mine, theirs) in enumerate(zip(sections, english_sections, strict=True)):
                problems.extend(_section_parity(index, mine, theirs))
    if "questions" in translated:
        problems.extend(_question_parity(english_sections, translated["questions"]))
    return problems


def _section_parity(index: int, mine: object, theirs: Mapping[str, Any]) -> list[Problem]:
    path: Path = ("sections", index)
    if not isinstance(mine, Mapping):
        return [Problem(path, "expected a section with title and framing")]
    problems = [Problem(path, f"missing key {k}") for k in _SECTION_KEYS if k not in mine]
    problems += [Problem((*path, k), f"extra key {k}") for k in mine if k not in _SECTION_KEYS]
    for key in _SECTION_KEYS:
        if key in mine:
            _check_string((*path, key), mine[key], str(theirs.get(key, "")), problems)
    return problems


def _english_questions(sections: list[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {q["id"]: q for section in sections for q in section.get("questions", [])}


def _question_parity(english_sections: list[Mapping[str, Any]], mine: object) -> list[Problem]:
    path: Path = ("questions",)
    if not isinstance(mine, Mapping):
        return [Problem(path, "expected question id: {text, hint} pairs")]
    theirs = _english_questions(english_sections)
    problems: list[Problem] = []
    for qid, question in theirs.items():
        if qid not in mine:
            problems.append(Problem(path, f"missing question id {qid}"))
            continue
        entry = mine[qid]
        here = (*path, qid)
        if not isinstance(entry, Mapping):
            problems.append(Problem(here, "expected text (and hint where English has one)"))
            continue
        wanted = ("text", "hint") if question.get("hint") else ("text",)
        problems += [Problem(here, f"missing key {k}") for k in wanted if k not in entry]
        problems += [
            Problem((*here, k), "English has no hint here" if k == "hint" else f"extra key {k}")
            for k in entry
            if k not in wanted
        ]
        for key in wanted:
            if key in entry:
                _check_string((*here, key), entry[key], str(question.get(key, "")), problems)
    for qid in mine:
        if qid not in theirs:
            problems.append(Problem((*path, qid), f"extra question id {qid} (not in English)"))
    return problems


def overlay_worksheet(english: Mapping[str, Any], translated: Mapping[str, Any]) -> dict[str, Any]:
    """The English worksheet document with the translation's strings (parity checked)."""
    texts = translated["questions"]
    sections = []
    for theirs, mine in zip(english["sections"], translated["sections"], strict=True):
        questions = []
        for question in theirs["questions"]:
            own = texts[question["id"]]
            assembled = {"id": question["id"], "text": own["text"]}
            if "hint" in own:
                assembled["hint"] = own["hint"]
            questions.append(assembled)
        sections.append(
            {"title": mine["title"], "framing": mine["framing"], "questions": questions}
        )
    top = {k: translated[k] for k in ("title", "summary", "intro", "before_you_start", "closing")}
    return {"id": english["id"], **top, "sections": sections}


def assembled_worksheet_problems(
    english: Mapping[str, Any], assembled: Mapping[str, Any]
) -> list[Problem]:
    """The English schema's budgets on the assembled translation, at translation paths."""
    problems: list[Problem] = []
    for problem in validate_worksheet(assembled, file_stem=str(english["id"])):
        path = problem.path
        if len(path) >= 4 and path[0] == "sections" and path[2] == "questions":
            section, question = int(path[1]), int(path[3])
            qid = english["sections"][section]["questions"][question]["id"]
            path = ("questions", qid, *path[4:])
        problems.append(Problem(path, problem.message))
    return problems


# --- prompts ------------------------------------------------------------------------------


def prompt_parity(english: Mapping[str, Any], translated: object) -> list[Problem]:
    """A prompts translation: `prompts: {id: text}`, every English id once, no other."""
    if not isinstance(translated, Mapping) or not isinstance(translated.get("prompts"), Mapping):
        return [Problem((), "expected `prompts:` with prompt id: text pairs")]
    mine: Mapping[str, Any] = translated["prompts"]
    problems = [Problem((k,), f"extra key {k}") for k in translated if k != "prompts"]
    ids = [item["id"] for item in english["prompts"]]
    for index, pid in enumerate(ids):
        if pid not in mine:
            problems.append(Problem(("prompts",), f"missing prompt id {pid}"))
        else:
            _check_string(("prompts", pid), mine[pid], english["prompts"][index]["text"], problems)
    problems += [
        Problem(("prompts", pid), f"extra prompt id {pid} (not in English)")
        for pid in mine
        if pid not in ids
    ]
    if not problems:
        assembled = overlay_prompts(english, translated)
        for problem in validate_prompts(assembled):
            path = problem.path
            if len(path) >= 2 and path[0] == "prompts" and isinstance(path[1], int):
                path = ("prompts", ids[path[1]])
            problems.append(Problem(path, problem.message))
    return problems


def overlay_prompts(english: Mapping[str, Any], translated: Mapping[str, Any]) -> dict[str, Any]:
    texts = translated["prompts"]
    return {"prompts": [{**item, "text": texts[item["id"]]} for item in english["prompts"]]}


def language_problems(raw: object) -> list[Problem]:
    if not isinstance(raw, Mapping) or not isinstance(raw.get("enabled"), bool):
        return [Problem((), "expected `enabled: true` or `enabled: false`")]
    return [Problem((key,), f"unknown key {key!r}") for key in raw if key != "enabled"]


# --- what the bot uses --------------------------------------------------------------------


@dataclass(frozen=True)
class Locale:
    """One enabled language, complete: every text, worksheet and prompt in it."""

    code: str
    texts: Texts
    worksheets: Mapping[str, Worksheet]  # translations by id; empty for English (the source)
    prompts: Mapping[str, str]  # prompt id -> text
    book: Book  # the helplines, their hours and notes in this language


class Locales:
    """The enabled languages, English first; a code we do not serve falls back to English."""

    def __init__(self, locales: Mapping[str, Locale]) -> None:
        if ENGLISH not in locales:
            raise ValueError("English is the source language and must be present")
        self._locales = dict(locales)
        self.codes: tuple[str, ...] = (ENGLISH, *sorted(c for c in locales if c != ENGLISH))

    def __getitem__(self, code: str | None) -> Locale:
        return self._locales.get(code or ENGLISH) or self._locales[ENGLISH]

    def choices(self) -> list[tuple[str, str]]:
        """(code, own name) for every enabled language, English first."""
        return [(code, endonym(code)) for code in self.codes]

    def supported(self, code: str | None) -> str | None:
        """Our language for a Telegram `language_code`, or None when we do not serve it."""
        tag = primary_subtag(code)
        return tag if tag in self._locales else None

    def resolve(self, stored: str | None, telegram: str | None) -> str:
        """The stored choice; else Telegram's language if enabled; else English."""
        if stored in self._locales:
            return str(stored)
        return self.supported(telegram) or ENGLISH
