"""The Docker files hold together (no daemon here to build them): the entry step exists,
is a valid shell script, and the image checks its health and drops root."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_dockerfile_has_healthcheck_entrypoint_and_user() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert 'CMD ["python", "-m", "bot", "health"]' in text
    assert "HEALTHCHECK" in text
    assert "COPY docker/entrypoint.sh /usr/local/bin/steady-entrypoint" in text
    assert 'ENTRYPOINT ["steady-entrypoint"]' in text
    assert "--uid 10001" in text


def test_entrypoint_is_an_executable_shell_script_that_drops_root() -> None:
    script = ROOT / "docker" / "entrypoint.sh"
    assert os.access(script, os.X_OK)
    subprocess.run(["sh", "-n", str(script)], check=True)
    text = script.read_text(encoding="utf-8")
    assert "setpriv --reuid=steady" in text and 'exec "$@"' in text


def test_entrypoint_without_root_runs_the_command_unchanged(tmp_path: Path) -> None:
    # As root it would chown and switch to the image's user: that part needs the image.
    # Run it as nobody instead (what `--user` does).
    as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    prefix = as_nobody if os.getuid() == 0 else []
    tmp_path.chmod(0o777)
    result = subprocess.run(
        [*prefix, "sh", str(ROOT / "docker" / "entrypoint.sh"), "id", "-u"],
        env={**os.environ, "BOT_DATA_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == ("65534" if prefix else str(os.getuid()))
