"""The worksheet files in content/worksheets, and the validator that guards them.

The first half checks the real content against the schema and the project's writing rules
(docs/architecture.md, /work/shared/reference/README.md). The second half feeds the validator
small broken documents and checks that each kind of problem is reported at the right path,
because `bot.content` turns that path into the file and line an author is sent to.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path as FilePath
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from bot.content.worksheet_model import (
    HINT_LIMIT,
    MESSAGE_HEADROOM,
    QUESTION_TEXT_LIMIT,
    SUMMARY_LIMIT,
    Question,
    Section,
    Worksheet,
    parse_worksheet,
    validate_worksheet,
    validate_worksheet_ids,
)
from bot.core.problems import Path, Problem
from bot.core.telegram_text import MESSAGE_LIMIT, utf16_len

WORKSHEETS_DIR = FilePath(__file__).resolve().parents[3] / "content" / "worksheets"
EXPECTED_IDS = {
    "untangling_the_bond",
    "breaking_the_bond",
    "bond_or_love",
    "why_leaving_is_hard",
    "safety_plan",
}
STEMS = sorted(p.stem for p in WORKSHEETS_DIR.glob("*.yaml"))


def _raw(stem: str) -> Any:
    return yaml.safe_load((WORKSHEETS_DIR / f"{stem}.yaml").read_text(encoding="utf-8"))


def _worksheet(stem: str) -> Worksheet:
    return parse_worksheet(_raw(stem))


def _all_texts(ws: Worksheet) -> list[str]:
    texts = [ws.title, ws.summary, ws.intro, ws.before_you_start, ws.closing]
    for section in ws.sections:
        texts += [section.title, section.framing]
        for question in section.questions:
            texts.append(question.text)
            if question.hint is not None:
                texts.append(question.hint)
    return texts


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


# --- the real content -----------------------------------------------------------------------


def test_folder_holds_only_worksheet_files() -> None:
    # package-data ships only worksheets/*.yaml, so a .yml file would vanish from the image.
    stray = [p.name for p in WORKSHEETS_DIR.iterdir() if p.suffix != ".yaml"]
    assert stray == []


def test_exactly_the_five_worksheets_exist() -> None:
    assert set(STEMS) == EXPECTED_IDS
    assert {_worksheet(stem).id for stem in STEMS} == EXPECTED_IDS


@pytest.mark.parametrize("stem", STEMS)
def test_worksheet_validates_cleanly(stem: str) -> None:
    problems = validate_worksheet(_raw(stem), file_stem=stem)
    assert problems == [], "\n".join(str(p) for p in problems)


def test_no_worksheet_id_is_shared_across_files() -> None:
    assert validate_worksheet_ids([(f"{stem}.yaml", _raw(stem)) for stem in STEMS]) == []


@pytest.mark.parametrize("stem", STEMS)
def test_worksheet_parses(stem: str) -> None:
    ws = _worksheet(stem)
    assert ws.id == stem
    assert len(ws.questions) == ws.question_count
    assert all(text == text.strip() for text in _all_texts(ws))


@pytest.mark.parametrize("stem", STEMS)
def test_question_count_is_between_12_and_20(stem: str) -> None:
    assert 12 <= _worksheet(stem).question_count <= 20


@pytest.mark.parametrize("stem", STEMS)
def test_deep_link_payload_fits_telegram(stem: str) -> None:
    # t.me/<bot>?start=<payload>: at most 64 characters from [A-Za-z0-9_-].
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", f"ws_{stem}")


@pytest.mark.parametrize("stem", STEMS)
def test_every_text_is_under_1000_characters(stem: str) -> None:
    assert [t for t in _all_texts(_worksheet(stem)) if len(t) >= 1000] == []


@pytest.mark.parametrize("stem", STEMS)
def test_intro_and_framings_stay_short(stem: str) -> None:
    ws = _worksheet(stem)
    assert 2 <= len(_sentences(ws.intro)) <= 5
    for section in ws.sections:
        assert 1 <= len(_sentences(section.framing)) <= 3, section.title


@pytest.mark.parametrize("stem", STEMS)
def test_quotes_are_straight_ascii(stem: str) -> None:
    # One style throughout; straight quotes are what authors type without thinking.
    assert re.findall(r"[\u2018\u2019\u201c\u201d]", " ".join(_all_texts(_worksheet(stem)))) == []


@pytest.mark.parametrize("stem", STEMS)
def test_no_phone_numbers_in_worksheets(stem: str) -> None:
    # Numbers live in helplines.yaml, with a source and a checked date; a copy here would rot.
    assert re.findall(r"\d{3,}", " ".join(_all_texts(_worksheet(stem)))) == []


@pytest.mark.parametrize("stem", STEMS)
def test_no_labels_for_anyone(stem: str) -> None:
    # The bot never tells someone what their partner "is": it asks about their own experience.
    text = " ".join(_all_texts(_worksheet(stem))).lower()
    labels = ["narcissis", "psychopath", "sociopath", "abuser", "toxic", "crazy", "disorder"]
    assert [label for label in labels if label in text] == []


@pytest.mark.parametrize("stem", STEMS)
def test_before_you_start_covers_control_and_privacy(stem: str) -> None:
    text = _worksheet(stem).before_you_start
    for needed in ("Pause", "/resume", "skip", "encrypted", '"help"', "private"):
        assert needed in text, needed


@pytest.mark.parametrize("stem", STEMS)
def test_closing_points_to_support(stem: str) -> None:
    assert '"help"' in _worksheet(stem).closing


def test_safety_plan_points_to_services_and_guards_itself() -> None:
    ws = _worksheet("safety_plan")
    everything = " ".join(_all_texts(ws)).lower()
    assert 'type "help" to see the domestic-abuse line for your country' in everything
    assert "advocate" in everything
    assert "who might see" in everything
    assert any(section.title == "Keeping the plan safe" for section in ws.sections)


# --- model helpers --------------------------------------------------------------------------


def _sample() -> dict[str, Any]:
    return {
        "id": "sample",
        "title": "Sample",
        "summary": "A sample worksheet.",
        "intro": "Hello there.\n",
        "before_you_start": "Take breaks.\n",
        "sections": [
            {
                "title": "One",
                "framing": "First part.\n",
                "questions": [
                    {"id": "a", "text": "Question a?", "hint": "A hint."},
                    {"id": "b", "text": "Question b?"},
                ],
            },
            {
                "title": "Two",
                "framing": "Second part.",
                "questions": [{"id": "c", "text": "Question c?"}],
            },
        ],
        "closing": "Goodbye.\n",
    }


def test_parse_builds_the_model_with_stripped_texts() -> None:
    ws = parse_worksheet(_sample())
    assert ws == Worksheet(
        id="sample",
        title="Sample",
        summary="A sample worksheet.",
        intro="Hello there.",
        before_you_start="Take breaks.",
        sections=(
            Section(
                title="One",
                framing="First part.",
                questions=(
                    Question(id="a", text="Question a?", hint="A hint."),
                    Question(id="b", text="Question b?", hint=None),
                ),
            ),
            Section(
                title="Two",
                framing="Second part.",
                questions=(Question(id="c", text="Question c?", hint=None),),
            ),
        ),
        closing="Goodbye.",
    )


def test_positions_and_sections() -> None:
    ws = parse_worksheet(_sample())
    assert [q.id for q in ws.questions] == ["a", "b", "c"]
    assert ws.question_count == 3
    assert [ws.position_of(q) for q in ("a", "b", "c")] == [0, 1, 2]
    assert [ws.section_of(i).title for i in range(3)] == ["One", "One", "Two"]
    assert [ws.starts_section(i) for i in range(3)] == [True, False, True]


def test_position_of_unknown_question_raises() -> None:
    with pytest.raises(KeyError):
        parse_worksheet(_sample()).position_of("gone")


@pytest.mark.parametrize("index", [-1, 3])
def test_section_of_out_of_range_raises(index: int) -> None:
    with pytest.raises(IndexError):
        parse_worksheet(_sample()).section_of(index)


def test_parse_rejects_an_unvalidated_document() -> None:
    raw = _sample()
    raw["sections"] = "not a list"
    with pytest.raises(ValueError, match="sections"):
        parse_worksheet(raw)


def test_utf16_len_counts_utf16_units() -> None:
    assert utf16_len("abc") == 3
    assert utf16_len("\U0001f600") == 2


# --- each kind of problem, at its path ------------------------------------------------------


def _problems(raw: object, file_stem: str = "sample") -> list[Problem]:
    return validate_worksheet(raw, file_stem=file_stem)


def _paths(problems: list[Problem]) -> list[Path]:
    return [p.path for p in problems]


def _set(raw: dict[str, Any], path: Path, value: object) -> None:
    target: Any = raw
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value


def test_sample_is_valid() -> None:
    assert _problems(_sample()) == []


def test_a_document_that_is_not_a_mapping() -> None:
    assert _paths(_problems(["id", "sample"])) == [()]
    assert _paths(_problems(None)) == [()]


@pytest.mark.parametrize(
    "key", ["id", "title", "summary", "intro", "before_you_start", "sections", "closing"]
)
def test_missing_top_level_key(key: str) -> None:
    raw = _sample()
    del raw[key]
    problems = _problems(raw)
    assert _paths(problems) == [()]
    assert repr(key) in problems[0].message


def test_missing_section_key_points_at_the_section() -> None:
    raw = _sample()
    del raw["sections"][1]["framing"]
    problems = _problems(raw)
    assert _paths(problems) == [("sections", 1)]
    assert "'framing'" in problems[0].message


def test_missing_question_key_points_at_the_question() -> None:
    raw = _sample()
    del raw["sections"][0]["questions"][1]["text"]
    problems = _problems(raw)
    assert _paths(problems) == [("sections", 0, "questions", 1)]
    assert "'text'" in problems[0].message


def test_unknown_top_level_key_is_named() -> None:
    raw = _sample()
    raw["notes"] = "for authors"
    problems = _problems(raw)
    assert _paths(problems) == [("notes",)]
    assert "'notes'" in problems[0].message


def test_unknown_question_key_is_named_with_a_suggestion() -> None:
    raw = _sample()
    raw["sections"][0]["questions"][1]["hnit"] = "typo"
    problems = _problems(raw)
    assert _paths(problems) == [("sections", 0, "questions", 1, "hnit")]
    assert "'hnit'" in problems[0].message
    assert "did you mean 'hint'" in problems[0].message


def test_key_that_yaml_read_as_a_boolean() -> None:
    raw: dict[Any, Any] = _sample()
    raw[True] = "from a bare `yes:`"
    assert _paths(_problems(raw)) == [()]


def test_duplicate_question_id_across_sections() -> None:
    raw = _sample()
    raw["sections"][1]["questions"][0]["id"] = "a"
    problems = _problems(raw)
    assert _paths(problems) == [("sections", 1, "questions", 0, "id")]
    assert "sections.0.questions.0" in problems[0].message


def test_duplicate_question_id_within_a_section() -> None:
    raw = _sample()
    raw["sections"][0]["questions"][1]["id"] = "a"
    assert _paths(_problems(raw)) == [("sections", 0, "questions", 1, "id")]


@pytest.mark.parametrize("bad", ["Sample", "sam-ple", "sam ple", "ws:sample", "a" * 41])
def test_bad_worksheet_id(bad: str) -> None:
    raw = _sample()
    raw["id"] = bad
    # The file name matches, so only the id's own format is at fault.
    assert _paths(_problems(raw, file_stem=bad)) == [("id",)]


@pytest.mark.parametrize("bad", ["Q1", "q-1", "q:1", "b" * 41])
def test_bad_question_id(bad: str) -> None:
    raw = _sample()
    raw["sections"][0]["questions"][0]["id"] = bad
    assert _paths(_problems(raw)) == [("sections", 0, "questions", 0, "id")]


def test_id_must_match_the_file_name() -> None:
    problems = _problems(_sample(), file_stem="other_name")
    assert _paths(problems) == [("id",)]
    assert "'sample'" in problems[0].message
    assert "'other_name'" in problems[0].message


@pytest.mark.parametrize(
    "path",
    [
        ("title",),
        ("intro",),
        ("before_you_start",),
        ("closing",),
        ("sections", 1, "title"),
        ("sections", 1, "framing"),
        ("sections", 0, "questions", 1, "text"),
        ("sections", 0, "questions", 0, "hint"),
    ],
)
def test_text_over_the_telegram_limit(path: Path) -> None:
    raw = _sample()
    _set(raw, path, "x" * (MESSAGE_LIMIT + 1))
    problems = _problems(raw)
    # One problem, not a second one for the assembled message that holds the same text.
    assert _paths(problems) == [path]
    assert str(MESSAGE_LIMIT) in problems[0].message


def test_telegram_limit_is_inclusive_and_counted_in_utf16() -> None:
    raw = _sample()
    raw["closing"] = "x" * MESSAGE_LIMIT
    assert _problems(raw) == []
    raw["closing"] = "\U0001f600" * (MESSAGE_LIMIT // 2 + 1)
    assert _paths(_problems(raw)) == [("closing",)]


def test_opening_message_must_fit_together() -> None:
    raw = _sample()
    half = (MESSAGE_LIMIT - MESSAGE_HEADROOM - len("\n\n")) // 2
    raw["intro"] = "x" * half
    raw["before_you_start"] = "y" * half
    assert _problems(raw) == []
    raw["before_you_start"] = "y" * (half + 10)
    problems = _problems(raw)
    assert _paths(problems) == [("intro",)]
    assert "before_you_start" in problems[0].message


def test_section_opening_message_counts_the_first_question_and_hint() -> None:
    raw = _sample()
    section = raw["sections"][0]
    first = section["questions"][0]
    budget = MESSAGE_LIMIT - MESSAGE_HEADROOM
    fixed = len(section["title"]) + len(first["text"]) + len(first["hint"]) + 3 * len("\n\n")
    section["framing"] = "x" * (budget - fixed)
    assert _problems(raw) == []
    first["hint"] += "!"
    assert _paths(_problems(raw)) == [("sections", 0)]


@pytest.mark.parametrize(
    ("path", "limit"),
    [
        (("summary",), SUMMARY_LIMIT),
        (("sections", 0, "questions", 0, "text"), QUESTION_TEXT_LIMIT),
        (("sections", 0, "questions", 0, "hint"), HINT_LIMIT),
    ],
)
def test_schema_style_limits(path: Path, limit: int) -> None:
    raw = _sample()
    _set(raw, path, "x" * (limit - 1))
    assert _problems(raw) == []
    _set(raw, path, "x" * limit)
    assert _paths(_problems(raw)) == [path]


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("title",), 2024),
        (("summary",), True),
        (("intro",), None),
        (("closing",), ["a", "b"]),
        (("sections", 0, "questions", 0, "hint"), None),
        (("sections", 1, "questions", 0, "id"), 7),
    ],
)
def test_wrong_types(path: Path, value: object) -> None:
    raw = _sample()
    _set(raw, path, value)
    problems = _problems(raw)
    assert _paths(problems) == [path]
    assert "must be text" in problems[0].message


@pytest.mark.parametrize(
    "path", [("intro",), ("sections", 0, "title"), ("sections", 0, "questions", 1, "text")]
)
def test_empty_text(path: Path) -> None:
    raw = _sample()
    _set(raw, path, "  \n")
    problems = _problems(raw)
    assert _paths(problems) == [path]
    assert "empty" in problems[0].message


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("sections",), "one section"),
        (("sections",), []),
        (("sections", 1), "not a section"),
        (("sections", 1, "questions"), {"id": "c"}),
        (("sections", 1, "questions"), []),
        (("sections", 1, "questions", 0), "not a question"),
    ],
)
def test_wrong_structure(path: Path, value: object) -> None:
    raw = _sample()
    _set(raw, path, value)
    assert _paths(_problems(raw)) == [path]


def test_every_problem_is_reported_in_one_pass() -> None:
    raw = _sample()
    raw["id"] = "Bad-Id"
    raw["extra"] = 1
    del raw["closing"]
    raw["sections"][1]["questions"][0]["id"] = "a"
    assert sorted(map(str, _paths(_problems(raw)))) == sorted(
        map(str, [("id",), ("id",), ("extra",), (), ("sections", 1, "questions", 0, "id")])
    )


def test_duplicate_worksheet_id_across_files() -> None:
    found = validate_worksheet_ids(
        [
            ("first.yaml", {"id": "shared"}),
            ("other.yaml", {"id": "other"}),
            ("second.yaml", {"id": "shared"}),
            ("broken.yaml", "not a mapping"),
            ("no_id.yaml", {"title": "No id"}),
        ]
    )
    assert [(name, problem.path) for name, problem in found] == [("second.yaml", ("id",))]
    assert "first.yaml" in found[0][1].message


# --- robustness -----------------------------------------------------------------------------

# Real key names, so generated documents get past the key checks and reach the deeper ones.
_KEYS = st.sampled_from(
    [
        *("id", "title", "summary", "intro", "before_you_start", "sections", "closing"),
        *("framing", "questions", "text", "hint"),
    ]
)
_YAML_LIKE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(_KEYS | st.text(max_size=4), children, max_size=4)
    ),
    max_leaves=12,
)


@given(_YAML_LIKE)
def test_validator_never_raises_on_arbitrary_documents(raw: object) -> None:
    problems = validate_worksheet(raw, file_stem="sample")
    if not problems:
        parse_worksheet(raw)


@given(st.sampled_from(["id", "title", "intro", "sections", "closing"]), _YAML_LIKE)
def test_a_clean_report_always_means_parse_succeeds(key: str, value: object) -> None:
    raw = copy.deepcopy(_sample())
    raw[key] = value
    if not validate_worksheet(raw, file_stem="sample"):
        parse_worksheet(raw)
