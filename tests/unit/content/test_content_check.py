"""`python -m bot content check` names the file and line of each kind of broken content."""

from __future__ import annotations

import base64
import datetime
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bot.content.loader import check_all, check_content, content_dir, load_content
from tests.helpers.bot import START_SECONDS

SHEET = "worksheets/bond_or_love.yaml"


@pytest.fixture
def content_copy(tmp_path: Path) -> Path:
    target = tmp_path / "content"
    shutil.copytree(content_dir(), target, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    return target


def line_of(path: Path, needle: str) -> int:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


def replace_once(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_shipped_content_is_clean() -> None:
    assert check_content() == []
    content = load_content()
    assert len(content.worksheets) >= 5 and len(content.prompts) >= 60


def test_missing_field_names_file_and_line(content_copy: Path) -> None:
    sheet = content_copy / SHEET
    target = line_of(sheet, "summary:")
    lines = sheet.read_text(encoding="utf-8").splitlines()
    del lines[target - 1]
    sheet.write_text("\n".join(lines) + "\n", encoding="utf-8")
    problems = check_content(content_copy)
    assert any(p.startswith(f"{sheet}:") and "summary" in p for p in problems), problems


def test_unknown_key_names_its_line(content_copy: Path) -> None:
    sheet = content_copy / SHEET
    replace_once(sheet, "title:", "colour: blue\ntitle:")
    problems = check_content(content_copy)
    expected = f"{sheet}:{line_of(sheet, 'colour: blue')}:"
    assert any(p.startswith(expected) and "colour" in p for p in problems), problems


def test_duplicate_question_id(content_copy: Path) -> None:
    sheet = content_copy / SHEET
    text = sheet.read_text(encoding="utf-8")
    ids = [line.split("id:")[1].strip() for line in text.splitlines() if "- id:" in line]
    replace_once(sheet, f"- id: {ids[1]}", f"- id: {ids[0]}")
    problems = check_content(content_copy)
    assert any(p.startswith(f"{sheet}:") and "duplicate" in p.lower() for p in problems), problems


def test_duplicate_worksheet_id_across_files(content_copy: Path) -> None:
    copy = content_copy / "worksheets" / "copy_of_bond.yaml"
    shutil.copy(content_copy / SHEET, copy)
    problems = check_content(content_copy)
    assert any(str(copy) in p for p in problems), problems


def test_text_over_telegram_limit(content_copy: Path) -> None:
    prompts = content_copy / "prompts.yaml"
    data = yaml.safe_load(prompts.read_text(encoding="utf-8"))
    data["prompts"][0]["text"] = "x" * 5000
    prompts.write_text(yaml.safe_dump(data, width=10_000), encoding="utf-8")
    expected = f"{prompts}:{line_of(prompts, 'xxxx')}:"
    problems = check_content(content_copy)
    assert any(p.startswith(expected) for p in problems), problems


def test_duplicate_yaml_key_and_bad_yaml(content_copy: Path) -> None:
    texts = content_copy / "texts" / "core.yaml"
    replace_once(texts, "commands:\n", "commands:\n  start: twice\n")
    problems = check_content(content_copy)
    assert any(p.startswith(f"{texts}:") and "duplicate key" in p for p in problems), problems

    helplines = content_copy / "helplines.yaml"
    helplines.write_text("US: [unclosed\n", encoding="utf-8")
    problems = check_content(content_copy)
    assert any(p.startswith(f"{helplines}:") and "YAML" in p for p in problems), problems


def test_helpline_without_source(content_copy: Path) -> None:
    helplines = content_copy / "helplines.yaml"
    target = line_of(helplines, "source:")
    lines = helplines.read_text(encoding="utf-8").splitlines()
    del lines[target - 1]
    helplines.write_text("\n".join(lines) + "\n", encoding="utf-8")
    problems = check_content(content_copy)
    assert any(p.startswith(f"{helplines}:") and "source" in p for p in problems), problems


def test_cli_exit_codes(content_copy: Path) -> None:
    ok = subprocess.run(
        [sys.executable, "-m", "bot", "content", "check", "--dir", str(content_copy)],
        capture_output=True,
        text=True,
        check=False,
        timeout=START_SECONDS,
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    replace_once(content_copy / SHEET, "title:", "titel: typo\ntitle:")
    bad = subprocess.run(
        [sys.executable, "-m", "bot", "content", "check", "--dir", str(content_copy)],
        capture_output=True,
        text=True,
        check=False,
        timeout=START_SECONDS,
    )
    assert bad.returncode == 1
    assert f"{content_copy / SHEET}:" in bad.stdout
    assert "Traceback" not in bad.stderr


def test_bot_refuses_to_start_with_broken_content(content_copy: Path, tmp_path: Path) -> None:
    replace_once(content_copy / SHEET, "title:", "titel: typo\ntitle:")
    env = {
        "PATH": "/usr/bin:/bin",
        "BOT_CONTENT_DIR": str(content_copy),
        "TELEGRAM_BOT_TOKEN": "123456:ABCdefGHIjklMNOpqrSTUvwxYZ",
        "BOT_MASTER_KEY": base64.b64encode(os.urandom(32)).decode(),
        "BOT_DATA_DIR": str(tmp_path / "data"),
    }
    result = subprocess.run(
        [sys.executable, "-m", "bot"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=START_SECONDS,
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert "titel" in result.stderr and "Traceback" not in result.stderr


# --- emergency numbers (issue 9) --------------------------------------------------------------

EMERGENCY = "emergency_numbers.yaml"


def test_country_without_an_emergency_number_fails_the_check(content_copy: Path) -> None:
    file = content_copy / EMERGENCY
    lines = [
        line
        for line in file.read_text(encoding="utf-8").splitlines()
        if not line.startswith("  JP:")
    ]
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    problems = check_content(content_copy)
    assert any(p.startswith(f"{file}:") and "JP has no emergency number" in p for p in problems)


def replace_entry(file: Path, code: str, entry: str) -> None:
    """Swap a country's block in emergency_numbers.yaml for `entry` (indented as written)."""
    lines = file.read_text(encoding="utf-8").splitlines()
    start = lines.index(f"  {code}:")
    end = next(i for i in range(start + 1, len(lines)) if not lines[i].startswith("    "))
    body = [f"    {line}" for line in entry.strip().splitlines()]
    file.write_text("\n".join([*lines[:start], f"  {code}:", *body, *lines[end:]]) + "\n")


ODATE = "https://www.city.odate.lg.jp/city/foreign-language/english/emergency-call"
JAPAN = f"""
call: "110; 119"
describe: {{"110": police, "119": fire and ambulance}}
source: {ODATE}
checked: 2026-12-01
verified: "yes"
"""


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        (f"source: {ODATE}\n", "", "source"),
        ("checked: 2026-12-01\n", "", "checked"),
        (f"source: {ODATE}", "source: libphonenumber", "address"),
        ("checked: 2026-12-01", "checked: 2026-13-01", "real date"),
        ('verified: "yes"', "verified: yes", "in quotes"),
        ('verified: "yes"', 'verified: "no"', "112; 911"),
        ('"119": fire and ambulance', '"119": fire engine', "say what it is for"),
    ],
)  # fmt: skip
def test_emergency_entry_rules_fail_the_check_at_the_entry(
    content_copy: Path, old: str, new: str, words: str
) -> None:
    file = content_copy / EMERGENCY
    replace_entry(file, "JP", JAPAN.replace(old, new))
    problems = check_content(content_copy)
    start = line_of(file, "  JP:")
    located = [p for p in problems if p.startswith(f"{file}:") and words in p]
    assert located, problems
    assert all(start <= int(p.split(":")[1]) <= start + 6 for p in located), located


def test_a_number_libphonenumber_does_not_know_is_listed_not_failed(content_copy: Path) -> None:
    file = content_copy / EMERGENCY
    replace_entry(file, "JP", JAPAN.replace('"110; 119"', '"110; 999"').replace('"119"', '"999"'))
    result = check_all(content_copy)
    assert result.problems == []
    assert any(f"{file}:" in r and "999" in r and "JP" in r for r in result.review), result.review


def test_the_cli_lists_differences_and_passes(content_copy: Path) -> None:
    file = content_copy / EMERGENCY
    replace_entry(file, "JP", JAPAN.replace('"110; 119"', '"110; 999"').replace('"119"', '"999"'))
    result = subprocess.run(
        [sys.executable, "-m", "bot", "content", "check", "--dir", str(content_copy)],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).resolve().parents[3],
    )
    assert result.returncode == 0, result.stderr
    assert "review: " in result.stdout and "999" in result.stdout
    assert "difference(s) to review" in result.stdout


def test_freshness_fails_the_check_twelve_months_on(content_copy: Path) -> None:
    assert check_content(content_copy, today=datetime.date(2027, 11, 29)) == []
    problems = check_content(content_copy, today=datetime.date(2027, 12, 2))
    helplines, emergency = content_copy / "helplines.yaml", content_copy / EMERGENCY
    assert any(p.startswith(f"{helplines}:") and "more than 12 months" in p for p in problems)
    assert any(p.startswith(f"{emergency}:") and "more than 12 months" in p for p in problems)
    # One line a day too old is one problem, at its `checked`.
    replace_once(helplines, "checked: 2026-11-29", "checked: 2025-11-30")
    one = check_content(content_copy, today=datetime.date(2026, 12, 1))
    assert len(one) == 1 and one[0].startswith(f"{helplines}:"), one
    assert (
        "checked: 2025-11-30" in helplines.read_text().splitlines()[int(one[0].split(":")[1]) - 1]
    )


def test_an_operator_note_in_a_shown_field_fails_the_check(content_copy: Path) -> None:
    file = content_copy / "helplines.yaml"
    replace_once(
        file,
        "notes: Press 1 for the Veterans",
        "notes: Hours were last seen in 2020. Press 1 for the Veterans",
    )
    problems = check_content(content_copy)
    expected = f"{file}:{line_of(file, 'last seen in 2020')}:"
    assert any(p.startswith(expected) and "review" in p for p in problems), problems


def test_a_partial_line_must_say_what_is_unconfirmed(content_copy: Path) -> None:
    file = content_copy / "helplines.yaml"
    text = file.read_text(encoding="utf-8")
    start = text.index("name: Crisis Text Line")
    review = text.index("      review:", start)
    end = text.index("\n", review)
    file.write_text(text[:review] + text[end + 1 :], encoding="utf-8")
    problems = check_content(content_copy)
    assert any(str(file) in p and "in `review` what is unconfirmed" in p for p in problems)


def test_helpline_emergency_line_must_agree_with_the_list(content_copy: Path) -> None:
    file = content_copy / "helplines.yaml"
    old = 'phone: "911"\n      source: health.wyo.gov'
    replace_once(file, old, 'phone: "112"\n      source: x')
    problems = check_content(content_copy)
    assert any(str(file) in p and "911 is US's emergency number" in p for p in problems), problems


def test_helpline_line_without_a_checked_date_fails_the_check(content_copy: Path) -> None:
    file = content_copy / "helplines.yaml"
    replace_once(file, "      checked: 2026-11-29\n      verified: partial\n\nGB-SCT:", "\nGB-SCT:")
    problems = check_content(content_copy)
    assert any(str(file) in p and "missing 'checked'" in p for p in problems), problems
