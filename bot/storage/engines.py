"""Open a database by what the configuration names: a file path (SQLite) or a
`postgresql://` URL (PostgreSQL), with that engine's migration list."""

from __future__ import annotations

from pathlib import Path

from bot.storage.backend import Backend, Migrations, is_postgres_url
from bot.storage.database import Database
from bot.storage.schema import KEYSTORE_MIGRATIONS, MIGRATIONS
from bot.storage.schema_postgres import POSTGRES_KEYSTORE_MIGRATIONS, POSTGRES_MIGRATIONS


async def open_backend(target: Path | str, sqlite: Migrations, postgres: Migrations) -> Backend:
    if is_postgres_url(target):
        # asyncpg loads only for PostgreSQL: a tenth of the imports before a SQLite bot's
        # first poll (issue 25).
        from bot.storage.postgres import PostgresDatabase  # noqa: PLC0415

        return await PostgresDatabase.open(str(target), postgres)
    return await Database.open(Path(target), sqlite)


async def open_data_database(target: Path | str) -> Backend:
    return await open_backend(target, MIGRATIONS, POSTGRES_MIGRATIONS)


async def open_key_database(target: Path | str) -> Backend:
    return await open_backend(target, KEYSTORE_MIGRATIONS, POSTGRES_KEYSTORE_MIGRATIONS)
