"""content/texts/urge.yaml: every key the flow uses, checked by `python -m bot content check`,
and the lock-screen twins that must say nothing telling."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.content.loader import check_content, content_dir
from bot.content.urge_model import FOLLOW_UP_DELAY, TRIGGERS
from bot.content.urge_texts import (
    FILE,
    LOCK_SCREEN,
    MIN_SURF_STEPS,
    TEXT_KEYS,
    lock_screen_text,
    surf_steps,
    trigger_buttons,
)
from tests.conftest import shared_content

# Words a watcher reading a notification preview must not see.
TELLING = ("urge", "contact", "message", "send", "sent", "him", "her", "them", "draft", "pull")


@pytest.fixture
def content_copy(tmp_path: Path) -> Path:
    target = tmp_path / "content"
    shutil.copytree(content_dir(), target, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    return target


def edit(root: Path, old: str, new: str) -> Path:
    file = root / FILE
    text = file.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    file.write_text(text.replace(old, new), encoding="utf-8")
    return file


def line_of(file: Path, needle: str) -> int:
    for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(needle)


def test_shipped_texts_have_every_key() -> None:
    tx = shared_content().texts
    assert all(tx.has(key) for key in TEXT_KEYS)


def test_triggers_are_offered_in_order_with_their_labels() -> None:
    buttons = trigger_buttons(shared_content().texts)
    assert [t for t, _ in buttons] == list(TRIGGERS)
    labels = dict(buttons)
    assert labels["message"] == "A message from them"
    assert labels["anniversary"] == "An anniversary"
    assert all(len(label.encode()) <= 64 for label in labels.values())


def test_surf_steps_come_one_at_a_time_in_order() -> None:
    tx = shared_content().texts
    steps = surf_steps(tx)
    assert len(steps) >= MIN_SURF_STEPS
    assert steps[0] == tx("urge.surf.step1")
    assert "wave" in steps[0].lower()
    assert any("breathe" in s.lower() for s in steps)
    assert any("body" in s.lower() for s in steps)


def test_follow_up_promise_carries_the_delay() -> None:
    tx = shared_content().texts
    minutes = int(FOLLOW_UP_DELAY.total_seconds() // 60)
    assert tx("urge.followup.promise", minutes=minutes) == "I'll check back in 20 minutes."
    assert tx("urge.followup.compare", before=8, after=3) == "Before: 8   Now: 3"


@pytest.mark.parametrize("key", LOCK_SCREEN)
def test_lock_screen_messages_have_a_neutral_twin_that_tells_nothing(key: str) -> None:
    tx = shared_content().texts
    neutral = lock_screen_text(tx, key, neutral=True, minutes=20)
    first_line = neutral.splitlines()[0]
    assert first_line == tx("urge.label") == "A hard moment"
    words = {w.strip(".,?!'").lower() for w in neutral.split()}
    assert not words & set(TELLING), words & set(TELLING)
    plain = lock_screen_text(tx, key, neutral=False, minutes=20)
    assert plain != neutral and "{" not in plain


def test_lock_screen_text_refuses_a_message_without_a_twin() -> None:
    with pytest.raises(KeyError):
        lock_screen_text(shared_content().texts, "urge.intro", neutral=True)


def test_missing_key_is_named_with_its_section_line(content_copy: Path) -> None:
    file = edit(content_copy, "    btn_keep: Keep it\n", "")
    problems = check_content(content_copy)
    # The line of the section's first key: where the missing one belongs.
    section = line_of(file, "    offer: Is there a message")
    assert f"{file}:{section}: missing urge.draft.btn_keep" in problems


def test_dropped_placeholder_is_caught(content_copy: Path) -> None:
    file = edit(
        content_copy,
        "promise: I'll check back in {minutes} minutes.",
        "promise: I'll check back soon.",
    )
    problems = check_content(content_copy)
    line = line_of(file, "check back soon")
    assert f"{file}:{line}: urge.followup.promise must use {{minutes}}" in problems


def test_unknown_key_is_a_typo(content_copy: Path) -> None:
    file = edit(content_copy, "    btn_read: Read it\n", "    btn_raed: Read it\n")
    problems = check_content(content_copy)
    assert any(p.startswith(f"{file}:{line_of(file, 'btn_raed')}: unknown key") for p in problems)
    assert any("missing urge.draft.btn_read" in p for p in problems)


def test_yaml_booleans_as_keys_are_caught(content_copy: Path) -> None:
    # `off:` is YAML for False: the key would silently vanish.
    edit(content_copy, "  not_running: There", "  off: There")
    problems = check_content(content_copy)
    assert any("missing nocontact.not_running" in p for p in problems)


def test_surf_steps_must_run_in_sequence(content_copy: Path) -> None:
    edit(content_copy, "    step3: Notice", "    step9: Notice")
    problems = check_content(content_copy)
    assert any("surf steps need keys step1, step2" in p for p in problems)


def test_neutral_twin_must_start_with_the_label(content_copy: Path) -> None:
    file = edit(
        content_copy,
        "      A hard moment\n\n      Checking in",
        "      Checking in\n\n      Checking in",
    )
    problems = check_content(content_copy)
    line = line_of(file, "ask_neutral:")
    assert f"{file}:{line}: a neutral message's first line is urge.label" in problems


def test_buttons_stay_short(content_copy: Path) -> None:
    edit(content_copy, "btn_next: Next", "btn_next: " + "Next " * 12)
    problems = check_content(content_copy)
    assert any("keep it short" in p for p in problems)
