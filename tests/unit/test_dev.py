"""dev.py's quick start: a token in .env means Telegram; a commented-out or empty one, the
sandbox."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "123456:ABCdefGHIjklMNOpqrSTUvwxYZ"


def dev() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dev", ROOT / "dev.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("dotenv", "expected"),
    [
        (f"TELEGRAM_BOT_TOKEN={TOKEN}\n", True),
        (f'export TELEGRAM_BOT_TOKEN="{TOKEN}"\n', True),
        (f"# TELEGRAM_BOT_TOKEN={TOKEN}\n", False),
        (f"#TELEGRAM_BOT_TOKEN={TOKEN}\n", False),
        ("TELEGRAM_BOT_TOKEN=\n", False),
        ('TELEGRAM_BOT_TOKEN=""\n', False),
        ("TELEGRAM_BOT_TOKEN=   \n", False),
        ("BOT_LOG_LEVEL=DEBUG\n", False),
        (None, False),
        ("not a pair\n", True),  # the bot itself then names the bad line
    ],
)
def test_token_in_dotenv(dotenv: str | None, expected: bool, tmp_path: Path) -> None:
    path = tmp_path / ".env"
    if dotenv is not None:
        path.write_text(dotenv, encoding="utf-8")
    assert dev().has_token({}, path) is expected


def test_the_environment_wins(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_text("# TELEGRAM_BOT_TOKEN=\n", encoding="utf-8")
    assert dev().has_token({"TELEGRAM_BOT_TOKEN": TOKEN}, path)
    assert not dev().has_token({"TELEGRAM_BOT_TOKEN": " "}, path)
