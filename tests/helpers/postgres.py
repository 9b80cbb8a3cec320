"""A real PostgreSQL for tests: one server (started by .ci/run), one schema per test.

`STEADY_TEST_POSTGRES` is a DSN of a database the test role owns. Unset outside CI, the
PostgreSQL tests skip with that reason; in CI (CI=true) an unset or unreachable server is a
failure, never a silent skip. Each test gets its own schema (created and dropped in
milliseconds), named in the URL as `search_path`, which asyncpg passes to the server.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
import pytest

from bot.emulator import WAIT_SECONDS

DSN_VARIABLE = "STEADY_TEST_POSTGRES"
_REACHABLE: dict[str, str | None] = {}


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def _unavailable(reason: str) -> None:
    if in_ci():
        pytest.fail(f"PostgreSQL is required in CI: {reason}", pytrace=False)
    pytest.skip(f"PostgreSQL tests skipped: {reason} (.ci/run starts a server and sets it)")


async def server_dsn() -> str:
    dsn = os.environ.get(DSN_VARIABLE, "").strip()
    if not dsn:
        _unavailable(f"{DSN_VARIABLE} is not set")
    if dsn not in _REACHABLE:
        try:
            # A missing server refuses at once; only a hung one reaches this bound. A short one
            # skipped every PostgreSQL test (outside CI) when a loaded machine was slow to connect.
            conn = await asyncpg.connect(dsn, timeout=WAIT_SECONDS)
            await conn.close()
            _REACHABLE[dsn] = None
        except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
            _REACHABLE[dsn] = f"cannot connect to {DSN_VARIABLE} ({type(exc).__name__})"
    problem = _REACHABLE[dsn]
    if problem is not None:
        _unavailable(problem)
    return dsn


def with_schema(dsn: str, schema: str) -> str:
    return f"{dsn}{'&' if '?' in dsn else '?'}search_path={schema}"


@asynccontextmanager
async def fresh_schemas(*labels: str) -> AsyncIterator[dict[str, str]]:
    """One new schema per label; yields label -> URL; drops them afterwards."""
    dsn = await server_dsn()
    names = {label: f"t_{label}_{secrets.token_hex(6)}" for label in labels}
    admin = await asyncpg.connect(dsn)
    try:
        for name in names.values():
            await admin.execute(f'CREATE SCHEMA "{name}"')
        yield {label: with_schema(dsn, name) for label, name in names.items()}
    finally:
        for name in names.values():
            await admin.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
        await admin.close()
