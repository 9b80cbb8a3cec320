"""Worksheets: the typed model, and the checks that keep a hand-written YAML file safe to send.

Worksheet files are written by people, not generated, so `validate_worksheet` reports every
problem it can find in one pass (with a path into the document) instead of stopping at the
first. `parse_worksheet` then builds the frozen model the worksheet flow runs on. Nothing here
reads files: `bot.content` owns I/O and turns paths into file and line.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.core.problems import Path, Problem
from bot.core.telegram_text import MESSAGE_LIMIT, utf16_len

# Ids end up in deep links (t.me/<bot>?start=ws_<id>), whose payload Telegram caps at 64
# characters from [A-Za-z0-9_-], and in encryption slots (answer:<worksheet>:<question>), where
# a ":" would make the slot ambiguous. Lowercase, digits and "_" are safe in both places.
ID_PATTERN = re.compile(r"[a-z0-9_]+")
WORKSHEET_ID_MAX = 40
QUESTION_ID_MAX = 40

# Style limits from the schema, exclusive ("under 120 characters"): a summary is one line in a
# menu, and a question plus its hint should read as one short message on a phone.
SUMMARY_LIMIT = 120
QUESTION_TEXT_LIMIT = 300
HINT_LIMIT = 200

# How the flow joins the parts of one message. The bot also adds a line or two of its own
# (a heading mark, "Question 3 of 14"), so assembled messages keep this much room spare: a file
# that passes here must not fail later at send time.
MESSAGE_SEPARATOR = "\n\n"
MESSAGE_HEADROOM = 100

_TOP_REQUIRED = ("id", "title", "summary", "intro", "before_you_start", "sections", "closing")
_SECTION_REQUIRED = ("title", "framing", "questions")
_QUESTION_REQUIRED = ("id", "text")
# `sensitive: true`: an answer that would endanger the person if someone read the chat (a
# code word, where a bag is hidden): the question suggests keeping the detail elsewhere, and
# the answer leaves the chat once saved, discreet mode or not.
_QUESTION_OPTIONAL = ("hint", "sensitive")


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    hint: str | None
    sensitive: bool = False


@dataclass(frozen=True)
class Section:
    title: str
    framing: str
    questions: tuple[Question, ...]


@dataclass(frozen=True)
class Worksheet:
    id: str
    title: str
    summary: str
    intro: str
    before_you_start: str
    sections: tuple[Section, ...]
    closing: str

    @property
    def questions(self) -> tuple[Question, ...]:
        """Every question in the order the person meets them; positions index into this."""
        return tuple(q for section in self.sections for q in section.questions)

    @property
    def question_count(self) -> int:
        return sum(len(section.questions) for section in self.sections)

    def position_of(self, question_id: str) -> int:
        """The 0-based position of a question.

        Raises KeyError for an unknown id: a stored position can outlive a question that was
        removed from the content, and the caller has to decide what to do about that.
        """
        for index, question in enumerate(self.questions):
            if question.id == question_id:
                return index
        raise KeyError(question_id)

    def section_of(self, index: int) -> Section:
        """The section holding the question at `index` (a position from `position_of`)."""
        return self.sections[self._section_index(index)]

    def starts_section(self, index: int) -> bool:
        """Whether the question at `index` opens its section, so the flow sends the framing."""
        section_index = self._section_index(index)
        before = sum(len(s.questions) for s in self.sections[:section_index])
        return index == before

    def _section_index(self, index: int) -> int:
        # A negative position is a bug upstream; Python's wrap-around would hide it.
        if index < 0:
            raise IndexError(f"question position {index} is negative")
        remaining = index
        for section_index, section in enumerate(self.sections):
            if remaining < len(section.questions):
                return section_index
            remaining -= len(section.questions)
        raise IndexError(
            f"question position {index} is past the end of {self.id!r} "
            f"({self.question_count} questions)"
        )


def validate_worksheet(raw: object, *, file_stem: str) -> list[Problem]:
    """Every problem in one parsed worksheet document; an empty list means it is safe to parse.

    Paths point at the offending value, e.g. ``("sections", 1, "questions", 2, "text")``. A
    missing key has no value to point at, so its path is the mapping that should hold it.
    """
    if not isinstance(raw, Mapping):
        return [Problem((), f"a worksheet must be a mapping of keys, not {_kind(raw)}")]

    problems: list[Problem] = []
    _check_keys(raw, (), _TOP_REQUIRED, (), problems)

    worksheet_id = _text(raw, "id", (), problems)
    if worksheet_id is not None:
        _check_id(worksheet_id, ("id",), WORKSHEET_ID_MAX, problems)
        if worksheet_id != file_stem:
            problems.append(
                Problem(
                    ("id",),
                    f"id {worksheet_id!r} does not match the file name {file_stem!r}; "
                    "they must be the same",
                )
            )

    _text(raw, "title", (), problems)
    _text(raw, "summary", (), problems, limit=SUMMARY_LIMIT)
    intro = _text(raw, "intro", (), problems)
    before_you_start = _text(raw, "before_you_start", (), problems)
    _text(raw, "closing", (), problems)
    _check_assembled(
        ("intro",),
        "the opening message (intro and before_you_start)",
        [intro, before_you_start],
        problems,
    )

    if "sections" in raw:
        _check_sections(raw["sections"], problems)
    return problems


def validate_worksheet_ids(worksheets: Sequence[tuple[str, object]]) -> list[tuple[str, Problem]]:
    """Worksheet ids used by more than one file, as (file name, problem) pairs.

    Each file's own checks run separately; this only looks across files. The first file with
    an id keeps it, and every later one is reported, naming the first.
    """
    first_file: dict[str, str] = {}
    found: list[tuple[str, Problem]] = []
    for file_name, raw in worksheets:
        if not isinstance(raw, Mapping):
            continue
        worksheet_id = raw.get("id")
        if not isinstance(worksheet_id, str):
            continue
        if worksheet_id in first_file:
            found.append(
                (
                    file_name,
                    Problem(
                        ("id",),
                        f"worksheet id {worksheet_id!r} is already used by "
                        f"{first_file[worksheet_id]}; deep links and saved answers "
                        "need every id to be unique",
                    ),
                )
            )
        else:
            first_file[worksheet_id] = file_name
    return found


def parse_worksheet(raw: object) -> Worksheet:
    """Build the model from a document that `validate_worksheet` accepted.

    Texts are stripped: YAML block scalars end in a newline that is not part of the message.
    A document of the wrong shape raises ValueError, since reaching here with one means the
    caller skipped validation.
    """
    top = _as_mapping(raw, ())
    sections = tuple(
        _parse_section(section, ("sections", index))
        for index, section in enumerate(_as_list(top.get("sections"), ("sections",)))
    )
    return Worksheet(
        id=_as_text(top.get("id"), ("id",)),
        title=_as_text(top.get("title"), ("title",)),
        summary=_as_text(top.get("summary"), ("summary",)),
        intro=_as_text(top.get("intro"), ("intro",)),
        before_you_start=_as_text(top.get("before_you_start"), ("before_you_start",)),
        sections=sections,
        closing=_as_text(top.get("closing"), ("closing",)),
    )


# --- validation helpers -------------------------------------------------------------------


def _check_sections(value: object, problems: list[Problem]) -> None:
    if not isinstance(value, list):
        problems.append(Problem(("sections",), f"must be a list of sections, not {_kind(value)}"))
        return
    if not value:
        problems.append(Problem(("sections",), "needs at least one section"))
        return

    # Answers are stored under the question id, so an id used twice would let one answer
    # overwrite another.
    seen: dict[str, Path] = {}
    for section_index, section in enumerate(value):
        path: Path = ("sections", section_index)
        if not isinstance(section, Mapping):
            problems.append(Problem(path, f"a section must be a mapping, not {_kind(section)}"))
            continue
        _check_keys(section, path, _SECTION_REQUIRED, (), problems)
        title = _text(section, "title", path, problems)
        framing = _text(section, "framing", path, problems)
        if "questions" in section:
            first_parts = _check_questions(section["questions"], path, seen, problems)
            _check_assembled(
                path,
                "the section's opening message (title, framing and first question)",
                [title, framing, *first_parts],
                problems,
            )


def _check_questions(
    value: object, section_path: Path, seen: dict[str, Path], problems: list[Problem]
) -> list[str | None]:
    """Check a section's questions; return the first question's parts for the assembled check."""
    path: Path = (*section_path, "questions")
    if not isinstance(value, list):
        problems.append(Problem(path, f"must be a list of questions, not {_kind(value)}"))
        return [None]
    if not value:
        problems.append(Problem(path, "needs at least one question"))
        return [None]

    first_parts: list[str | None] = [None]
    for question_index, question in enumerate(value):
        question_path: Path = (*path, question_index)
        if not isinstance(question, Mapping):
            problems.append(
                Problem(question_path, f"a question must be a mapping, not {_kind(question)}")
            )
            continue
        _check_keys(question, question_path, _QUESTION_REQUIRED, _QUESTION_OPTIONAL, problems)

        question_id = _text(question, "id", question_path, problems)
        if question_id is not None:
            id_path: Path = (*question_path, "id")
            _check_id(question_id, id_path, QUESTION_ID_MAX, problems)
            if question_id in seen:
                where = ".".join(str(p) for p in seen[question_id])
                problems.append(
                    Problem(id_path, f"question id {question_id!r} is already used at {where}")
                )
            else:
                seen[question_id] = question_path

        text = _text(question, "text", question_path, problems, limit=QUESTION_TEXT_LIMIT)
        hint = _text(question, "hint", question_path, problems, limit=HINT_LIMIT)
        if "sensitive" in question and not isinstance(question["sensitive"], bool):
            problems.append(
                Problem((*question_path, "sensitive"), "must be true or false (unquoted)")
            )
        if question_index == 0:
            # The flow sends the hint with its question, so it counts towards the message.
            first_parts = [text] if "hint" not in question else [text, hint]
    return first_parts


def _check_keys(
    mapping: Mapping[object, object],
    path: Path,
    required: tuple[str, ...],
    optional: tuple[str, ...],
    problems: list[Problem],
) -> None:
    allowed = required + optional
    for key in mapping:
        if not isinstance(key, str):
            # YAML reads some bare words as other types (`yes:` is a boolean key).
            problems.append(Problem(path, f"key {key!r} must be text; quote it"))
        elif key not in allowed:
            close = difflib.get_close_matches(key, allowed, n=1)
            suggestion = f" (did you mean {close[0]!r}?)" if close else ""
            problems.append(
                Problem(
                    (*path, key),
                    f"unknown key {key!r}{suggestion}; allowed keys: {', '.join(allowed)}",
                )
            )
    for key in required:
        if key not in mapping:
            problems.append(Problem(path, f"missing required key {key!r}"))


def _text(
    mapping: Mapping[object, object],
    key: str,
    path: Path,
    problems: list[Problem],
    *,
    limit: int | None = None,
) -> str | None:
    """The stripped text at `key`, or None when it is absent or unusable (already reported)."""
    if key not in mapping:
        return None
    value = mapping[key]
    value_path: Path = (*path, key)
    if not isinstance(value, str):
        problems.append(Problem(value_path, f"must be text, not {_kind(value)}"))
        return None
    text = value.strip()
    if not text:
        problems.append(Problem(value_path, "must not be empty"))
        return None
    length = utf16_len(text)
    if length > MESSAGE_LIMIT:
        problems.append(
            Problem(
                value_path,
                f"is {length} characters; Telegram sends at most {MESSAGE_LIMIT} in one message",
            )
        )
    elif limit is not None and len(text) >= limit:
        problems.append(Problem(value_path, f"is {len(text)} characters; keep it under {limit}"))
    return text


def _check_id(value: str, path: Path, max_length: int, problems: list[Problem]) -> None:
    if not ID_PATTERN.fullmatch(value):
        problems.append(
            Problem(
                path,
                f"id {value!r} may use only lowercase letters a-z, digits and underscores",
            )
        )
    if len(value) > max_length:
        problems.append(
            Problem(path, f"id {value!r} is {len(value)} characters; the most is {max_length}")
        )


def _check_assembled(
    path: Path, what: str, parts: Sequence[str | None], problems: list[Problem]
) -> None:
    # Skip when a part is missing or already too long on its own: that is reported already,
    # and a second message about the same text would only add noise.
    present = [part for part in parts if part is not None]
    if len(present) != len(parts):
        return
    if any(utf16_len(part) > MESSAGE_LIMIT for part in present):
        return
    length = utf16_len(MESSAGE_SEPARATOR.join(present))
    budget = MESSAGE_LIMIT - MESSAGE_HEADROOM
    if length > budget:
        problems.append(
            Problem(
                path,
                f"{what} would be {length} characters; keep it to {budget} so it fits one "
                f"Telegram message ({MESSAGE_LIMIT}) with room for the bot's own lines",
            )
        )


def _kind(value: object) -> str:
    # Named in the author's terms, not Python's: they wrote YAML.
    if value is None:
        return "nothing (an empty value)"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


# --- parsing helpers ------------------------------------------------------------------------


def _parse_section(raw: object, path: Path) -> Section:
    section = _as_mapping(raw, path)
    questions = tuple(
        _parse_question(question, (*path, "questions", index))
        for index, question in enumerate(_as_list(section.get("questions"), (*path, "questions")))
    )
    return Section(
        title=_as_text(section.get("title"), (*path, "title")),
        framing=_as_text(section.get("framing"), (*path, "framing")),
        questions=questions,
    )


def _parse_question(raw: object, path: Path) -> Question:
    question = _as_mapping(raw, path)
    hint = question.get("hint")
    return Question(
        id=_as_text(question.get("id"), (*path, "id")),
        text=_as_text(question.get("text"), (*path, "text")),
        hint=None if hint is None else _as_text(hint, (*path, "hint")),
        sensitive=question.get("sensitive") is True,
    )


def _as_mapping(value: object, path: Path) -> Mapping[object, object]:
    if not isinstance(value, Mapping):
        raise _unvalidated(path, "a mapping")
    return value


def _as_list(value: object, path: Path) -> list[object]:
    if not isinstance(value, list):
        raise _unvalidated(path, "a list")
    return value


def _as_text(value: object, path: Path) -> str:
    if not isinstance(value, str):
        raise _unvalidated(path, "text")
    return value.strip()


def _unvalidated(path: Path, expected: str) -> ValueError:
    where = ".".join(str(p) for p in path) or "<top>"
    return ValueError(f"{where}: expected {expected}; run validate_worksheet before parsing")
