#!/usr/bin/env python3
"""Quick start for a fresh machine with Python 3.11+ (standard library only).

python3 dev.py run    set up .venv, then serve Telegram (with TELEGRAM_BOT_TOKEN) or the sandbox
python3 dev.py test   set up .venv, then run every check CI runs (ruff, mypy, pytest)
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
PY = VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
STAMP = VENV / ".steady-installed"


def ensure_venv() -> None:
    if sys.version_info < (3, 11):
        sys.exit("Steady needs Python 3.11 or newer.")
    if not PY.exists():
        print("Creating .venv ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    lock = ROOT / "requirements.lock"
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + lock.read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text() == wanted:
        return
    print("Installing dependencies into .venv ...", flush=True)
    pip = [PY, "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True)
    # Runtime dependencies exactly as locked, each wheel checked against its hash.
    subprocess.run([*pip, "--require-hashes", "--only-binary=:all:", "-r", lock], check=True)
    subprocess.run([*pip, "-e", f"{ROOT}[dev]"], check=True)
    STAMP.write_text(wanted)


def has_token(environ: Mapping[str, str], dotenv: Path) -> bool:
    """A token set in the environment or in .env; a commented-out or empty one means the
    sandbox. The bot's own .env parser decides, so both read the file alike."""
    if environ.get("TELEGRAM_BOT_TOKEN", "").strip():
        return True
    sys.path.insert(0, str(ROOT))
    from bot.config import ConfigError, read_dotenv  # noqa: PLC0415  (stdlib only)

    try:
        values = read_dotenv(dotenv)
    except ConfigError:
        return True  # serve, and let the bot say which line is wrong
    return bool(values.get("TELEGRAM_BOT_TOKEN", "").strip())


def run(*cmd: str | Path) -> int:
    print("$", " ".join(str(c) for c in cmd), flush=True)
    return subprocess.run([str(c) for c in cmd], cwd=ROOT, check=False).returncode


def test_workers() -> int:
    return 2 * (os.cpu_count() or 1)


def main() -> int:
    action = sys.argv[1] if len(sys.argv) > 1 else "run"
    if action not in ("run", "test"):
        sys.exit(__doc__)
    ensure_venv()
    if action == "run":
        return run(PY, "-m", "bot", *([] if has_token(os.environ, ROOT / ".env") else ["sandbox"]))
    for check in (
        (PY, "-m", "ruff", "check", "."),
        (PY, "-m", "ruff", "format", "--check", "."),
        (PY, "-m", "mypy", "--strict", "bot"),
        # Two workers per core (pytest-xdist): an e2e test spends much of its time waiting
        # on its bot (a subprocess starting, a held answer, a retry's backoff), so a second
        # worker per core fills those waits; measured on 2 cores with a CPU-bound process
        # beside the suite (docs/performance.md). `-n 0` after `test`: one process.
        (PY, "-m", "pytest", "-q", "-n", str(test_workers()), *sys.argv[2:]),
    ):
        code = run(*check)
        if code != 0:
            print(f"FAILED: {' '.join(str(c) for c in check[1:])}", flush=True)
            return code
    return 0


if __name__ == "__main__":
    sys.exit(main())
