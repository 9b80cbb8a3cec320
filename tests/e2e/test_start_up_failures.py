"""Start-up failures end in one line on stderr and a documented exit code, never a
traceback and never the token (issues 26 and 27): a token Telegram refuses (2), Telegram
unreachable after the retries (3), a full disk (4). The bot runs as a real process
against the emulator (or against nothing, for unreachable)."""

from __future__ import annotations

import asyncio
import base64
import errno
import os
import sqlite3
import sys
from pathlib import Path

import pytest

from bot import __main__ as cli
from bot.emulator import BotApiEmulator
from tests.helpers.bot import TOKEN

# Generous: Telegram unreachable takes five retries (0.5 + 1 + 2 + 4 + 8 s) before giving up.
OUTER_TIMEOUT = 120


async def serve(api_url: str, tmp_path: Path, level: str = "INFO") -> tuple[int, list[str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "BOT_"))}
    env.update(
        {
            "TELEGRAM_BOT_TOKEN": TOKEN,
            "TELEGRAM_BOT_API_URL": api_url,
            "BOT_DATA_DIR": str(tmp_path / "data"),
            "BOT_MASTER_KEY": base64.b64encode(b"k" * 32).decode(),
            "BOT_LOG_LEVEL": level,
        }
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        env=env,
        cwd=tmp_path,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(process.communicate(), OUTER_TIMEOUT)
    assert process.returncode is not None
    return process.returncode, err.decode().splitlines()


def failure_lines(lines: list[str]) -> list[str]:
    """What is not a log line (the log lines carry a timestamp and a level)."""
    return [line for line in lines if not line[:4].isdigit()]


def assert_clean(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert "Traceback" not in text and "Unclosed" not in text, text
    assert TOKEN not in text and TOKEN.split(":")[1] not in text


@pytest.mark.parametrize("level", ["INFO", "DEBUG"])
async def test_a_refused_token_is_one_line_and_exit_2(
    emulator: BotApiEmulator, tmp_path: Path, level: str
) -> None:
    emulator.inject_fault("getMe", "401", times=50)
    code, lines = await serve(emulator.base_url, tmp_path, level)
    assert code == cli.EXIT_USAGE, lines
    error = "error: Telegram refused the bot token (TELEGRAM_BOT_TOKEN): check it with @BotFather"
    text = "\n".join(lines)
    assert TOKEN not in text and TOKEN.split(":")[1] not in text  # not even at DEBUG
    if level == "INFO":
        assert failure_lines(lines) == [error]
        assert_clean(lines)
    else:  # the details, for the operator who asked for them, end with the same line
        assert lines[-1] == error and "Traceback" in text and "[token withheld]" in text


async def test_telegram_unreachable_at_start_is_one_line_and_exit_3(tmp_path: Path) -> None:
    # A port nothing listens on: every getMe is refused at connect.
    code, lines = await serve("http://127.0.0.1:9/bot", tmp_path)
    assert code == cli.EXIT_UNREACHABLE, lines
    assert len(failure_lines(lines)) == 1, lines
    assert failure_lines(lines)[0].startswith("error: cannot reach Telegram at start-up")
    assert_clean(lines)


@pytest.mark.parametrize(
    "failure",
    [
        OSError(errno.ENOSPC, "No space left on device"),
        sqlite3.OperationalError("database or disk is full"),
    ],
)
def test_a_full_disk_is_one_line_and_exit_4(
    failure: Exception, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def full(_: object) -> int:
        wrapped = RuntimeError("while writing")  # as a library may wrap it
        wrapped.__cause__ = failure
        raise wrapped

    monkeypatch.setattr(cli, "_run", full)
    assert cli.main(["serve"]) == cli.EXIT_DISK_FULL
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("error: no space left on the disk"), err
