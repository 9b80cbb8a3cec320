"""SQLite: one aiosqlite connection per database file, its pragmas, transactions, migrations."""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from bot.storage.backend import Backend, Dialect, Row, StorageError, Tx, pending

__all__ = ["Database", "Row", "SqliteTx", "StorageError", "make_private"]

BUSY_TIMEOUT_MS = 5000
CHECKPOINT_ATTEMPTS = 10
log = logging.getLogger(__name__)


class SqliteTx(Tx):
    def __init__(self, conn: aiosqlite.Connection) -> None:
        self.conn = conn

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        async with self.conn.execute(sql, tuple(params)) as cursor:
            return max(cursor.rowcount, 0)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> int:
        batch = [tuple(r) for r in rows]
        if not batch:
            return 0
        async with self.conn.executemany(sql, batch) as cursor:
            return max(cursor.rowcount, 0)

    async def fetch_all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return list(await self.conn.execute_fetchall(sql, tuple(params)))

    async def defer_foreign_keys(self) -> None:
        await self.conn.execute("PRAGMA defer_foreign_keys = ON")


class Database(Backend):
    """A connection with WAL, foreign keys, secure_delete, and serialised write transactions.

    aiosqlite runs every statement on one thread; the write lock keeps two tasks from
    interleaving statements inside one transaction.
    """

    dialect = Dialect.SQLITE

    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        self.name = path.name
        self._write_lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: Path, migrations: Sequence[tuple[int, str]]) -> Database:
        try:
            make_private(path)
            conn = await aiosqlite.connect(path, isolation_level=None)
        except sqlite3.Error as exc:
            raise StorageError(f"cannot open {path}: {exc}") from None
        conn.row_factory = sqlite3.Row
        db = cls(conn, path)
        try:
            for pragma in (
                "PRAGMA journal_mode=WAL",
                "PRAGMA foreign_keys=ON",
                f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}",
                # Deleted rows are overwritten with zeros, not left in free pages.
                "PRAGMA secure_delete=ON",
                # An acknowledged answer survives power loss, not only a process crash.
                "PRAGMA synchronous=FULL",
            ):
                await conn.execute(pragma)
            await db.migrate(migrations)
        except sqlite3.Error as exc:
            await conn.close()
            raise StorageError(f"cannot prepare {path}: {exc}") from None
        except BaseException:  # a refused migration too: the connection's thread must end
            await conn.close()
            raise
        return db

    async def close(self) -> None:
        await self.conn.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Tx]:
        async with self._write_lock:
            await self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield SqliteTx(self.conn)
            except BaseException:
                await self.conn.execute("ROLLBACK")
                raise
            await self.conn.execute("COMMIT")

    # Each call below is one trip to aiosqlite's thread (execute and fetch together): under
    # load the hand-offs between threads cost more than the queries themselves.

    async def fetch_one(self, sql: str, params: Iterable[Any] = ()) -> Row | None:
        rows = await self.conn.execute_fetchall(sql, tuple(params))
        return next(iter(rows), None)

    async def fetch_all(self, sql: str, params: Iterable[Any] = ()) -> list[Row]:
        return list(await self.conn.execute_fetchall(sql, tuple(params)))

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        """One write; returns the number of rows changed. A single statement is atomic on its
        own, so no BEGIN/COMMIT; the lock keeps it out of another task's open transaction."""
        async with self._write_lock:
            before = self.conn.total_changes
            await self.conn.execute_fetchall(sql, tuple(params))
            return self.conn.total_changes - before

    async def migrate(self, migrations: Sequence[tuple[int, str]]) -> None:
        await self.conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"
        )
        rows = await self.fetch_all("SELECT version FROM schema_version")
        for version, sql in pending(migrations, (int(row["version"]) for row in rows)):
            async with self.transaction() as tx:
                for statement in split_statements(sql):
                    await tx.execute(statement)
                await tx.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))

    async def tables_with_column(self, column: str) -> list[str]:
        tables = await self.fetch_all(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
        found: list[str] = []
        for table in tables:
            name = str(table["name"])
            columns = await self.fetch_all(f"PRAGMA table_info({name})")
            if any(str(c["name"]) == column for c in columns):
                found.append(name)
        return found

    async def vacuum(self, tables: Sequence[str]) -> None:
        """Nothing: secure_delete zeroes a deleted row's bytes as it goes."""

    async def checkpoint(self) -> None:
        """Fold the WAL into the main file and truncate it, so deleted data leaves the WAL.

        Under the write lock (a checkpoint cannot run inside another task's transaction on
        this connection). A reader elsewhere (a backup) can keep frames in use: then retry,
        and say so if the WAL could not be emptied."""
        for attempt in range(CHECKPOINT_ATTEMPTS):
            async with self._write_lock:
                rows = list(await self.conn.execute_fetchall("PRAGMA wal_checkpoint(TRUNCATE)"))
            busy = bool(rows and rows[0][0])
            if not busy:
                return
            await asyncio.sleep(0.05 * (attempt + 1))
        log.warning("WAL checkpoint stayed busy; deleted data may linger in %s-wal", self.path.name)

    async def backup_to(self, target: Path) -> None:
        # VACUUM INTO writes into an empty file that exists: made 0600 first, so the copy
        # is never readable by others, whatever the umask (issue 27.8).
        make_private(target)
        # Under the write lock: VACUUM cannot run inside another task's open transaction.
        async with self._write_lock:
            await self.conn.execute("VACUUM INTO ?", (str(target),))


def make_private(path: Path) -> None:
    """The database file, created or not, readable by its owner only, whatever the umask.
    SQLite gives its -wal and -shm files the main file's mode, so they follow."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise StorageError(f"cannot open {path}: {exc.strerror}") from None
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
    for suffix in ("-wal", "-shm", "-journal"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            side.chmod(0o600)


def split_statements(script: str) -> list[str]:
    """Split a migration on ';' (executescript would commit our transaction early)."""
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements
