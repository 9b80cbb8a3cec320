"""SQL for daily prompts: due people, delivery records, claims, results, snoozes.

A delivery record is the row `deliveries (person_id, local_date)`: one per person per local
date, whatever happens. Its status moves through

    claimed -> sent | failed          (a claimed row that stays claimed: outcome unknown)
    sent -> snoozed -> claimed -> sent (a "remind me in an hour" re-send of the same day)
    skipped                           (too late after downtime, or "skip today")

See docs/scheduling.md for why the record and the advance of `people.next_due_*` are
written in one transaction, and what a crash between claim and send means.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from bot.core.errors import SteadyError
from bot.storage.backend import Backend, Dialect, Row, Tx

CLAIMED = "claimed"
SENT = "sent"
FAILED = "failed"
SKIPPED = "skipped"
SNOOZED = "snoozed"
# Statuses whose prompt the person has (or may have) seen: the prompt-cycle history.
DELIVERED = (CLAIMED, SENT, SNOOZED)

# SQLite's default limit on host parameters is 32766 (999 before 3.32); stay far below it.
_CHUNK = 500


class ClaimConflictError(SteadyError):
    """A claim wrote a different number of rows than it planned: nothing was committed."""


@dataclass(frozen=True, slots=True)
class DueRow:
    person_id: str
    chat_enc: bytes
    profile_enc: bytes
    next_due_utc: int
    next_due_date: str


@dataclass(frozen=True, slots=True)
class Version:
    """What a claim re-checks: if any of it moved since the row was read, skip the row.

    The sealed blobs stand in for "the settings changed": every save re-seals with a fresh
    nonce, so even a change within the same second shows (a timestamp would not).
    """

    next_due_utc: int | None
    next_due_date: str | None
    active: bool
    profile_enc: bytes
    chat_enc: bytes


@dataclass(frozen=True, slots=True)
class DeliveryRow:
    local_date: str
    prompt_id: str
    status: str
    message_id: int | None
    claimed_at: int


def _delivery(row: Row) -> DeliveryRow:
    return DeliveryRow(
        local_date=str(row["local_date"]),
        prompt_id=str(row["prompt_id"]),
        status=str(row["status"]),
        message_id=None if row["message_id"] is None else int(row["message_id"]),
        claimed_at=int(row["claimed_at"]),
    )


_DELIVERY_COLUMNS = "local_date, prompt_id, status, message_id, claimed_at"
# Oldest first, on the partial index people_due. Both due columns are always written
# together; a row missing its date is skipped here rather than left at the head of every
# batch.
_DUE = (
    "SELECT person_id, chat_enc, profile_enc, next_due_utc, next_due_date"
    " FROM people WHERE next_due_utc IS NOT NULL AND active = 1 AND next_due_utc <= ?"
    " AND next_due_date IS NOT NULL ORDER BY next_due_utc LIMIT ?"
)
_VERSION_COLUMNS = "person_id, next_due_utc, next_due_date, active, profile_enc, chat_enc"


def _chunks(items: Sequence[str]) -> Iterable[Sequence[str]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]


def _due_row(r: Row) -> DueRow:
    return DueRow(
        person_id=str(r["person_id"]),
        chat_enc=bytes(r["chat_enc"]),
        profile_enc=bytes(r["profile_enc"]),
        next_due_utc=int(r["next_due_utc"]),
        next_due_date=str(r["next_due_date"]),
    )


def _version(row: Row) -> Version:
    return Version(
        None if row["next_due_utc"] is None else int(row["next_due_utc"]),
        None if row["next_due_date"] is None else str(row["next_due_date"]),
        bool(row["active"]),
        bytes(row["profile_enc"]),
        bytes(row["chat_enc"]),
    )


Fetch = Callable[[str, Sequence[Any]], Awaitable[list[Row]]]


async def _versions(fetch: Fetch, person_ids: Sequence[str], lock: str) -> dict[str, Version]:
    found: dict[str, Version] = {}
    for chunk in _chunks(person_ids):
        marks = ",".join("?" * len(chunk))
        sql = f"SELECT {_VERSION_COLUMNS} FROM people WHERE person_id IN ({marks}){lock}"  # noqa: S608 - placeholders only
        for row in await fetch(sql, chunk):
            found[str(row["person_id"])] = _version(row)
    return found


async def _histories(fetch: Fetch, person_ids: Sequence[str]) -> dict[str, list[DeliveryRow]]:
    found: dict[str, list[DeliveryRow]] = {pid: [] for pid in person_ids}
    for chunk in _chunks(person_ids):
        marks = ",".join("?" * len(chunk))
        rows = await fetch(
            f"SELECT person_id, {_DELIVERY_COLUMNS} FROM deliveries"  # noqa: S608 - placeholders only
            f" WHERE person_id IN ({marks}) ORDER BY person_id, local_date",
            chunk,
        )
        for row in rows:
            found[str(row["person_id"])].append(_delivery(row))
    return found


@dataclass
class ClaimWrites:
    """Everything one claim transaction writes, as executemany parameter lists."""

    # (person_id, local_date, prompt_id, status, claimed_at): new records, claimed or skipped
    records: list[tuple[str, str, str, str, int]]
    # (claimed_at, person_id, local_date): snoozed -> claimed, a re-send of the same day
    resends: list[tuple[int, str, str]]
    # (person_id, local_date): snoozed -> sent, a re-send that came too late
    restores: list[tuple[str, str]]
    # (next_due_utc, next_due_date, person_id): the advance to the next occurrence
    advances: list[tuple[int | None, str | None, str]]


class ClaimTransaction:
    """The write half of a claim, in one transaction: re-check, then write.

    On SQLite the transaction is BEGIN IMMEDIATE: no other writer runs until it ends. On
    PostgreSQL the re-check locks the people rows it reads (FOR UPDATE SKIP LOCKED): a row
    another dispatcher or a handler holds is left out, as a row that moved would be, and
    nobody can change a claimed row until the delivery record is committed with it.
    """

    def __init__(self, tx: Tx, dialect: Dialect) -> None:
        self._tx = tx
        self._dialect = dialect

    async def due(self, now: int, limit: int) -> list[DueRow]:
        """The next due rows nobody else is claiming, locked until this claim commits
        (PostgreSQL): a second dispatcher's read skips them and takes the rows after."""
        rows = await self._tx.fetch_all(_DUE + self._dialect.skip_locked, (now, limit))
        return [_due_row(r) for r in rows]

    async def histories(self, person_ids: Sequence[str]) -> dict[str, list[DeliveryRow]]:
        return await _histories(self._tx.fetch_all, person_ids)

    async def versions(self, person_ids: Sequence[str]) -> dict[str, Version]:
        return await _versions(self._tx.fetch_all, person_ids, self._dialect.skip_locked)

    async def statuses(self, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
        """Current status of each (person_id, local_date) record that exists."""
        found: dict[tuple[str, str], str] = {}
        wanted = set(keys)
        ids = sorted({pid for pid, _ in keys})
        for chunk in _chunks(ids):
            marks = ",".join("?" * len(chunk))
            sql = (
                f"SELECT person_id, local_date, status FROM deliveries WHERE person_id IN ({marks})"  # noqa: S608 - placeholders only
            )
            for row in await self._tx.fetch_all(sql, chunk):
                key = (str(row["person_id"]), str(row["local_date"]))
                if key in wanted:
                    found[key] = str(row["status"])
        return found

    async def write(self, writes: ClaimWrites) -> None:
        tx = self._tx
        if writes.records:
            changed = await tx.executemany(
                "INSERT INTO deliveries (person_id, local_date, prompt_id, status, claimed_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (person_id, local_date) DO NOTHING",
                writes.records,
            )
            _expect(changed, len(writes.records))
        if writes.resends:
            changed = await tx.executemany(
                "UPDATE deliveries SET status = 'claimed', claimed_at = ?, message_id = NULL"
                " WHERE person_id = ? AND local_date = ? AND status = 'snoozed'",
                writes.resends,
            )
            _expect(changed, len(writes.resends))
        if writes.restores:
            changed = await tx.executemany(
                "UPDATE deliveries SET status = 'sent'"
                " WHERE person_id = ? AND local_date = ? AND status = 'snoozed'",
                writes.restores,
            )
            _expect(changed, len(writes.restores))
        if writes.advances:
            await tx.executemany(
                "UPDATE people SET next_due_utc = ?, next_due_date = ? WHERE person_id = ?",
                writes.advances,
            )


def _expect(changed: int, planned: int) -> None:
    if changed != planned:
        # Raising rolls the whole claim back: better no prompt this pass than a double one.
        raise ClaimConflictError(f"claim wrote {changed} rows, planned {planned}")


class DeliveryStore:
    def __init__(self, db: Backend) -> None:
        self.db = db

    # --- the dispatcher ---------------------------------------------------------------

    @property
    def locks_rows(self) -> bool:
        """Whether a claim can lock the rows it reads (PostgreSQL), so that the whole claim,
        read included, is one transaction; SQLite's one writer locks the whole file."""
        return self.db.dialect is Dialect.POSTGRES

    async def due(self, now: int, limit: int) -> list[DueRow]:
        """People whose next prompt is due, oldest first, read without locking."""
        return [_due_row(r) for r in await self.db.fetch_all(_DUE, (now, limit))]

    async def current(self, person_ids: Sequence[str]) -> dict[str, Version]:
        """What each person's row holds now (the re-read just before their send)."""
        return await _versions(self.db.fetch_all, person_ids, "")

    async def due_count(self, now: int) -> int:
        row = await self.db.fetch_one(
            "SELECT COUNT(*) AS n FROM people WHERE next_due_utc IS NOT NULL AND active = 1"
            " AND next_due_utc <= ?",
            (now,),
        )
        return 0 if row is None else int(row["n"])

    async def histories(self, person_ids: Sequence[str]) -> dict[str, list[DeliveryRow]]:
        """Every record of each person, oldest local date first."""
        return await _histories(self.db.fetch_all, person_ids)

    @asynccontextmanager
    async def claiming(self) -> AsyncIterator[ClaimTransaction]:
        async with self.db.transaction() as tx:
            yield ClaimTransaction(tx, self.db.dialect)

    async def record_results(
        self,
        sent: Sequence[tuple[str, str, int, int]],
        failed: Sequence[tuple[str, str, int]],
    ) -> None:
        """`sent`: (person_id, local_date, message_id, sent_at); `failed`: (person_id, date,
        when the send failed).

        Only rows still `claimed`, and claimed no later than the result, change: a late
        result (a write retried after storage came back) never overwrites a newer state,
        nor the claim of the same day's re-send after a snooze. The message id is also kept
        for /clear; a person who used /forget in the meantime has no row left, and the
        EXISTS keeps the foreign key from failing the whole batch.
        """
        async with self.db.transaction() as tx:
            if sent:
                await tx.executemany(
                    "UPDATE deliveries SET status = 'sent', message_id = ?"
                    " WHERE person_id = ? AND local_date = ? AND status = 'claimed'"
                    " AND claimed_at <= ?",
                    [(mid, pid, day, at) for pid, day, mid, at in sent],
                )
                await tx.executemany(
                    "INSERT OR IGNORE INTO chat_messages (person_id, message_id, sent_at)"
                    " SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM people WHERE person_id = ?)",
                    [(pid, mid, at, pid) for pid, _, mid, at in sent],
                )
            if failed:
                await tx.executemany(
                    "UPDATE deliveries SET status = 'failed'"
                    " WHERE person_id = ? AND local_date = ? AND status = 'claimed'"
                    " AND claimed_at <= ?",
                    failed,
                )

    async def release(
        self,
        new: Sequence[tuple[str, str]],
        resends: Sequence[tuple[str, str]],
        restore_due: Sequence[tuple[int, str, str, int | None, str | None]],
    ) -> None:
        """Undo claims whose send never started (shutdown): they were certainly not sent.

        `new`: (person_id, local_date) records to delete; `resends`: back to snoozed;
        `restore_due`: (due, date, person_id, advanced_due, advanced_date), put back only
        if nothing else moved the person's next due instant since the claim.
        """
        async with self.db.transaction() as tx:
            await tx.executemany(
                "DELETE FROM deliveries WHERE person_id = ? AND local_date = ?"
                " AND status = 'claimed'",
                new,
            )
            await tx.executemany(
                "UPDATE deliveries SET status = 'snoozed'"
                " WHERE person_id = ? AND local_date = ? AND status = 'claimed'",
                resends,
            )
            await tx.executemany(
                "UPDATE people SET next_due_utc = ?, next_due_date = ? WHERE person_id = ?"
                " AND next_due_utc IS ? AND next_due_date IS ?",
                restore_due,
            )

    async def deactivate(self, person_id: str, now: int, *, unless_changed_after: int) -> None:
        """Telegram said the bot is blocked: no more sends until they come back. A row
        changed since the send began (they unblocked and wrote /start meanwhile) is left
        alone, so a late 403 cannot undo their return."""
        await self.db.execute(
            "UPDATE people SET active = 0, next_due_utc = NULL, next_due_date = NULL,"
            " updated_at = ? WHERE person_id = ? AND updated_at <= ?",
            (now, person_id, unless_changed_after),
        )

    # --- one person ---------------------------------------------------------------------

    async def record(self, person_id: str, local_date: str) -> DeliveryRow | None:
        row = await self.db.fetch_one(
            f"SELECT {_DELIVERY_COLUMNS} FROM deliveries"  # noqa: S608 - constant columns
            " WHERE person_id = ? AND local_date = ?",
            (person_id, local_date),
        )
        return None if row is None else _delivery(row)

    async def latest_delivered(self, person_id: str, *, maybe: bool = False) -> DeliveryRow | None:
        """The newest record whose prompt went out (sent, or sent and snoozed); with `maybe`,
        also one left claimed (a timeout or a crash: it may well have arrived, and a reply
        to it must not be lost)."""
        statuses = "('sent', 'snoozed', 'claimed')" if maybe else "('sent', 'snoozed')"
        row = await self.db.fetch_one(
            f"SELECT {_DELIVERY_COLUMNS} FROM deliveries"  # noqa: S608 - constant columns
            f" WHERE person_id = ? AND status IN {statuses}"
            " ORDER BY local_date DESC LIMIT 1",
            (person_id,),
        )
        return None if row is None else _delivery(row)

    async def by_message(self, person_id: str, message_id: int) -> DeliveryRow | None:
        row = await self.db.fetch_one(
            f"SELECT {_DELIVERY_COLUMNS} FROM deliveries"  # noqa: S608 - constant columns
            " WHERE person_id = ? AND message_id = ?",
            (person_id, message_id),
        )
        return None if row is None else _delivery(row)

    async def reschedule(self, person_id: str, due_utc: int | None, local_date: str | None) -> None:
        """Set the next due instant; a pending snooze is dropped (its day stays sent)."""
        async with self.db.transaction() as tx:
            await tx.execute(
                "UPDATE deliveries SET status = 'sent' WHERE person_id = ? AND status = 'snoozed'",
                (person_id,),
            )
            await tx.execute(
                "UPDATE people SET next_due_utc = ?, next_due_date = ? WHERE person_id = ?",
                (due_utc, local_date, person_id),
            )

    async def snooze(self, person_id: str, local_date: str, until_utc: int) -> bool:
        """Re-open `local_date`'s sent record for one re-send at `until_utc`."""
        async with self.db.transaction() as tx:
            changed = await tx.execute(
                "UPDATE deliveries SET status = 'snoozed' WHERE person_id = ? AND local_date = ?"
                " AND status IN ('sent', 'snoozed')",
                (person_id, local_date),
            )
            if changed != 1:
                return False
            await tx.execute(
                "UPDATE people SET next_due_utc = ?, next_due_date = ? WHERE person_id = ?",
                (until_utc, local_date, person_id),
            )
            return True
