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
from urllib.parse import urlsplit

from bot.core.errors import SteadyError
from bot.storage import pg_url
from bot.storage.pg_url import PgTarget

DEFAULT_DATA_DIR = "./data"
DEFAULT_WEBHOOK_LISTEN = ("127.0.0.1", 8080)
# The only ports Telegram posts updates to (https://core.telegram.org/bots/api#setwebhook).
WEBHOOK_PORTS = frozenset({443, 80, 88, 8443})
# Telegram's rule for setWebhook's secret_token: 1-256 of A-Z, a-z, 0-9, _ and -.
_WEBHOOK_SECRET_SHAPE = re.compile(r"^[A-Za-z0-9_-]{1,256}$")
MASTER_KEY_BYTES = 32
_TOKEN_SHAPE = re.compile(r"^\d+:[A-Za-z0-9_-]{20,}$")
_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class ConfigError(SteadyError):
    """A configuration problem, phrased as one line for the person running the bot."""


@dataclass(frozen=True)
class Settings:
    token: str | None = field(repr=False)  # secrets stay out of reprs and tracebacks
    api_url: str | None
    data_dir: Path
    master_key: bytes | None = field(repr=False)
    log_level: int
    http_timeout: float = 10.0
    # BOT_MASTER_KEY_FILE: a key file kept apart from the data (a mounted secret); else
    # master.key in the data dir, which serving refuses unless BOT_ALLOW_KEY_IN_DATA_DIR.
    master_key_file: Path | None = None
    allow_key_in_data_dir: bool = False
    # Scale-out (docs/scaling.md). Unset database URLs: SQLite files in data_dir.
    database_url: str | None = field(default=None, repr=False)  # may carry a password
    keys_database_url: str | None = field(default=None, repr=False)
    # Unset: long polling. Set: Telegram posts updates to it; this replica serves its path.
    webhook_url: str | None = None
    webhook_listen: tuple[str, int] = DEFAULT_WEBHOOK_LISTEN
    webhook_secret: str | None = field(default=None, repr=False)
    # GET /metrics answers only a request bearing this token; unset, it is not served at all
    # (it shares the webhook's port, which the reverse proxy may expose).
    metrics_token: str | None = field(default=None, repr=False)
    # allow_paid_broadcast on check-ins: Telegram's higher rate, paid in Stars.
    paid_broadcast: bool = False
    # BOT_CRISIS_MODEL=0: the crisis rules alone, without the learned second opinion
    # (docs/crisis.md). On by default; the bot runs on the rules if the model cannot load.
    crisis_model: bool = True
    # BOT_CACHE_DIR: where the content's compiled form is kept (bot/content/compiled.py);
    # unset, the data dir's cache/ folder.
    cache_dir: Path | None = None

    @property
    def content_cache(self) -> Path:
        return self.cache_dir or self.data_dir / "cache"

    @property
    def data_target(self) -> Path | str:
        """Where the data database is: a PostgreSQL URL, or the SQLite file."""
        return self.database_url or self.data_db

    @property
    def key_target(self) -> Path | str:
        return self.keys_database_url or self.key_db

    @property
    def on_postgres(self) -> bool:
        return self.database_url is not None

    @property
    def data_db(self) -> Path:
        return self.data_dir / "steady.sqlite3"

    @property
    def key_db(self) -> Path:
        return self.data_dir / "keys.sqlite3"

    @property
    def key_file(self) -> Path:
        return self.master_key_file or self.data_dir / "master.key"

    @property
    def key_beside_data(self) -> bool:
        """The master key would sit in the same folder (volume, backup) as what it unlocks."""
        if self.master_key is not None:
            return False
        data = self.data_dir.resolve()
        return self.key_file.resolve().is_relative_to(data)


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

    raw_key_file = env.get("BOT_MASTER_KEY_FILE", "").strip()
    master_key_file = Path(raw_key_file) if raw_key_file else None
    allow_raw = env.get("BOT_ALLOW_KEY_IN_DATA_DIR", "").strip().lower()
    if allow_raw not in _FLAGS:
        raise ConfigError("BOT_ALLOW_KEY_IN_DATA_DIR must be 1 or 0")

    database_url, keys_database_url = _database_urls(env)
    webhook_url, webhook_listen, webhook_secret = _webhook(env, api_url, database_url)
    metrics_token = _metrics_token(env, webhook_url)
    paid_raw = env.get("BOT_PAID_BROADCAST", "").strip().lower()
    if paid_raw not in _FLAGS:
        raise ConfigError("BOT_PAID_BROADCAST must be 1 or 0")

    model_raw = env.get("BOT_CRISIS_MODEL", "").strip().lower()
    if model_raw not in _FLAGS:
        raise ConfigError("BOT_CRISIS_MODEL must be 1 or 0")

    raw_cache = env.get("BOT_CACHE_DIR", "").strip()

    return Settings(
        cache_dir=Path(raw_cache) if raw_cache else None,
        crisis_model=model_raw in ("", *_TRUE),
        database_url=database_url,
        keys_database_url=keys_database_url,
        webhook_url=webhook_url,
        webhook_listen=webhook_listen,
        webhook_secret=webhook_secret,
        metrics_token=metrics_token,
        paid_broadcast=paid_raw in _TRUE,
        master_key_file=master_key_file,
        allow_key_in_data_dir=allow_raw in _TRUE,
        http_timeout=http_timeout,
        token=token,
        api_url=api_url,
        data_dir=data_dir,
        master_key=master_key,
        log_level=log_level,
    )


_FLAGS = ("", "0", "1", "true", "false", "yes", "no")
_TRUE = ("1", "true", "yes")


def _postgres_url(name: str, value: str) -> PgTarget:
    try:
        target = pg_url.parse(value)
    except pg_url.PgUrlError as exc:
        # Never echo the value: it may hold a password.
        raise ConfigError(
            f"{name} must be a postgresql:// URL ({exc}), e.g. "
            "postgresql://user:password@host:5432/database or "
            "postgresql://user@/database?host=/var/run/postgresql"
        ) from None
    if not target.database:
        raise ConfigError(f"{name} names no database (postgresql://.../DATABASE)")
    return target


def _database_urls(env: Mapping[str, str]) -> tuple[str | None, str | None]:
    data = env.get("BOT_DATABASE_URL", "").strip() or None
    keys = env.get("BOT_KEYS_DATABASE_URL", "").strip() or None
    if data is None and keys is None:
        return None, None
    if data is None:
        raise ConfigError("BOT_KEYS_DATABASE_URL is set but BOT_DATABASE_URL is not; set both")
    if keys is None:
        raise ConfigError(
            "BOT_DATABASE_URL needs BOT_KEYS_DATABASE_URL: the key store in its own database"
        )
    if _postgres_url("BOT_DATABASE_URL", data) == _postgres_url("BOT_KEYS_DATABASE_URL", keys):
        raise ConfigError(
            "BOT_KEYS_DATABASE_URL must name a different database from BOT_DATABASE_URL "
            "(kept and backed up apart, it is what makes /forget reach old backups)"
        )
    return data, keys


def _listen(value: str) -> tuple[str, int]:
    host, sep, port_text = value.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ConfigError("BOT_WEBHOOK_LISTEN must be host:port, e.g. 127.0.0.1:8080")
    return host, int(port_text)


def _webhook(
    env: Mapping[str, str], api_url: str | None, database_url: str | None
) -> tuple[str | None, tuple[str, int], str | None]:
    url = env.get("BOT_WEBHOOK_URL", "").strip() or None
    listen_raw = env.get("BOT_WEBHOOK_LISTEN", "").strip()
    secret = env.get("BOT_WEBHOOK_SECRET", "").strip() or None
    if url is None:
        if listen_raw or secret:
            which = "BOT_WEBHOOK_LISTEN" if listen_raw else "BOT_WEBHOOK_SECRET"
            raise ConfigError(f"{which} is set but BOT_WEBHOOK_URL is not (unset means polling)")
        return None, DEFAULT_WEBHOOK_LISTEN, None
    parts = urlsplit(url)
    # Telegram posts only to HTTPS; a local Bot API (the emulator) may post plain HTTP.
    allowed = ("https", "http") if _local_api(api_url) else ("https",)
    if parts.scheme not in allowed or not parts.hostname:
        raise ConfigError("BOT_WEBHOOK_URL must be an https:// URL Telegram can reach")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        port = -1
    # A local Bot API server posts to any port; Telegram's own servers only to these.
    if port not in WEBHOOK_PORTS and not _local_api(api_url):
        raise ConfigError(
            "BOT_WEBHOOK_URL must use a port Telegram posts to: 443, 80, 88 or 8443 "
            "(a proxy there can forward to BOT_WEBHOOK_LISTEN)"
        )
    if secret is None:
        raise ConfigError("BOT_WEBHOOK_URL needs BOT_WEBHOOK_SECRET (1-256 of A-Z a-z 0-9 _ -)")
    if not _WEBHOOK_SECRET_SHAPE.match(secret):
        raise ConfigError("BOT_WEBHOOK_SECRET must be 1-256 of A-Z, a-z, 0-9, _ and -")
    if database_url is None:
        raise ConfigError(
            "BOT_WEBHOOK_URL needs BOT_DATABASE_URL: webhook replicas share PostgreSQL "
            "(one process on SQLite polls)"
        )
    listen = _listen(listen_raw) if listen_raw else DEFAULT_WEBHOOK_LISTEN
    return url, listen, secret


def _metrics_token(env: Mapping[str, str], webhook_url: str | None) -> str | None:
    token = env.get("BOT_METRICS_TOKEN", "").strip() or None
    if token is None:
        return None
    if webhook_url is None:
        raise ConfigError(
            "BOT_METRICS_TOKEN is set but BOT_WEBHOOK_URL is not (polling serves no /metrics)"
        )
    if len(token) < 16 or not token.isascii() or not token.isprintable() or " " in token:
        raise ConfigError(
            "BOT_METRICS_TOKEN must be at least 16 printable ASCII characters, no spaces"
        )
    return token


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


def _local_api(api_url: str | None) -> bool:
    host = urlsplit(api_url).hostname if api_url else None
    return host in ("127.0.0.1", "localhost", "::1")


def check_key_placement(settings: Settings) -> None:
    """Serving for real (a token) keeps the master key out of the data volume: a copy of
    that volume or one of its backups must not carry the key that opens it."""
    if settings.token is None or _local_api(settings.api_url):
        return  # the sandbox and the local emulator serve nobody
    chosen = settings.master_key_file
    if settings.master_key is None and chosen is not None and not chosen.parent.is_dir():
        raise ConfigError(f"BOT_MASTER_KEY_FILE {chosen}: its folder does not exist")
    if not settings.key_beside_data or settings.allow_key_in_data_dir:
        return
    raise ConfigError(
        "BOT_MASTER_KEY is not set and the key file would be in the data dir "
        f"({settings.key_file}); set BOT_MASTER_KEY, or BOT_MASTER_KEY_FILE to a file outside "
        "it, or BOT_ALLOW_KEY_IN_DATA_DIR=1 to accept the risk"
    )
