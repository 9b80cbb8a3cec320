"""The two migration lists describe one schema: same numbers, same tables and columns.

A SQLite migration added without its PostgreSQL entry fails here, named by number, and a
PostgreSQL schema that came out different (a hand-written script) is named by table and
column. docs/scaling.md, "Adding a store on both backends".
"""

from __future__ import annotations

from pathlib import Path

import asyncpg

from bot.storage.backend import Migrations
from bot.storage.database import Database
from bot.storage.postgres import PostgresDatabase
from bot.storage.schema import KEYSTORE_MIGRATIONS, MIGRATIONS
from bot.storage.schema_postgres import POSTGRES_KEYSTORE_MIGRATIONS, POSTGRES_MIGRATIONS
from tests.helpers.postgres import fresh_schemas

PAIRS = {
    "data (MIGRATIONS / POSTGRES_MIGRATIONS)": (MIGRATIONS, POSTGRES_MIGRATIONS),
    "key store (KEYSTORE_MIGRATIONS / POSTGRES_KEYSTORE_MIGRATIONS)": (
        KEYSTORE_MIGRATIONS,
        POSTGRES_KEYSTORE_MIGRATIONS,
    ),
}
Columns = dict[str, dict[str, bool]]  # table -> column -> NOT NULL


def version_problems(label: str, sqlite: Migrations, postgres: Migrations) -> list[str]:
    ours = [v for v, _ in sqlite]
    theirs = [v for v, _ in postgres]
    problems = [
        f"{label}: SQLite migration {v} has no PostgreSQL counterpart; add"
        f" `ported(..., {v})` (or a hand-written script numbered {v}) to"
        " bot/storage/schema_postgres.py"
        for v in ours
        if v not in theirs
    ]
    problems += [
        f"{label}: PostgreSQL migration {v} has no SQLite migration of that number"
        for v in theirs
        if v not in ours
    ]
    if not problems and ours != theirs:
        problems.append(f"{label}: the two lists are in different orders: {ours} / {theirs}")
    return problems


def test_every_migration_has_both_forms() -> None:
    problems = [p for label, (a, b) in PAIRS.items() for p in version_problems(label, a, b)]
    assert not problems, "\n".join(problems)


def test_the_parity_check_names_what_is_missing() -> None:
    problems = version_problems("data", (*MIGRATIONS, (99, "")), MIGRATIONS)
    assert problems == [
        "data: SQLite migration 99 has no PostgreSQL counterpart; add `ported(..., 99)`"
        " (or a hand-written script numbered 99) to bot/storage/schema_postgres.py"
    ]


async def sqlite_columns(path: Path, migrations: Migrations) -> Columns:
    db = await Database.open(path, migrations)
    try:
        found: Columns = {}
        tables = await db.fetch_all(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
        for table in tables:
            name = str(table["name"])
            rows = await db.fetch_all(f"PRAGMA table_info({name})")
            # A PRIMARY KEY column is NOT NULL in PostgreSQL whether or not it says so.
            found[name] = {str(r["name"]): bool(r["notnull"]) or bool(r["pk"]) for r in rows}
        return found
    finally:
        await db.close()


async def postgres_columns(url: str, migrations: Migrations) -> Columns:
    db = await PostgresDatabase.open(url, migrations)
    try:
        rows: list[asyncpg.Record] = await db.pool.fetch(
            "SELECT table_name, column_name, is_nullable FROM information_schema.columns"
            " WHERE table_schema = current_schema()"
        )
        found: Columns = {}
        for r in rows:
            found.setdefault(str(r["table_name"]), {})[str(r["column_name"])] = (
                r["is_nullable"] == "NO"
            )
        return found
    finally:
        await db.close()


def schema_problems(label: str, sqlite: Columns, postgres: Columns) -> list[str]:
    problems = []
    for table in sorted(sqlite.keys() | postgres.keys()):
        if table not in postgres:
            problems.append(f"{label}: table {table} is missing on PostgreSQL")
            continue
        if table not in sqlite:
            problems.append(f"{label}: table {table} exists only on PostgreSQL")
            continue
        for column in sorted(sqlite[table].keys() | postgres[table].keys()):
            a, b = sqlite[table].get(column), postgres[table].get(column)
            if b is None:
                problems.append(f"{label}: {table}.{column} is missing on PostgreSQL")
            elif a is None and column == "rowid":
                continue  # SQLite's implicit rowid, made explicit (schema_postgres._with_rowid)
            elif a is None:
                problems.append(f"{label}: {table}.{column} exists only on PostgreSQL")
            elif a != b:
                problems.append(f"{label}: {table}.{column} is NOT NULL on one engine only")
    return problems


async def test_both_engines_build_the_same_tables(tmp_path: Path) -> None:
    problems: list[str] = []
    async with fresh_schemas("data", "keys") as urls:
        for (label, (sqlite, postgres)), url, name in zip(
            PAIRS.items(), (urls["data"], urls["keys"]), ("d", "k"), strict=True
        ):
            problems += schema_problems(
                label,
                await sqlite_columns(tmp_path / f"{name}.sqlite3", sqlite),
                await postgres_columns(url, postgres),
            )
    assert not problems, "\n".join(problems)


def test_the_schema_check_names_table_and_column() -> None:
    sqlite = {"record": {"person_id": True, "note_enc": True}}
    postgres = {"record": {"person_id": True}}
    assert schema_problems("data", sqlite, postgres) == [
        "data: record.note_enc is missing on PostgreSQL"
    ]
