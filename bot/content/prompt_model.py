"""Daily prompts: the shape of ``content/prompts.yaml`` and the choice of the next prompt.

Pure: no I/O, no YAML. `bot.content` loads the file and turns each `Problem` path into a
file and line for the author.
"""

from __future__ import annotations

import random
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from bot.core.problems import Path, Problem

__all__ = [
    "MAX_TEXT_CHARS",
    "THEMES",
    "InvalidPromptsError",
    "Prompt",
    "choose_next_prompt",
    "current_cycle",
    "parse_prompts",
    "validate_prompts",
]

THEMES: tuple[str, ...] = (
    "grounding",  # the senses and the breath
    "body",  # the body, and a nervous system that stays on alert
    "identity",  # preferences and small choices of one's own
    "record",  # keeping an honest, gentle record of what happened
    "craving",  # riding out a wave of longing or an urge to make contact
    "compassion",  # self-compassion and grief
    "outside",  # reference points outside: trusted people, life before
)

# A prompt is read on a phone, often in a notification preview; far shorter than
# Telegram's limit on purpose, so it stays an invitation rather than an article.
MAX_TEXT_CHARS = 400

_ID_RE = re.compile(r"[a-z0-9_]{1,64}")
_TOP_KEYS = frozenset({"prompts"})
_PROMPT_KEYS = ("id", "theme", "text")


@dataclass(frozen=True)
class Prompt:
    id: str
    theme: str
    text: str


class InvalidPromptsError(ValueError):
    """Raised by `parse_prompts` on content that `validate_prompts` rejects."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(str(p) for p in self.problems))


def validate_prompts(raw: object) -> list[Problem]:
    """Every problem in a parsed ``prompts.yaml`` document; empty when it is usable."""
    if not isinstance(raw, Mapping):
        return [Problem((), "expected a mapping with a 'prompts' list")]
    problems = [
        Problem((str(key),), f"unknown key {key!r}; expected only 'prompts'")
        for key in raw
        if key not in _TOP_KEYS
    ]
    if "prompts" not in raw:
        problems.append(Problem((), "missing 'prompts'"))
        return problems
    items = raw["prompts"]
    if not isinstance(items, list):
        problems.append(Problem(("prompts",), "expected a list of prompts"))
        return problems
    if not items:
        # An empty catalogue would leave the daily job nothing to send.
        problems.append(Problem(("prompts",), "needs at least one prompt"))
    first_seen: dict[str, int] = {}
    for index, item in enumerate(items):
        problems.extend(_validate_item(index, item, first_seen))
    return problems


def _validate_item(index: int, item: object, first_seen: dict[str, int]) -> list[Problem]:
    path: Path = ("prompts", index)
    if not isinstance(item, Mapping):
        return [Problem(path, "expected a mapping with id, theme and text")]
    problems = [
        Problem((*path, str(key)), f"unknown key {key!r}; expected id, theme and text")
        for key in item
        if key not in _PROMPT_KEYS
    ]
    # A missing field has no line of its own, so it is reported on the prompt itself.
    problems.extend(
        Problem(path, f"missing field {key!r}") for key in _PROMPT_KEYS if key not in item
    )
    if "id" in item:
        problems.extend(_check_id((*path, "id"), item["id"], index, first_seen))
    if "theme" in item:
        theme = item["theme"]
        if not isinstance(theme, str):
            problems.append(Problem((*path, "theme"), "theme must be a string"))
        elif theme not in THEMES:
            problems.append(
                Problem((*path, "theme"), f"unknown theme {theme!r}; one of {', '.join(THEMES)}")
            )
    if "text" in item:
        problems.extend(_check_text((*path, "text"), item["text"]))
    return problems


def _check_id(where: Path, value: object, index: int, first_seen: dict[str, int]) -> list[Problem]:
    if not isinstance(value, str):
        return [Problem(where, "id must be a string")]
    if not _ID_RE.fullmatch(value):
        return [Problem(where, f"bad id {value!r}: use 1-64 of a-z, 0-9 and _")]
    if value in first_seen:
        # Deliveries are recorded by id, so two prompts sharing one would be confused forever.
        first = first_seen[value]
        return [Problem(where, f"duplicate id {value!r}; first used at prompts.{first}")]
    first_seen[value] = index
    return []


def _check_text(where: Path, value: object) -> list[Problem]:
    if not isinstance(value, str):
        return [Problem(where, "text must be a string")]
    text = value.strip()
    if not text:
        return [Problem(where, "text is empty")]
    if len(text) >= MAX_TEXT_CHARS:
        return [Problem(where, f"text is {len(text)} characters; keep it under {MAX_TEXT_CHARS}")]
    return []


def parse_prompts(raw: object) -> tuple[Prompt, ...]:
    """The prompts in file order; raises `InvalidPromptsError` if validation finds problems."""
    problems = validate_prompts(raw)
    if problems or not isinstance(raw, Mapping):
        raise InvalidPromptsError(problems)
    return tuple(
        Prompt(id=item["id"], theme=item["theme"], text=item["text"].strip())
        for item in raw["prompts"]
    )


def choose_next_prompt(
    prompts: Sequence[Prompt],
    already_sent: Collection[str],
    rng: random.Random,
    *,
    last_sent: str | None = None,
) -> Prompt:
    """Pick uniformly among the prompts whose ids are not in `already_sent`.

    When every prompt has been sent, the cycle starts over and any prompt may be picked,
    except `last_sent` if given (so the new cycle does not open by repeating yesterday's
    prompt; ignored when there is only one prompt). Ids in `already_sent` that no longer
    exist are ignored. The result depends only on the arguments and the state of `rng`.
    """
    if not prompts:
        raise ValueError("no prompts to choose from")
    fresh = [p for p in prompts if p.id not in already_sent]
    if not fresh:
        fresh = [p for p in prompts if p.id != last_sent] or list(prompts)
    return rng.choice(fresh)


def current_cycle(history: Iterable[str], prompts: Sequence[Prompt]) -> frozenset[str]:
    """The ids sent so far in the current cycle, from a person's delivery history.

    `history` is every prompt id delivered to the person, oldest first. A cycle closes once
    every current prompt has been sent; the next delivery opens a new one. Pass the result
    to `choose_next_prompt` as `already_sent`: passing the whole history instead would
    allow repeats for ever after the first full cycle. Retired ids are skipped, and a newly
    added prompt simply keeps the current cycle open until it has been sent.
    """
    known = {p.id for p in prompts}
    cycle: set[str] = set()
    for prompt_id in history:
        if prompt_id not in known:
            continue
        if cycle >= known:
            cycle = set()
        cycle.add(prompt_id)
    return frozenset(cycle)
