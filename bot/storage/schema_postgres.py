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


def _with_rowid(migration: tuple[int, str], *tables: str) -> tuple[int, str]:
    """SQLite's migration, plus SQLite's implicit `rowid` made explicit on PostgreSQL for
    tables whose store orders rows as they were added (`ORDER BY created_at, rowid`: parts
    written in the same second). An identity column counts up as rows are inserted, which
    is what rowid does in a table nothing is ever re-inserted into."""
    version, sql = migration
    extra = "".join(
        f"\nALTER TABLE {t} ADD COLUMN rowid BIGINT GENERATED ALWAYS AS IDENTITY;" for t in tables
    )
    return version, sql.rstrip().rstrip(";") + ";" + extra


POSTGRES_MIGRATIONS: tuple[tuple[int, str], ...] = (
    ported(MIGRATIONS, 1),
    ported(MIGRATIONS, 2),
    ported(MIGRATIONS, 3),
    _with_rowid(ported(MIGRATIONS, 4), "record_parts", "record_files"),
    ported(MIGRATIONS, 5),
    ported(MIGRATIONS, 6),
    ported(MIGRATIONS, 7),
    ported(MIGRATIONS, 8),
    ported(MIGRATIONS, 9),
)

POSTGRES_KEYSTORE_MIGRATIONS: tuple[tuple[int, str], ...] = (
    ported(KEYSTORE_MIGRATIONS, 1),
    ported(KEYSTORE_MIGRATIONS, 2),
    ported(KEYSTORE_MIGRATIONS, 3),
    ported(KEYSTORE_MIGRATIONS, 4),
    ported(KEYSTORE_MIGRATIONS, 5),
    ported(KEYSTORE_MIGRATIONS, 6),
)
