"""The decoy picker (pure) and its content's validation in `python -m bot content check`."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import pytest

from bot.content.decoys import MIN_ENTRIES, MORE_PER_DAY, Decoys, start_sequence
from bot.content.loader import check_content, content_dir
from tests.conftest import shared_content


@pytest.fixture(scope="module")
def decoys() -> Decoys:
    return shared_content().decoys


@pytest.fixture
def content_copy(tmp_path: Path) -> Path:
    target = tmp_path / "content"
    shutil.copytree(content_dir(), target, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    return target


def test_a_month_of_cover_messages_without_a_repeat(decoys: Decoys) -> None:
    for theme in decoys.theme_ids():
        for language in decoys.themes[theme]:
            start = start_sequence(date(2026, 12, 1))
            shown = [decoys.cover_message(theme, language, start + i) for i in range(MIN_ENTRIES)]
            assert len(set(shown)) == MIN_ENTRIES, (theme, language)
            entries = decoys.voice(theme, language).entries
            assert decoys.entry(theme, language, start + len(entries)) == decoys.entry(
                theme, language, start
            )


def test_cover_message_frames_the_entry(decoys: Decoys) -> None:
    text = decoys.cover_message("word", "de", 0)
    voice = decoys.voice("word", "de")
    assert text == voice.message.format(entry=voice.entries[0])
    assert text.startswith("Wort des Tages")


def test_same_day_same_start_for_everyone() -> None:
    assert start_sequence(date(2026, 12, 1)) == start_sequence(date(2026, 12, 1))
    assert start_sequence(date(2026, 12, 2)) == start_sequence(date(2026, 12, 1)) + 1


def test_replies_give_more_then_run_out_for_the_day(decoys: Decoys) -> None:
    sequence = start_sequence(date(2026, 12, 1))
    voice = decoys.voice("recipe", "en")
    seen = []
    for today in range(MORE_PER_DAY):
        reply = decoys.reply("recipe", "en", sequence, today)
        assert reply.shows_entry
        assert decoys.entry("recipe", "en", sequence + 1) in reply.text
        seen.append(reply.text)
        sequence += 1
    assert len(set(seen)) == MORE_PER_DAY
    done = decoys.reply("recipe", "en", sequence, MORE_PER_DAY)
    assert not done.shows_entry and done.text in voice.enough
    again = decoys.reply("recipe", "en", sequence, MORE_PER_DAY + 1)
    assert not again.shows_entry and again.text in voice.enough


def test_one_more_is_never_the_entry_just_shown(decoys: Decoys) -> None:
    """The cover message shows entry N; "Sure, one more:" used to show entry N again."""
    for theme in decoys.theme_ids():
        for language in decoys.themes[theme]:
            entries = decoys.voice(theme, language).entries
            start = start_sequence(date(2026, 12, 1))
            for sequence in range(start, start + len(entries) * 3):
                on_screen = decoys.entry(theme, language, sequence)
                assert on_screen in decoys.cover_message(theme, language, sequence)
                reply = decoys.reply(theme, language, sequence, 0)
                assert on_screen not in reply.text, (theme, language, sequence)


def test_unknown_theme_or_language_still_answers(decoys: Decoys) -> None:
    assert decoys.voice("quote", "sv") == decoys.voice("quote", "en")
    first = decoys.theme_ids()[0]
    assert decoys.voice("gone", "fr") == decoys.voice(first, "fr")
    assert decoys.cover_message("gone", "sv", 3)


def test_welcome_and_labels_are_in_each_language(decoys: Decoys) -> None:
    labels = {decoys.voice("word", lang).label for lang in decoys.themes["word"]}
    assert len(labels) == len(decoys.themes["word"])  # each language names it its own way


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_check_finds_a_missing_placeholder(content_copy: Path) -> None:
    theme = content_copy / "decoys" / "word.yaml"
    edit(theme, '- "Here\'s another word:\\n\\n{entry}"', '- "Here\'s another word"')
    problems = check_content(content_copy)
    assert any(p.startswith(f"{theme}:") and "{entry}" in p for p in problems), problems


def test_check_finds_a_missing_language_and_a_short_list(content_copy: Path) -> None:
    theme = content_copy / "decoys" / "quote.yaml"
    text = theme.read_text(encoding="utf-8")
    theme.write_text(text[: text.index("\npt:")] + "\n", encoding="utf-8")
    lines = theme.read_text(encoding="utf-8").splitlines()
    start = lines.index("es:")
    entries = lines.index("  entries:", start)
    del lines[entries + 1 : entries + 10]
    theme.write_text("\n".join(lines) + "\n", encoding="utf-8")
    problems = check_content(content_copy)
    assert any("missing language 'pt'" in p for p in problems), problems
    assert any("at least 30" in p for p in problems), problems


def test_check_finds_an_unknown_field_and_a_duplicate(content_copy: Path) -> None:
    theme = content_copy / "decoys" / "recipe.yaml"
    edit(theme, "  label: Receta del día", "  colour: red\n  label: Receta del día")
    lines = theme.read_text(encoding="utf-8").splitlines()
    gazpacho = next(line for line in lines if line.startswith('    - "Gazpacho'))
    edit(theme, '    - "Pisto', gazpacho + '\n    - "Pisto')
    problems = check_content(content_copy)
    assert any("colour" in p and "unknown field" in p for p in problems), problems
    assert any("duplicate entry" in p for p in problems), problems


def test_check_wants_at_least_one_theme(content_copy: Path) -> None:
    shutil.rmtree(content_copy / "decoys")
    problems = check_content(content_copy)
    assert any("no decoy themes" in p for p in problems), problems


def test_check_reads_a_bare_no_in_the_common_words(content_copy: Path) -> None:
    words = content_copy / "panic_words.yaml"
    edit(words, '"no", nope', "no, nope")
    problems = check_content(content_copy)
    assert any(p.startswith(f"{words}:") and "quote yes, no" in p for p in problems), problems
