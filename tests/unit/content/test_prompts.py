"""The daily prompt catalogue (content/prompts.yaml) and the choice of the next prompt."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.content.prompt_model import (
    MAX_TEXT_CHARS,
    THEMES,
    InvalidPromptsError,
    Prompt,
    choose_next_prompt,
    current_cycle,
    parse_prompts,
    validate_prompts,
)
from bot.core.problems import Problem

PROMPTS_FILE = Path(__file__).resolve().parents[3] / "content" / "prompts.yaml"


@pytest.fixture(scope="module")
def raw_file() -> Any:
    return yaml.safe_load(PROMPTS_FILE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def catalogue(raw_file: Any) -> tuple[Prompt, ...]:
    return parse_prompts(raw_file)


# -- The real file -------------------------------------------------------------------------


def test_real_file_validates_cleanly(raw_file: Any) -> None:
    assert validate_prompts(raw_file) == []


def test_real_file_has_enough_prompts(catalogue: tuple[Prompt, ...]) -> None:
    assert len(catalogue) >= 60


def test_real_file_covers_every_theme(catalogue: tuple[Prompt, ...]) -> None:
    counts = Counter(p.theme for p in catalogue)
    assert set(counts) == set(THEMES)
    assert all(counts[theme] >= 8 for theme in THEMES), counts


def test_real_file_texts_are_short(catalogue: tuple[Prompt, ...]) -> None:
    assert all(0 < len(p.text) < MAX_TEXT_CHARS for p in catalogue)


def test_real_file_ids_are_unique_and_carry_their_theme(catalogue: tuple[Prompt, ...]) -> None:
    ids = [p.id for p in catalogue]
    assert len(ids) == len(set(ids))
    # A convention, not a rule of the format: it keeps the file easy to scan.
    assert all(p.id.startswith(f"{p.theme}_") for p in catalogue)


def test_real_file_texts_are_single_paragraphs(catalogue: tuple[Prompt, ...]) -> None:
    # Folded YAML blocks must not leave stray line breaks in what the person reads.
    assert all("\n" not in p.text for p in catalogue)


# -- validate_prompts: each kind of problem, with its path ---------------------------------


def _good(**overrides: object) -> dict[str, object]:
    item: dict[str, object] = {"id": "grounding_01", "theme": "grounding", "text": "Breathe."}
    item.update(overrides)
    return item


def _doc(*items: object) -> dict[str, object]:
    return {"prompts": list(items)}


def test_minimal_document_is_valid() -> None:
    assert validate_prompts(_doc(_good())) == []
    assert parse_prompts(_doc(_good())) == (Prompt("grounding_01", "grounding", "Breathe."),)


@pytest.mark.parametrize(
    ("raw", "path", "fragment"),
    [
        (None, (), "mapping"),
        (["x"], (), "mapping"),
        ({}, (), "missing 'prompts'"),
        ({"prompts": {}}, ("prompts",), "list"),
        ({"prompts": []}, ("prompts",), "at least one"),
        ({"prompts": [_good()], "extra": 1}, ("extra",), "unknown key"),
        (_doc("text"), ("prompts", 0), "mapping"),
        (_doc(_good(colour="blue")), ("prompts", 0, "colour"), "unknown key"),
        (_doc({"theme": "grounding", "text": "x"}), ("prompts", 0), "missing field 'id'"),
        (_doc({"id": "a", "text": "x"}), ("prompts", 0), "missing field 'theme'"),
        (_doc({"id": "a", "theme": "body"}), ("prompts", 0), "missing field 'text'"),
        (_doc(_good(id="Grounding-1")), ("prompts", 0, "id"), "bad id"),
        (_doc(_good(id="")), ("prompts", 0, "id"), "bad id"),
        (_doc(_good(id="a" * 65)), ("prompts", 0, "id"), "bad id"),
        (_doc(_good(id=7)), ("prompts", 0, "id"), "string"),
        (_doc(_good(theme="sleep")), ("prompts", 0, "theme"), "unknown theme"),
        (_doc(_good(theme=None)), ("prompts", 0, "theme"), "string"),
        (_doc(_good(text="")), ("prompts", 0, "text"), "empty"),
        (_doc(_good(text="  \n ")), ("prompts", 0, "text"), "empty"),
        (_doc(_good(text=None)), ("prompts", 0, "text"), "string"),
        (_doc(_good(text="x" * MAX_TEXT_CHARS)), ("prompts", 0, "text"), "characters"),
    ],
)
def test_each_problem_is_reported_at_its_path(
    raw: object, path: tuple[object], fragment: str
) -> None:
    problems = validate_prompts(raw)
    assert len(problems) == 1, problems
    assert problems[0].path == path
    assert fragment in problems[0].message


def test_duplicate_id_is_reported_on_the_later_entry() -> None:
    raw = _doc(_good(), _good(id="body_01", theme="body"), _good(text="Again."))
    assert validate_prompts(raw) == [
        Problem(("prompts", 2, "id"), "duplicate id 'grounding_01'; first used at prompts.0")
    ]


def test_text_length_boundary() -> None:
    assert validate_prompts(_doc(_good(text="x" * (MAX_TEXT_CHARS - 1)))) == []
    # Surrounding whitespace (a YAML block's final newline) is not counted: it is not sent.
    assert validate_prompts(_doc(_good(text="x" * (MAX_TEXT_CHARS - 1) + "\n"))) == []
    assert validate_prompts(_doc(_good(text="x" * MAX_TEXT_CHARS))) != []


def test_problems_in_several_prompts_are_all_reported() -> None:
    raw = _doc(_good(theme="sleep"), _good(id="body_01", theme="body", text=""), "oops")
    paths = [p.path for p in validate_prompts(raw)]
    assert paths == [("prompts", 0, "theme"), ("prompts", 1, "text"), ("prompts", 2)]


def test_parse_refuses_invalid_content_and_strips_text() -> None:
    with pytest.raises(InvalidPromptsError) as caught:
        parse_prompts(_doc(_good(theme="sleep")))
    assert [p.path for p in caught.value.problems] == [("prompts", 0, "theme")]
    assert parse_prompts(_doc(_good(text="  Breathe.\n")))[0].text == "Breathe."


# -- choose_next_prompt --------------------------------------------------------------------


def _sample(n: int) -> list[Prompt]:
    return [Prompt(f"p_{i:02d}", THEMES[i % len(THEMES)], f"Prompt {i}.") for i in range(n)]


def test_full_cycle_has_no_repeats_then_starts_over() -> None:
    prompts = _sample(25)
    rng = random.Random(20260329)
    sent: set[str] = set()
    order = []
    for _ in range(len(prompts)):
        chosen = choose_next_prompt(prompts, sent, rng)
        assert chosen.id not in sent
        sent.add(chosen.id)
        order.append(chosen.id)
    assert sent == {p.id for p in prompts}
    # Every prompt has been sent: the next pick may be any of them, and a new cycle begins.
    restart = choose_next_prompt(prompts, sent, rng)
    assert restart in prompts
    second_cycle = {restart.id}
    for _ in range(len(prompts) - 1):
        chosen = choose_next_prompt(prompts, second_cycle, rng)
        assert chosen.id not in second_cycle
        second_cycle.add(chosen.id)
    assert second_cycle == sent
    assert len(set(order)) == len(prompts)


def test_full_cycle_over_the_real_catalogue(catalogue: tuple[Prompt, ...]) -> None:
    rng = random.Random(7)
    history: list[str] = []
    for _ in range(len(catalogue) * 3):
        chosen = choose_next_prompt(catalogue, current_cycle(history, catalogue), rng)
        history.append(chosen.id)
    n = len(catalogue)
    for start in range(0, 3 * n, n):
        assert sorted(history[start : start + n]) == sorted(p.id for p in catalogue)


def test_choice_is_uniform_among_unsent() -> None:
    prompts = _sample(4)
    rng = random.Random(1)
    counts = Counter(choose_next_prompt(prompts, {"p_00"}, rng).id for _ in range(3000))
    assert set(counts) == {"p_01", "p_02", "p_03"}
    assert all(900 < c < 1100 for c in counts.values()), counts


def test_choice_is_deterministic_for_a_seed() -> None:
    prompts = _sample(30)

    def run(seed: int) -> list[str]:
        rng = random.Random(seed)
        history: list[str] = []
        for _ in range(45):
            history.append(choose_next_prompt(prompts, current_cycle(history, prompts), rng).id)
        return history

    assert run(42) == run(42)
    assert run(42) != run(43)


def test_unknown_sent_ids_are_ignored() -> None:
    prompts = _sample(2)
    chosen = choose_next_prompt(prompts, {"retired_01", "p_00"}, random.Random(0))
    assert chosen.id == "p_01"


def test_restart_avoids_last_sent_when_asked() -> None:
    prompts = _sample(3)
    all_ids = {p.id for p in prompts}
    picks = {
        choose_next_prompt(prompts, all_ids, random.Random(seed), last_sent="p_01").id
        for seed in range(200)
    }
    assert picks == {"p_00", "p_02"}
    # With a single prompt there is nothing else to send.
    only = _sample(1)
    assert choose_next_prompt(only, {"p_00"}, random.Random(0), last_sent="p_00").id == "p_00"
    # Mid-cycle, last_sent changes nothing: it is already in already_sent.
    assert choose_next_prompt(prompts, {"p_00", "p_01"}, random.Random(0), last_sent="p_01").id == (
        "p_02"
    )


def test_no_prompts_is_an_error() -> None:
    with pytest.raises(ValueError, match="no prompts"):
        choose_next_prompt([], set(), random.Random(0))


# -- current_cycle -------------------------------------------------------------------------


def test_current_cycle_from_history() -> None:
    prompts = _sample(3)
    assert current_cycle([], prompts) == frozenset()
    assert current_cycle(["p_00", "p_02"], prompts) == {"p_00", "p_02"}
    assert current_cycle(["p_00", "p_01", "p_02"], prompts) == {"p_00", "p_01", "p_02"}
    # The fourth delivery opens a new cycle, even though it repeats an earlier prompt.
    assert current_cycle(["p_00", "p_01", "p_02", "p_01"], prompts) == {"p_01"}
    assert current_cycle(["p_00", "p_01", "p_02", "p_01", "p_00"], prompts) == {"p_00", "p_01"}


def test_current_cycle_ignores_retired_and_waits_for_new_prompts() -> None:
    prompts = _sample(3)
    assert current_cycle(["old_01", "p_00", "old_02"], prompts) == {"p_00"}
    # p_02 was added after p_00 and p_01 had been sent: the cycle stays open until it is.
    assert current_cycle(["p_00", "p_01", "p_00"], prompts) == {"p_00", "p_01"}
