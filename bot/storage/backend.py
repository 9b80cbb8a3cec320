"""What every store sees of a database, whichever engine is under it.

Two backends implement it: SQLite (`bot/storage/database.py`, the embedded default, one
process) and PostgreSQL (`bot/storage/postgres.py`, several replicas). Stores write one SQL
text per statement in SQLite's spelling (`?` placeholders, `INSERT OR IGNORE`); the
PostgreSQL backend rewrites it once per text (`bot/storage/dialect.py`). Where the engines
really differ (row locks, the catalogue) a store asks `db.dialect`, never the engine's name.
See docs/scaling.md, "Adding a store on both backends".
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from pathlib import Path
from typing import Any, Protocol

from bot.core.errors import SteadyError


class StorageError(SteadyError):
    """The database could not be opened or migrated."""


def pending(migrations: Sequence[tuple[int, str]], applied: Iterable[int]) -> list[tuple[int, str]]:
    """The migrations a database still needs, in order: every number it has not applied,
    not only those above its highest (a branch's lower number merged after a higher one
    ran must still run). A number the database has and this code does not know means a
    newer Steady migrated it: refused, since this code would misread its tables."""
    done = set(applied)
    unknown = sorted(done - {version for version, _ in migrations})
    if unknown:
        raise StorageError(
            f"the database has migration(s) {', '.join(map(str, unknown))} that this version "
            "does not know: a newer Steady opened it; run that version or restore a backup"
        )
    return [(version, sql) for version, sql in migrations if version not in done]


class Row(Protocol):
    """A result row: `row["column"]` or `row[0]` (sqlite3.Row and asyncpg.Record both)."""

    def __getitem__(self, key: Any, /) -> Any: ...


class Dialect(enum.Enum):
    SQLITE = "sqlite"
    POSTGRES = "postgres"

    @property
    def skip_locked(self) -> str:
        """Appended to a SELECT inside a transaction: lock the rows read, and leave rows
        another transaction holds to it. SQLite needs none: its writers never overlap."""
        return " FOR UPDATE SKIP LOCKED" if self is Dialect.POSTGRES else ""


Migrations = Sequence[tuple[int, str]]


class Leadership(ABC):
    """Whether this process is (one of) the replica(s) allowed to do a singleton's work."""

    @abstractmethod
    async def hold(self) -> bool:
        """True while this process holds it; tries to take it when free. Never blocks."""

    @abstractmethod
    async def close(self) -> None:
        """Let it go (a standby takes over at its next try)."""


class Subscription:
    """A LISTEN that stays up: `ensure` (re)connects when needed; SQLite's does nothing."""

    async def ensure(self) -> None:
        return None

    async def close(self) -> None:
        return None


class SoleLeadership(Leadership):
    """SQLite: one process per data dir (bot/datalock.py), so it is always the leader."""

    async def hold(self) -> bool:
        return True

    async def close(self) -> None:
        return None


class Tx(ABC):
    """One open transaction. Everything in it commits together or not at all."""

    @abstractmethod
    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """One statement; returns the number of rows it changed."""

    @abstractmethod
    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> int:
        """The statement once per parameter row; returns the rows changed in all."""

    @abstractmethod
    async def fetch_all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    async def fetch_one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        return next(iter(await self.fetch_all(sql, params)), None)

    async def lock(self, name: str) -> None:
        """Serialise this transaction with every other that takes `name`, on any replica,
        until it ends. SQLite's write transactions are serial already."""
        return None

    @abstractmethod
    async def defer_foreign_keys(self) -> None:
        """Check foreign keys at COMMIT (children and parent re-keyed in one transaction)."""


class Backend(ABC):
    dialect: Dialect
    # Shown in messages: a file name, or a database name (never a password).
    name: str

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    def transaction(self) -> AbstractAsyncContextManager[Tx]: ...

    @abstractmethod
    async def fetch_all(self, sql: str, params: Iterable[Any] = ()) -> list[Row]: ...

    async def fetch_one(self, sql: str, params: Iterable[Any] = ()) -> Row | None:
        return next(iter(await self.fetch_all(sql, params)), None)

    @abstractmethod
    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        """One write on its own (atomic without BEGIN); returns the rows changed."""

    @abstractmethod
    async def tables_with_column(self, column: str) -> list[str]:
        """Every table with this column (the person tables, whatever migrations added)."""

    @abstractmethod
    async def checkpoint(self) -> None:
        """Make deleted rows leave the engine's log where the engine allows it (SQLite's WAL).
        PostgreSQL keeps them in WAL and base backups: crypto-shredding protects them there."""

    @abstractmethod
    async def vacuum(self, tables: Sequence[str]) -> None:
        """Dead row versions of `tables` out of the table files, where the engine keeps them
        (PostgreSQL until a VACUUM). SQLite's secure_delete already zeroes them."""

    @abstractmethod
    async def backup_to(self, target: Path) -> None: ...

    def person_lock(self, handle: str) -> AbstractAsyncContextManager[None]:
        """Held while one replica handles one person's update. SQLite: one process, whose
        update processor already runs each chat in order, so nothing to take."""
        return nullcontext()

    async def notify(self, channel: str, payload: str) -> None:
        """Tell the other replicas something changed (PostgreSQL NOTIFY). SQLite: there are
        no other replicas."""
        return None

    def subscription(self, channel: str, callback: Callable[[str], None]) -> Subscription:
        """Hear `notify` on `channel` from every replica (self included)."""
        return Subscription()

    def leadership(self, name: str, *, slots: int = 1) -> Leadership:
        """Who may run the singleton `name` (the dispatcher): `slots` holders at most."""
        return SoleLeadership()


def is_postgres_url(target: str | Path) -> bool:
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))
