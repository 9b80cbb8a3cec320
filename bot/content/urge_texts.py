"""The shape of ``content/texts/urge.yaml``: every key the urge flow, no-contact days and
/progress use, with its {placeholders}, checked by `python -m bot content check`.

A translation that drops a placeholder, misspells a key or forgets a lock-screen twin
fails the check with its file and line, not a person's chat in a hard moment.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from typing import Any

from bot.content.texts import Texts, Tx
from bot.content.urge_model import READING_KEYS, TRIGGERS
from bot.core.problems import Path, Problem

__all__ = [
    "FILE",
    "LOCK_SCREEN",
    "MIN_SURF_STEPS",
    "TEXT_KEYS",
    "lock_screen_text",
    "surf_steps",
    "trigger_buttons",
    "validate_urge_texts",
]

FILE = "texts/urge.yaml"  # under the content root

_NONE: frozenset[str] = frozenset()


def _keys(prefix: str, names: str, fields: frozenset[str] = _NONE) -> dict[str, frozenset[str]]:
    return {f"{prefix}.{name}": fields for name in names.split()}


# Every fixed key, with the placeholders its text must use (all of them, and no others).
TEXT_KEYS: dict[str, frozenset[str]] = {
    **_keys("urge", "label offer btn_start btn_not_now btn_never offers_off intro"),
    **_keys("urge", "btn_continue btn_offers_on offers_on"),
    **_keys("urge", "ask_strength ask_trigger ask_trigger_typed btn_skip"),
    **_keys("urge", "trigger_named"),
    **_keys("urge.trigger", " ".join(TRIGGERS)),
    **_keys("urge.surf", "btn_next btn_stop"),
    **_keys("urge.after", "ask btn_reasons btn_record btn_safe_person btn_again btn_done done"),
    **_keys("urge.after", "reasons_none safe_person_intro safe_person_none"),
    **_keys("reasons", "ask saved heading none btn_write btn_edit"),
    **_keys("urge.export", "title drafts reasons"),
    "urge.export.line": frozenset({"strength"}),
    "urge.export.line_after": frozenset({"strength", "after"}),
    "urge.export.trigger": frozenset({"trigger"}),
    **_keys("mood", "btn_low btn_high"),
    "mood.noted": frozenset({"rating"}),
    **_keys("urge.draft", "offer btn_write btn_no ask held offer_back offer_back_neutral"),
    **_keys("urge.draft", "btn_read btn_keep btn_delete kept deleted none"),
    "urge.draft.shown": frozenset({"date"}),
    **_keys("urge.followup", "promise ask", frozenset({"minutes"})),
    **_keys("urge.followup", "ask_neutral btn_not_now lower same higher expired"),
    "urge.followup.compare": frozenset({"before", "after"}),
    **_keys(
        "nocontact", "offer btn_start btn_pause btn_resume btn_reset btn_stop started not_running"
    ),
    **_keys("nocontact", "reset_confirm btn_reset_yes btn_reset_no reset stopped"),
    **_keys("nocontact", "btn_checkin_on btn_checkin_off checkin_on checkin_off btn_settings"),
    **_keys("nocontact", "running paused_status paused resumed checkin_line", frozenset({"day"})),
    **_keys("progress.reading", " ".join(READING_KEYS)),
    "progress.empty": _NONE,
    **_keys("progress.chart", "strength later average mood stretch"),
}

# Messages the bot sends on its own, which a notification preview may show to someone
# else: each has a `<key>_neutral` twin whose first line is `urge.label`.
LOCK_SCREEN: tuple[str, ...] = ("urge.followup.ask", "urge.draft.offer_back")

MIN_SURF_STEPS = 3
_STEP_PREFIX = "urge.surf."
_STEP_RE = re.compile(r"step([1-9][0-9]*)")
# A button or a chart label has to fit a phone's width.
_SHORT = 40


def validate_urge_texts(raw: object) -> list[Problem]:
    if not isinstance(raw, Mapping):
        return [Problem((), "expected a mapping of text keys")]
    flat: dict[str, tuple[Path, object]] = {}
    _flatten(raw, (), flat)
    problems: list[Problem] = []

    steps: list[int] = []
    for key, (path, value) in flat.items():
        step = (
            _STEP_RE.fullmatch(key[len(_STEP_PREFIX) :]) if key.startswith(_STEP_PREFIX) else None
        )
        if step:
            steps.append(int(step.group(1)))
            expected: frozenset[str] | None = _NONE
        else:
            expected = TEXT_KEYS.get(key)
        if expected is None:
            problems.append(Problem(path, f"unknown key {key!r} (a typo?)"))
            continue
        if not isinstance(value, str):
            continue  # validate_texts reports it
        try:
            found = {f for _, f, _, _ in string.Formatter().parse(value) if f is not None}
        except ValueError:
            continue  # validate_texts reports it
        if found != expected:
            want = ", ".join(f"{{{f}}}" for f in sorted(expected)) or "no placeholders"
            problems.append(Problem(path, f"{key} must use {want}"))
        last = key.rsplit(".", 1)[-1]
        short = last.startswith("btn_") or key.startswith("urge.trigger.")
        short = short or key.startswith("progress.chart.")
        if short and len(value) > _SHORT:
            problems.append(Problem(path, f"longer than {_SHORT} characters: keep it short"))

    for key in TEXT_KEYS:
        if key not in flat:
            problems.append(Problem(_deepest(raw, key), f"missing {key}"))
    steps.sort()
    if steps != list(range(1, len(steps) + 1)) or len(steps) < MIN_SURF_STEPS:
        problems.append(
            Problem(
                _deepest(raw, "urge.surf.step1"),
                f"surf steps need keys step1, step2, ... in order, at least {MIN_SURF_STEPS}",
            )
        )

    label = flat.get("urge.label", ((), None))[1]
    for key in LOCK_SCREEN:
        twin = flat.get(f"{key}_neutral")
        if twin is None or not isinstance(twin[1], str) or not isinstance(label, str):
            continue  # reported as missing above
        if twin[1].strip().splitlines()[0].strip() != label.strip():
            problems.append(Problem(twin[0], "a neutral message's first line is urge.label"))
    return problems


def _flatten(node: Mapping[Any, Any], path: Path, out: dict[str, tuple[Path, object]]) -> None:
    for key, value in node.items():
        here = (*path, key)
        if isinstance(value, Mapping):
            _flatten(value, here, out)
        else:
            out[".".join(str(p) for p in here)] = (here, value)


def _deepest(raw: Mapping[Any, Any], dotted: str) -> Path:
    """The path of the nearest existing parent, so a missing key points at its section."""
    path: Path = ()
    node: object = raw
    for part in dotted.split(".")[:-1]:
        if not isinstance(node, Mapping) or part not in node:
            break
        path = (*path, part)
        node = node[part]
    return path


def surf_steps(texts: Texts) -> tuple[str, ...]:
    """The urge-surfing steps in order, one message each."""
    steps: list[str] = []
    while texts.has(f"{_STEP_PREFIX}step{len(steps) + 1}"):
        steps.append(texts(f"{_STEP_PREFIX}step{len(steps) + 1}"))
    return tuple(steps)


def trigger_buttons(tx: Tx) -> tuple[tuple[str, str], ...]:
    """(trigger id, label) in the order offered; the id goes into callback data."""
    return tuple((trigger, tx(f"urge.trigger.{trigger}")) for trigger in TRIGGERS)


def lock_screen_text(tx: Tx, key: str, *, neutral: bool, **values: object) -> str:
    """A message the bot sends on its own: the neutral twin when the person chose neutral
    wording. The twin takes the same values and may ignore them."""
    if key not in LOCK_SCREEN:
        raise KeyError(f"{key} is not a lock-screen message")
    if not neutral:
        return tx(key, **values)
    twin = f"{key}_neutral"
    return tx(twin, **{k: v for k, v in values.items() if k in TEXT_KEYS[twin]})
