"""BOT_DATABASE_URL and BOT_KEYS_DATABASE_URL in every form asyncpg reads (issue 23): a Unix
socket, no password, several hosts, IPv6, the database as a parameter; the password is
never in a message, whatever the form."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from bot.config import ConfigError, load_settings
from bot.storage import pg_url
from bot.storage.backend import Migrations
from bot.storage.postgres import PostgresDatabase, lock_key, lock_space
from bot.storage.schema import MIGRATIONS

SECRET = "pw-canary-9931"
SOCKET_DIR = "/var/run/postgresql"  # where Debian's PostgreSQL keeps its socket


@pytest.mark.parametrize(
    ("url", "hosts", "ports", "database"),
    [
        (f"postgresql://steady:{SECRET}@db.example:6432/data", ("db.example",), (6432,), "data"),
        (f"postgresql://steady@/data?host={SOCKET_DIR}", (SOCKET_DIR,), (5432,), "data"),
        ("postgresql://steady@%2Fvar%2Frun%2Fpostgresql/data", (SOCKET_DIR,), (5432,), "data"),
        ("postgresql:///data", ("",), (5432,), "data"),
        ("postgres://u@/?dbname=data&host=/tmp&port=5433", ("/tmp",), (5433,), "data"),
        (f"postgresql://u:{SECRET}@[::1]:5433/data", ("::1",), (5433,), "data"),
        ("postgresql://u@one:5432,two:5433/data", ("one", "two"), (5432, 5433), "data"),
        ("postgresql://u@h/?database=data", ("h",), (5432,), "data"),
    ],
)  # fmt: skip
def test_every_form_is_read(
    url: str, hosts: tuple[str, ...], ports: tuple[int, ...], database: str
) -> None:
    target = pg_url.parse(url)
    assert (target.hosts, target.ports, target.database) == (hosts, ports, database)
    assert SECRET not in repr(target) and SECRET not in target.display
    assert "steady" not in target.display  # nor the user


@pytest.mark.parametrize(
    "url",
    [f"mysql://u:{SECRET}@h/d", f"postgresql://u:{SECRET}@h:port/d", f"postgresql://u:{SECRET}@h:99999/d"],
)  # fmt: skip
def test_a_wrong_url_is_refused_without_repeating_it(url: str) -> None:
    with pytest.raises(pg_url.PgUrlError) as caught:
        pg_url.parse(url)
    assert SECRET not in str(caught.value)


def test_the_socket_form_and_no_password_are_settings() -> None:
    settings = load_settings(
        {
            "BOT_DATABASE_URL": "postgresql://steady@/steady?host=/var/run/postgresql",
            "BOT_KEYS_DATABASE_URL": "postgresql://steady@/steady_keys?host=/var/run/postgresql",
        },
        dotenv=None,
    )
    assert settings.on_postgres
    # The same database by another spelling is still the same database.
    with pytest.raises(ConfigError, match="must name a different database"):
        load_settings(
            {
                "BOT_DATABASE_URL": "postgresql://steady@/steady?host=/var/run/postgresql",
                "BOT_KEYS_DATABASE_URL": f"postgresql://k:{SECRET}@%2Fvar%2Frun%2Fpostgresql/steady",
            },
            dotenv=None,
        )
    with pytest.raises(ConfigError) as caught:
        load_settings(
            {
                "BOT_DATABASE_URL": f"postgresql://u:{SECRET}@h:nope/d",
                "BOT_KEYS_DATABASE_URL": "postgresql://u@h/k",
            },
            dotenv=None,
        )
    assert SECRET not in str(caught.value) and "BOT_DATABASE_URL" in str(caught.value)


@pytest.mark.skipif(not Path(SOCKET_DIR, ".s.PGSQL.5432").exists(), reason="no local socket")
def test_the_socket_form_reaches_the_running_postgresql(caplog: pytest.LogCaptureFixture) -> None:
    """Over the socket the server answers itself (here: peer authentication, which exists
    only on a Unix socket, refuses a role the OS user is not); the message names the
    socket folder and the database, never the password."""
    caplog.set_level(logging.DEBUG)
    url = f"postgresql://steady_ci:{SECRET}@/steady_test?host={SOCKET_DIR}"
    migrations: Migrations = MIGRATIONS

    async def open_it() -> str:
        try:
            db = await PostgresDatabase.open(url, migrations)
        except Exception as exc:
            return str(exc)
        await db.close()
        return "connected"

    outcome = asyncio.run(open_it())
    assert outcome == "connected" or (
        f"{SOCKET_DIR}/steady_test" in outcome and "Authorization" in outcome
    ), outcome
    assert SECRET not in outcome and SECRET not in caplog.text


def test_advisory_locks_are_kept_apart_by_schema() -> None:
    # Two deployments in two schemas of one database must not share the dispatcher's lock
    # (one would stand by for ever); one deployment's replicas must share it.
    base = "postgresql://u:p@db.example.org/steady"
    one, two = lock_space(base + "?search_path=one"), lock_space(base + "?search_path=two")
    assert (one, two, lock_space(base), lock_space("not a url")) == ("one", "two", "", "")
    assert lock_key("dispatcher:0", one) != lock_key("dispatcher:0", two)
    assert lock_key("dispatcher:0", one) == lock_key("dispatcher:0", "one")
    assert lock_key("migrations") == lock_key("migrations", "")  # unchanged without a schema
    assert 0 < lock_key("dispatcher:0", one) < 2**63
