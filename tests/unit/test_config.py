"""Configuration: each malformed value gives one clear line and exit code 2."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import ConfigError, check_key_placement, load_settings, read_dotenv
from tests.conftest import START_SECONDS

GOOD_TOKEN = "123456:ABCdefGHIjklMNOpqrSTUvwxYZ"
PG_DATA = "postgresql://steady:pg-secret-canary@127.0.0.1:1/steady"
PG_KEYS = "postgresql://steady_keys:pg-secret-canary@127.0.0.1:1/steady_keys"


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


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({}, "TELEGRAM_BOT_TOKEN is not set; to try the bot without one, run `python -m bot"),
        ({"TELEGRAM_BOT_TOKEN": "nonsense"}, "TELEGRAM_BOT_TOKEN does not look like a bot token"),
        (
            {"TELEGRAM_BOT_TOKEN": GOOD_TOKEN, "BOT_MASTER_KEY": "%%%"},
            "BOT_MASTER_KEY is not valid base64",
        ),
        (
            {
                "TELEGRAM_BOT_TOKEN": GOOD_TOKEN,
                "BOT_MASTER_KEY": base64.b64encode(b"short").decode(),
            },
            "BOT_MASTER_KEY must be base64 of 32 bytes",
        ),
        (
            {"TELEGRAM_BOT_TOKEN": GOOD_TOKEN, "BOT_LOG_LEVEL": "LOUD"},
            "BOT_LOG_LEVEL must be one of",
        ),
        (
            {"TELEGRAM_BOT_TOKEN": GOOD_TOKEN, "TELEGRAM_BOT_API_URL": "ftp://x"},
            "TELEGRAM_BOT_API_URL must be",
        ),
        (
            {"TELEGRAM_BOT_TOKEN": GOOD_TOKEN, "BOT_DATA_DIR": "/proc/forbidden/data"},
            "is not writable",
        ),
        (
            {"TELEGRAM_BOT_TOKEN": GOOD_TOKEN},
            "BOT_MASTER_KEY is not set and the key file would be in the data dir",
        ),
        (
            {"TELEGRAM_BOT_TOKEN": GOOD_TOKEN, "BOT_ALLOW_KEY_IN_DATA_DIR": "perhaps"},
            "BOT_ALLOW_KEY_IN_DATA_DIR must be 1 or 0",
        ),
        (
            {"TELEGRAM_BOT_TOKEN": GOOD_TOKEN, "BOT_DATABASE_URL": PG_DATA},
            "BOT_DATABASE_URL needs BOT_KEYS_DATABASE_URL",
        ),
        (
            # Nothing listens on port 1: one line naming host and database, no password.
            {
                "TELEGRAM_BOT_TOKEN": GOOD_TOKEN,
                "BOT_MASTER_KEY": base64.b64encode(os.urandom(32)).decode(),
                "BOT_DATABASE_URL": PG_DATA,
                "BOT_KEYS_DATABASE_URL": PG_KEYS,
            },
            "cannot connect to PostgreSQL at 127.0.0.1/steady_keys",
        ),
    ],
)
def test_bad_config_gives_one_line_and_exit_2(
    env: dict[str, str], message: str, tmp_path: Path
) -> None:
    env = {"BOT_DATA_DIR": str(tmp_path / "data"), **env}
    result = run_cli(env, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert message in lines[0]
    assert "Traceback" not in result.stderr
    if "TELEGRAM_BOT_TOKEN" in env and env["TELEGRAM_BOT_TOKEN"] != GOOD_TOKEN:
        assert env["TELEGRAM_BOT_TOKEN"] not in result.stderr
    assert "pg-secret-canary" not in result.stderr


WEBHOOK = {
    "BOT_DATABASE_URL": PG_DATA,
    "BOT_KEYS_DATABASE_URL": PG_KEYS,
    "BOT_WEBHOOK_URL": "https://bot.example.org/telegram/hook",
    "BOT_WEBHOOK_SECRET": "s3cret_-token",
}


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"BOT_KEYS_DATABASE_URL": PG_KEYS}, "BOT_KEYS_DATABASE_URL is set but BOT_DATABASE_URL"),
        ({"BOT_DATABASE_URL": "mysql://x/y", "BOT_KEYS_DATABASE_URL": PG_KEYS}, "must be a post"),
        (
            {"BOT_DATABASE_URL": "postgresql://127.0.0.1", "BOT_KEYS_DATABASE_URL": PG_KEYS},
            "BOT_DATABASE_URL names no database",
        ),
        (
            {
                "BOT_DATABASE_URL": PG_DATA,
                "BOT_KEYS_DATABASE_URL": PG_DATA.replace("steady:", "x:"),
            },
            "must name a different database",
        ),
        ({"BOT_WEBHOOK_SECRET": "abc"}, "BOT_WEBHOOK_SECRET is set but BOT_WEBHOOK_URL is not"),
        ({"BOT_WEBHOOK_LISTEN": "0.0.0.0:80"}, "BOT_WEBHOOK_LISTEN is set but BOT_WEBHOOK_URL"),
        ({**WEBHOOK, "BOT_WEBHOOK_SECRET": ""}, "BOT_WEBHOOK_URL needs BOT_WEBHOOK_SECRET"),
        ({**WEBHOOK, "BOT_WEBHOOK_SECRET": "no spaces!"}, "BOT_WEBHOOK_SECRET must be 1-256"),
        ({**WEBHOOK, "BOT_WEBHOOK_URL": "http://bot.example.org/x"}, "must be an https:// URL"),
        ({**WEBHOOK, "BOT_WEBHOOK_LISTEN": "8080"}, "BOT_WEBHOOK_LISTEN must be host:port"),
        ({**WEBHOOK, "BOT_WEBHOOK_LISTEN": "h:99999"}, "BOT_WEBHOOK_LISTEN must be host:port"),
        (
            {k: v for k, v in WEBHOOK.items() if "DATABASE" not in k},
            "BOT_WEBHOOK_URL needs BOT_DATABASE_URL",
        ),
        ({"BOT_PAID_BROADCAST": "lots"}, "BOT_PAID_BROADCAST must be 1 or 0"),
        ({"BOT_METRICS_TOKEN": "m" * 20}, "BOT_METRICS_TOKEN is set but BOT_WEBHOOK_URL"),
        ({**WEBHOOK, "BOT_METRICS_TOKEN": "short"}, "BOT_METRICS_TOKEN must be at least 16"),
        ({**WEBHOOK, "BOT_METRICS_TOKEN": "with a space in it"}, "BOT_METRICS_TOKEN must be"),
    ],
)
def test_wrong_scale_out_combinations_are_refused(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")) as caught:
        load_settings(env, dotenv=None)
    assert "pg-secret-canary" not in str(caught.value)
    assert "\n" not in str(caught.value)


def test_scale_out_settings() -> None:
    settings = load_settings(
        {
            **WEBHOOK,
            "BOT_WEBHOOK_LISTEN": "0.0.0.0:8443",
            "BOT_PAID_BROADCAST": "1",
            "BOT_METRICS_TOKEN": "metrics-canary-0123",
        },
        dotenv=None,
    )
    assert settings.metrics_token == "metrics-canary-0123"
    assert "metrics-canary" not in repr(settings)
    assert settings.on_postgres and settings.data_target == PG_DATA
    assert settings.key_target == PG_KEYS
    assert settings.webhook_listen == ("0.0.0.0", 8443)
    assert settings.paid_broadcast
    assert "pg-secret-canary" not in repr(settings) and "s3cret" not in repr(settings)
    plain = load_settings({}, dotenv=None)
    assert not plain.on_postgres and plain.data_target == plain.data_db
    assert plain.webhook_url is None and plain.webhook_listen == ("127.0.0.1", 8080)
    assert plain.metrics_token is None  # /metrics is off unless a token is configured
    # A local Bot API (the emulator) may post plain HTTP to a replica on loopback.
    local = load_settings(
        {
            **WEBHOOK,
            "BOT_WEBHOOK_URL": "http://127.0.0.1:8081/hook",
            "TELEGRAM_BOT_API_URL": "http://127.0.0.1:9000/bot",
        },
        dotenv=None,
    )
    assert local.webhook_url == "http://127.0.0.1:8081/hook"


def test_wrong_master_key_is_one_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    key1 = base64.b64encode(os.urandom(32)).decode()
    key2 = base64.b64encode(os.urandom(32)).decode()
    first = run_cli(
        {"BOT_DATA_DIR": str(data), "BOT_MASTER_KEY": key1},
        "backup",
        str(tmp_path / "x"),
        cwd=tmp_path,
    )
    assert first.returncode == 2  # no database yet: a clear line, not a crash
    new_key = base64.b64encode(os.urandom(32)).decode()
    rotate = run_cli(
        {"BOT_DATA_DIR": str(data), "BOT_MASTER_KEY": key1, "BOT_NEW_MASTER_KEY": new_key},
        "keys",
        "rotate",
        cwd=tmp_path,
    )
    assert rotate.returncode == 0, rotate.stderr
    wrong = run_cli(
        {"BOT_DATA_DIR": str(data), "BOT_MASTER_KEY": key2}, "keys", "rotate", cwd=tmp_path
    )
    assert wrong.returncode == 2
    assert "master key does not match" in wrong.stderr
    assert len(wrong.stderr.strip().splitlines()) == 1
    again = run_cli(
        {"BOT_DATA_DIR": str(data), "BOT_MASTER_KEY": new_key}, "keys", "retire", cwd=tmp_path
    )
    assert again.returncode == 0, again.stderr


def test_key_file_is_created_private_and_reused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = run_cli({"BOT_DATA_DIR": str(data)}, "keys", "rotate", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    key_file = data / "master.key"
    assert key_file.stat().st_mode & 0o777 == 0o600
    assert "move it to a secret" in first.stderr
    assert (data / "master.key.new").stat().st_mode & 0o777 == 0o600
    second = run_cli({"BOT_DATA_DIR": str(data)}, "keys", "retire", cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert not (data / "master.key.new").exists()


def test_dotenv_is_read_and_environment_wins(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text(f'# comment\nTELEGRAM_BOT_TOKEN="{GOOD_TOKEN}"\nBOT_LOG_LEVEL=debug\n')
    settings = load_settings({"BOT_LOG_LEVEL": "ERROR"}, dotenv=dotenv)
    assert settings.token == GOOD_TOKEN
    assert settings.log_level == 40


def test_dotenv_syntax_error_names_the_line(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text("GOOD=1\nnot a pair\n")
    with pytest.raises(ConfigError, match=r"\.env:2"):
        read_dotenv(dotenv)


def test_help_lists_commands(tmp_path: Path) -> None:
    result = run_cli({}, "--help", cwd=tmp_path)
    assert result.returncode == 0
    for word in ("sandbox", "keys", "backup", "content"):
        assert word in result.stdout


@pytest.mark.parametrize(
    ("extra", "refused"),
    [
        ({}, True),  # master.key would land beside the databases, in every copy of them
        ({"BOT_MASTER_KEY": base64.b64encode(bytes(32)).decode()}, False),
        ({"BOT_MASTER_KEY_FILE": "{tmp}/secrets/master.key"}, False),
        ({"BOT_MASTER_KEY_FILE": "{tmp}/data/keys/master.key"}, True),  # still inside
        ({"BOT_ALLOW_KEY_IN_DATA_DIR": "1"}, False),
        ({"TELEGRAM_BOT_TOKEN": ""}, False),  # the sandbox and the CLI tools: no token
        ({"BOT_MASTER_KEY_FILE": "{tmp}/nowhere/master.key"}, True),  # a secret not mounted
    ],
)
def test_serving_keeps_the_master_key_out_of_the_data_dir(
    extra: dict[str, str], refused: bool, tmp_path: Path
) -> None:
    env = {"TELEGRAM_BOT_TOKEN": GOOD_TOKEN, "BOT_DATA_DIR": str(tmp_path / "data")}
    env.update({k: v.replace("{tmp}", str(tmp_path)) for k, v in extra.items()})
    settings = load_settings(env, dotenv=None)
    (tmp_path / "secrets").mkdir()
    if refused:
        with pytest.raises(ConfigError, match="BOT_MASTER_KEY"):
            check_key_placement(settings)
    else:
        check_key_placement(settings)


def test_a_key_file_outside_is_where_the_key_goes(tmp_path: Path) -> None:
    key_file = tmp_path / "secrets" / "master.key"
    key_file.parent.mkdir()
    env = {"BOT_DATA_DIR": str(tmp_path / "data"), "BOT_MASTER_KEY_FILE": str(key_file)}
    result = run_cli(env, "keys", "rotate", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert key_file.stat().st_mode & 0o777 == 0o600
    assert not (tmp_path / "data" / "master.key").exists()
