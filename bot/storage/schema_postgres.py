"""The PostgreSQL migration lists: one entry per SQLite migration, same numbers.

Most are SQLite's own script through the DDL rewrite (`ported`); a migration whose SQLite
form does not translate gets a hand-written script here instead, under the same number.
tests/storage/test_migration_parity.py fails, naming the number, when a SQLite migration
has no entry here, and naming the table and column when the two schemas differ.
Append only, like schema.py.
"""

from __future__ import annotations

from bot.storage.backend import Migrations
from bot.storage.dialect import ddl_to_postgres
from bot.storage.schema import KEYSTORE_MIGRATIONS, MIGRATIONS


def ported(source: Migrations, version: int) -> tuple[int, str]:
    """SQLite's migration `version`, rewritten for PostgreSQL."""
    for number, sql in source:
        if number == version:
            return version, ddl_to_postgres(sql)
    raise KeyError(f"no SQLite migration {version} to port")


POSTGRES_MIGRATIONS: tuple[tuple[int, str], ...] = (
    ported(MIGRATIONS, 1),
    ported(MIGRATIONS, 2),
    ported(MIGRATIONS, 3),
    ported(MIGRATIONS, 8),
)

POSTGRES_KEYSTORE_MIGRATIONS: tuple[tuple[int, str], ...] = (
    ported(KEYSTORE_MIGRATIONS, 1),
    ported(KEYSTORE_MIGRATIONS, 2),
    ported(KEYSTORE_MIGRATIONS, 3),
    ported(KEYSTORE_MIGRATIONS, 4),
)
