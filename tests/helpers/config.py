"""Running the CLI in-process, for the configuration and start-up tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers.bot import START_SECONDS


def run_cli(
    env: dict[str, str], *args: str, cwd: Path, stdout: int | None = subprocess.PIPE
) -> subprocess.CompletedProcess[str]:
    """`stdout=None` runs the command with its standard output closed (a lost terminal)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "BOT_"))}
    clean.update(env)
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        env=clean,
        cwd=cwd,
        stdout=stdout if stdout is not None else subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=START_SECONDS,  # only a hung start reaches it
        check=False,
        preexec_fn=None if stdout is not None else _close_stdout,
    )


def _close_stdout() -> None:
    os.close(1)
