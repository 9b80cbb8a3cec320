"""Settings, read once from the environment (or a `.env` file in the working directory).

Every bad value becomes a `ConfigError` whose message is the single line the CLI prints.
"""

from __future__ import annotations

import base64
import binascii
import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_DATA_DIR = "./data"
MASTER_KEY_BYTES = 32
_TOKEN_SHAPE = re.compile(r"^\d+:[A-Za-z0-9_-]{20,}$")
_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class ConfigError(Exception):
    """A configuration problem, phrased as one line for the person running the bot."""


@dataclass(frozen=True)
class Settings:
    token: str | None = field(repr=False)  # secrets stay out of reprs and tracebacks
    api_url: str | None
    data_dir: Path
    master_key: bytes | None = field(repr=False)
    log_level: int
    http_timeout: float = 10.0

    @property
    def data_db(self) -> Path:
        return self.data_dir / "steady.sqlite3"

    @property
    def key_db(self) -> Path:
        return self.data_dir / "keys.sqlite3"

    @property
    def key_file(self) -> Path:
        return self.data_dir / "master.key"


def read_dotenv(path: Path) -> dict[str, str]:
    """Parse KEY=VALUE lines; `#` comments and surrounding quotes are allowed."""
    values: dict[str, str] = {}
    if not path.is_file():
        return values
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :]
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{path}:{number}: expected KEY=VALUE")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        values[key.strip()] = value
    return values


def decode_master_key(text: str, *, origin: str) -> bytes:
    try:
        key = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise ConfigError(f"{origin} is not valid base64") from None
    if len(key) != MASTER_KEY_BYTES:
        raise ConfigError(
            f"{origin} must be base64 of {MASTER_KEY_BYTES} bytes, got {len(key)} bytes"
        )
    return key


def load_settings(
    environ: Mapping[str, str] | None = None, *, dotenv: Path | None = Path(".env")
) -> Settings:
    """Real environment variables win over the `.env` file."""
    env: dict[str, str] = {}
    if dotenv is not None:
        env.update(read_dotenv(dotenv))
    env.update(os.environ if environ is None else environ)

    token = env.get("TELEGRAM_BOT_TOKEN", "").strip() or None
    if token is not None and not _TOKEN_SHAPE.match(token):
        # Never echo the value: a half-pasted token is still a secret.
        raise ConfigError(
            "TELEGRAM_BOT_TOKEN does not look like a bot token (expected <digits>:<secret>)"
        )

    api_url = env.get("TELEGRAM_BOT_API_URL", "").strip() or None
    if api_url is not None and not re.match(r"^https?://[^\s]+$", api_url):
        raise ConfigError("TELEGRAM_BOT_API_URL must be an http:// or https:// URL")

    data_dir = Path(env.get("BOT_DATA_DIR", "").strip() or DEFAULT_DATA_DIR)

    raw_key = env.get("BOT_MASTER_KEY", "").strip()
    master_key = decode_master_key(raw_key, origin="BOT_MASTER_KEY") if raw_key else None

    level_name = (env.get("BOT_LOG_LEVEL", "").strip() or "INFO").upper()
    if level_name not in _LOG_LEVELS:
        raise ConfigError(f"BOT_LOG_LEVEL must be one of {', '.join(_LOG_LEVELS)}")
    log_level = logging.getLevelNamesMapping()[level_name]

    raw_timeout = env.get("BOT_HTTP_TIMEOUT", "").strip() or "10"
    try:
        http_timeout = float(raw_timeout)
    except ValueError:
        raise ConfigError("BOT_HTTP_TIMEOUT must be a number of seconds") from None
    if not 0.05 <= http_timeout <= 300:
        raise ConfigError("BOT_HTTP_TIMEOUT must be between 0.05 and 300 seconds")

    return Settings(
        http_timeout=http_timeout,
        token=token,
        api_url=api_url,
        data_dir=data_dir,
        master_key=master_key,
        log_level=log_level,
    )


def ensure_data_dir(path: Path) -> None:
    """Create the data dir (private to this user) and prove it is writable."""
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        if path.stat().st_uid == os.getuid():
            path.chmod(0o700)  # the databases inherit nothing readable by others
        probe = path / ".write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise ConfigError(
            f"BOT_DATA_DIR {path} is not writable ({exc.strerror or type(exc).__name__})"
        ) from None
