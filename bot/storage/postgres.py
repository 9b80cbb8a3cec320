"""PostgreSQL on asyncpg: a connection pool, transactions, migrations, advisory locks.

The same stores run on it as on SQLite (bot/storage/backend.py); their SQL is rewritten by
bot/storage/dialect.py. Several replicas share one database: migrations run under an
advisory lock, so replicas starting together apply each one once.

No `secure_delete` here: a deleted row stays in WAL segments and base backups until they
age out. What protects a forgotten person is that their data key (in the key store's own
database, backed up apart) is gone: the rows left behind cannot be opened. README,
"Privacy model".
"""

from __future__ import annotations

import asyncio
import logging
import re
import zlib
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import asyncpg

from bot.storage.backend import (
    Backend,
    Dialect,
    Leadership,
    Migrations,
    Row,
    StorageError,
    Subscription,
    Tx,
    pending,
)
from bot.storage.database import split_statements
from bot.storage.dialect import to_postgres
from bot.storage.pg_url import PgUrlError, display_name, parse

log = logging.getLogger(__name__)

POOL_MIN = 1
POOL_MAX = 10
# Connections that only hold per-person locks while an update is handled: apart from the
# main pool, so a handler holding a lock never waits for a connection a lock holds.
LOCK_POOL_MAX = 16
CONNECT_TIMEOUT = 10.0
_COUNT = re.compile(r"(\d+)$")


def lock_key(name: str, space: str = "") -> int:
    """A stable 63-bit advisory-lock key for a name (the same on every replica). Advisory
    locks belong to the whole database: `space` (the URL's schema) keeps two deployments in
    two schemas of one database from taking each other's locks (the dispatcher's above all:
    one would never send)."""
    scope = f"{space}:" if space else ""
    return zlib.crc32(f"steady:{scope}{name}".encode()) | (0x5354 << 32)


def lock_space(url: str) -> str:
    """The schema a URL names (`?search_path=`), the space of its advisory locks."""
    try:
        return parse(url).schema
    except PgUrlError:
        return ""


MIGRATION_LOCK = lock_key("migrations")
# The key tables' rewrite after a deletion (PostgresDatabase.vacuum).
_VACUUM_ATTEMPTS = 6
_VACUUM_PAUSE = 0.05  # seconds, doubling: about 3 s in all
_VACUUM_LOCK_TIMEOUT = "2s"
_KEPT_DEAD = re.compile(r"(\d+) dead row versions cannot be removed yet")


def _changed(status: str) -> int:
    """asyncpg returns the command tag ("UPDATE 3", "INSERT 0 1"); its last number counts."""
    match = _COUNT.search(status or "")
    return int(match.group(1)) if match else 0


async def _nothing_to_reset(conn: asyncpg.Connection) -> None:
    """The main pool's connections keep no session state: locks that outlive a transaction,
    LISTEN and session settings each have connections of their own (the lock pool, the
    leadership's and the subscription's). So a connection going back to the pool skips
    asyncpg's default reset query, a round trip after every statement that was a fifth of
    the dispatcher's CPU on PostgreSQL (docs/performance.md). asyncpg still rolls back a
    transaction left open before calling this."""


class AdvisoryLeadership(Leadership):
    """A session advisory lock on a connection of its own, outside the pool.

    PostgreSQL releases it when that session ends, however it ends: a replica killed with
    -9, a lost network or a closed connection frees it for a standby's next try, with no
    lease to expire and no clock to trust. Each `hold` proves the session still lives.
    """

    def __init__(self, url: str, name: str, slots: int, space: str = "") -> None:
        self._url = url
        self._keys = [lock_key(f"{name}:{slot}", space) for slot in range(max(1, slots))]
        self._name = name
        self._conn: asyncpg.Connection | None = None

    async def hold(self) -> bool:
        if self._conn is not None:
            try:
                await self._conn.fetchval("SELECT 1", timeout=CONNECT_TIMEOUT)
                return True
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError):
                log.warning("lost the %s lock's connection; trying again", self._name)
                await self._drop()
        try:
            conn = await asyncpg.connect(self._url, timeout=CONNECT_TIMEOUT)
        except (OSError, asyncpg.PostgresError, TimeoutError):
            return False
        try:
            for key in self._keys:
                if await conn.fetchval("SELECT pg_try_advisory_lock($1)", key):
                    self._conn = conn
                    log.info("this replica now runs the %s", self._name)
                    return True
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError):
            pass
        await conn.close()
        return False

    async def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.terminate()

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is None or conn.is_closed():
            return
        try:
            await conn.close(timeout=CONNECT_TIMEOUT)  # ends the session: the lock is free
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError):
            conn.terminate()


class PostgresSubscription(Subscription):
    """LISTEN on a connection of its own. A notification sent while it is down is missed:
    what it guards (the crisis cache) has a short time-to-live as the backstop."""

    def __init__(self, url: str, channel: str, callback: Callable[[str], None]) -> None:
        self._url = url
        self._channel = channel
        self._callback = callback
        self._conn: asyncpg.Connection | None = None

    def _heard(self, conn: object, pid: int, channel: str, payload: str) -> None:
        self._callback(payload)

    async def ensure(self) -> None:
        if self._conn is not None and not self._conn.is_closed():
            return
        try:
            conn = await asyncpg.connect(self._url, timeout=CONNECT_TIMEOUT)
            await conn.add_listener(self._channel, self._heard)
        except (OSError, asyncpg.PostgresError, TimeoutError):
            return  # next time; the TTL covers the gap
        self._conn = conn

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None and not conn.is_closed():
            try:
                await conn.close(timeout=CONNECT_TIMEOUT)
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError):
                conn.terminate()


class PostgresTx(Tx):
    def __init__(self, conn: asyncpg.Connection, space: str = "") -> None:
        self.conn = conn
        self._space = space  # the schema: advisory locks are the database's (lock_key)

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return _changed(await self.conn.execute(to_postgres(sql), *params))

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> int:
        # One prepared statement, run per row: asyncpg's executemany reports no row count,
        # and claims need it (a count that differs from the plan rolls the claim back).
        statement = await self.conn.prepare(to_postgres(sql))
        changed = 0
        for row in rows:
            await statement.fetch(*row)
            changed += _changed(statement.get_statusmsg())
        return changed

    async def fetch_all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return list(await self.conn.fetch(to_postgres(sql), *params))

    async def defer_foreign_keys(self) -> None:
        await self.conn.execute("SET CONSTRAINTS ALL DEFERRED")

    async def lock(self, name: str) -> None:
        """Held until this transaction ends (commit, rollback, or the connection dying)."""
        await self.conn.execute("SELECT pg_advisory_xact_lock($1)", lock_key(name, self._space))


class PostgresDatabase(Backend):
    dialect = Dialect.POSTGRES

    def __init__(self, pool: asyncpg.Pool, url: str) -> None:
        self.pool = pool
        self.url = url
        self.name = display_name(url)
        self._space = lock_space(url)
        self._lock_pool: asyncpg.Pool | None = None
        self._lock_pool_made = asyncio.Lock()

    @classmethod
    async def open(
        cls, url: str, migrations: Migrations, *, pool_max: int = POOL_MAX
    ) -> PostgresDatabase:
        try:
            pool = await asyncpg.create_pool(
                url,
                min_size=POOL_MIN,
                max_size=pool_max,
                timeout=CONNECT_TIMEOUT,
                reset=_nothing_to_reset,
            )
        except (OSError, asyncpg.PostgresError, TimeoutError, ValueError) as exc:
            raise StorageError(
                f"cannot connect to PostgreSQL at {display_name(url)}: {type(exc).__name__}"
            ) from None
        db = cls(pool, url)
        try:
            await db.migrate(migrations)
        except asyncpg.PostgresError as exc:
            await pool.close()
            raise StorageError(f"cannot prepare {db.name}: {exc}") from None
        except BaseException:  # a refused migration too: no pool left open behind it
            await pool.close()
            raise
        return db

    async def close(self) -> None:
        if self._lock_pool is not None:
            await self._lock_pool.close()
        await self.pool.close()

    @asynccontextmanager
    async def person_lock(self, handle: str) -> AsyncIterator[None]:
        """A session advisory lock keyed by the person's handle (an HMAC: pg_locks shows 32
        bits of it, nothing about the person), released however the holder ends."""
        async with self._lock_pool_made:
            if self._lock_pool is None:
                self._lock_pool = await asyncpg.create_pool(
                    self.url, min_size=0, max_size=LOCK_POOL_MAX, timeout=CONNECT_TIMEOUT
                )
        key = lock_key("person:" + handle, self._space)
        async with self._lock_pool.acquire() as conn:
            await conn.execute("SELECT pg_advisory_lock($1)", key)
            try:
                yield
            finally:
                await conn.execute("SELECT pg_advisory_unlock($1)", key)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[PostgresTx]:
        async with self.pool.acquire() as conn, conn.transaction():
            yield PostgresTx(conn, self._space)

    async def fetch_all(self, sql: str, params: Iterable[Any] = ()) -> list[Row]:
        return list(await self.pool.fetch(to_postgres(sql), *params))

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        return _changed(await self.pool.execute(to_postgres(sql), *params))

    async def migrate(self, migrations: Migrations) -> None:
        """All pending migrations in one transaction, under a lock every replica takes."""
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)"
            )
            rows = await conn.fetch("SELECT version FROM schema_version")
            for version, sql in pending(migrations, (int(row["version"]) for row in rows)):
                for statement in split_statements(sql):
                    await conn.execute(statement)
                await conn.execute("INSERT INTO schema_version (version) VALUES ($1)", version)

    async def checkpoint(self) -> None:
        """Nothing to fold: PostgreSQL keeps deleted rows in WAL and base backups until they
        age out, and the shredded data key is what makes them unreadable."""

    async def vacuum(self, tables: Sequence[str]) -> None:
        """VACUUM FULL: each table and its indexes rewritten into new files. A plain VACUUM
        is not enough: it frees a deleted row's space but leaves its bytes in the page's
        hole until something overwrites them (seen for the newest row of a page, issue
        27.4). A row version an older snapshot may still see (any transaction in this
        database, another replica's or another application's) is copied into the new
        files too: VERBOSE says how many, and the rewrite is tried again after a pause
        until none is left. The exclusive lock it takes is bounded by a lock timeout, so
        a long transaction elsewhere delays nothing for long (the crisis path reads
        identities from memory). Outside any transaction, as VACUUM requires; the names
        are the schema's own."""
        kept: int | None = 0
        for attempt in range(_VACUUM_ATTEMPTS):
            try:
                kept = await self._vacuum_full(tables)
            except asyncpg.LockNotAvailableError:
                log.warning(
                    "key tables not rewritten: a transaction held them; the next deletion does it"
                )
                return
            if not kept:
                return
            await asyncio.sleep(_VACUUM_PAUSE * 2**attempt)
        log.warning(
            "key tables: %d deleted row versions wait for an older transaction; "
            "the next deletion's rewrite takes them",
            kept,
        )

    async def _vacuum_full(self, tables: Sequence[str]) -> int | None:
        """How many dead row versions the rewrite had to keep (None: not reported)."""
        notices: list[str] = []

        def heard(_: object, message: asyncpg.PostgresLogMessage) -> None:
            notices.append(str(getattr(message, "detail", "") or ""))

        async with self.pool.acquire() as conn:
            conn.add_log_listener(heard)
            try:
                await conn.execute(f"SET lock_timeout = '{_VACUUM_LOCK_TIMEOUT}'")
                await conn.execute(f"VACUUM (FULL, VERBOSE) {', '.join(tables)}")
            finally:
                await conn.execute("RESET lock_timeout")
                conn.remove_log_listener(heard)
        counts = [int(m.group(1)) for n in notices if (m := _KEPT_DEAD.search(n))]
        return sum(counts) if counts else None

    async def tables_with_column(self, column: str) -> list[str]:
        rows = await self.pool.fetch(
            "SELECT table_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND column_name = $1 ORDER BY table_name",
            column,
        )
        return [str(r["table_name"]) for r in rows]

    def leadership(self, name: str, *, slots: int = 1) -> Leadership:
        return AdvisoryLeadership(self.url, name, slots, self._space)

    async def notify(self, channel: str, payload: str) -> None:
        await self.pool.execute("SELECT pg_notify($1, $2)", channel, payload)

    def subscription(self, channel: str, callback: Callable[[str], None]) -> Subscription:
        return PostgresSubscription(self.url, channel, callback)

    async def backup_to(self, target: Path) -> None:
        raise StorageError(
            "PostgreSQL is backed up with pg_dump or the server's own backups; keep the key "
            "store's database and its backups apart from the data database's"
        )
