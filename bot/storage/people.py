"""SQL for people: their sealed row, conversation state, recent message ids, deletion."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from bot.storage.backend import Backend, Dialect, Row


@dataclass(frozen=True)
class PersonRow:
    person_id: str
    chat_enc: bytes
    profile_enc: bytes
    state: str
    active: bool
    next_due_utc: int | None
    next_due_date: str | None


def _person(row: Row) -> PersonRow:
    return PersonRow(
        person_id=str(row["person_id"]),
        chat_enc=bytes(row["chat_enc"]),
        profile_enc=bytes(row["profile_enc"]),
        state=str(row["state"]),
        active=bool(row["active"]),
        next_due_utc=None if row["next_due_utc"] is None else int(row["next_due_utc"]),
        next_due_date=None if row["next_due_date"] is None else str(row["next_due_date"]),
    )


PERSON_CHANNEL = "steady_person_changed"
_COLUMNS = "person_id, chat_enc, profile_enc, state, active, next_due_utc, next_due_date"


@dataclass
class ChangeWatch:
    """Who this process changed while the watch was open: their row written or deleted, or
    a /forget begun (the check-in pass: only they need re-reading before their send).

    Each id is noted before its write is made, so a reader that finds it here and then
    reads the row sees the write. (The people table's other writes, in deliveries.py, are
    the pass's own: due instants, and the deactivation after a 403.)

    `complete`: every writer of the people table is this process (SQLite: the data lock
    keeps any other out); with replicas (PostgreSQL) the others' writes are not seen here,
    and a reader must read every row.
    """

    complete: bool
    changed: set[str] = field(default_factory=set)


class PeopleStore:
    def __init__(self, db: Backend) -> None:
        self.db = db
        # Whether this process writes the people table alone (see ChangeWatch).
        self.sole_writer = db.dialect is Dialect.SQLITE
        self._watches: list[ChangeWatch] = []

    @contextmanager
    def watch(self) -> Iterator[ChangeWatch]:
        """Note who changes from now until the block ends."""
        watch = ChangeWatch(self.sole_writer)
        self._watches.append(watch)
        try:
            yield watch
        finally:
            self._watches.remove(watch)

    def _changing(self, person_id: str) -> None:
        for watch in self._watches:
            watch.changed.add(person_id)

    async def get(self, person_id: str) -> PersonRow | None:
        row = await self.db.fetch_one(
            f"SELECT {_COLUMNS} FROM people WHERE person_id = ?",  # noqa: S608 - constant columns
            (person_id,),
        )
        return None if row is None else _person(row)

    async def insert(
        self, person_id: str, chat_enc: bytes, profile_enc: bytes, state: str, now: int
    ) -> None:
        await self.db.execute(
            "INSERT INTO people (person_id, chat_enc, profile_enc, state, active, created_at,"
            " updated_at) VALUES (?, ?, ?, ?, 1, ?, ?)",
            (person_id, chat_enc, profile_enc, state, now, now),
        )

    async def update(
        self,
        person_id: str,
        *,
        now: int,
        profile_enc: bytes | None = None,
        chat_enc: bytes | None = None,
        state: str | None = None,
        active: bool | None = None,
    ) -> None:
        sets = ["updated_at = ?"]
        params: list[object] = [now]
        for column, value in (
            ("profile_enc", profile_enc),
            ("chat_enc", chat_enc),
            ("state", state),
            ("active", None if active is None else int(active)),
        ):
            if value is not None:
                sets.append(f"{column} = ?")
                params.append(value)
        params.append(person_id)
        self._changing(person_id)
        await self.db.execute(
            f"UPDATE people SET {', '.join(sets)} WHERE person_id = ?",  # noqa: S608 - fixed column names
            params,
        )

    async def announce(self, change: str, origin: str) -> None:
        """Tell other replicas a person changed (`saved:<row id>`, `forgot:<row id>`), so
        their caches follow. Random row ids only: nothing about who."""
        await self.db.notify(PERSON_CHANNEL, f"{origin}:{change}")

    async def delete(self, person_id: str) -> None:
        """Delete the person and (by cascade) everything of theirs, and the mark of a
        /forget under way, then scrub the WAL."""
        self._changing(person_id)
        async with self.db.transaction() as tx:
            await tx.execute("DELETE FROM people WHERE person_id = ?", (person_id,))
            await tx.execute("DELETE FROM forgetting WHERE person_id = ?", (person_id,))
        await self.db.checkpoint()

    async def mark_forgetting(self, person_id: str) -> None:
        """Before the key store's delete: a /forget stopped after it is finished at start."""
        self._changing(person_id)
        await self.db.execute(
            "INSERT INTO forgetting (person_id) VALUES (?) ON CONFLICT (person_id) DO NOTHING",
            (person_id,),
        )

    async def forgetting(self) -> list[str]:
        """The /forgets marked and not finished (a crash, or one under way elsewhere)."""
        rows = await self.db.fetch_all("SELECT person_id FROM forgetting")
        return [str(r["person_id"]) for r in rows]

    async def remember_messages(self, entries: list[tuple[str, int, int, str | None]]) -> None:
        """(person_id, message_id, sent_at, quotes) rows in one transaction; ids of people
        deleted in the meantime are skipped rather than failing the batch."""
        if not entries:
            return
        async with self.db.transaction() as tx:
            await tx.executemany(
                "INSERT OR IGNORE INTO chat_messages (person_id, message_id, sent_at, quotes)"
                " SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM people WHERE person_id = ?)",
                [(pid, mid, at, quotes, pid) for pid, mid, at, quotes in entries],
            )

    async def quoting_messages(self, person_id: str, worksheet_id: str, since: int) -> list[int]:
        rows = await self.db.fetch_all(
            "SELECT message_id FROM chat_messages"
            " WHERE person_id = ? AND quotes = ? AND sent_at >= ? ORDER BY message_id",
            (person_id, worksheet_id, since),
        )
        return [int(r["message_id"]) for r in rows]

    async def recent_messages(self, person_id: str, since: int) -> list[int]:
        rows = await self.db.fetch_all(
            "SELECT message_id FROM chat_messages WHERE person_id = ? AND sent_at >= ?"
            " ORDER BY message_id",
            (person_id, since),
        )
        return [int(r["message_id"]) for r in rows]

    async def forget_messages(self, person_id: str, message_ids: list[int]) -> None:
        async with self.db.transaction() as tx:
            await tx.executemany(
                "DELETE FROM chat_messages WHERE person_id = ? AND message_id = ?",
                [(person_id, m) for m in message_ids],
            )

    async def prune_messages(self, older_than: int) -> int:
        return await self.db.execute("DELETE FROM chat_messages WHERE sent_at < ?", (older_than,))

    async def count_crisis(self, day: str, kind: str) -> None:
        await self.db.execute(
            "INSERT INTO crisis_counts (day, kind, count) VALUES (?, ?, 1)"
            " ON CONFLICT (day, kind) DO UPDATE SET count = crisis_counts.count + 1",
            (day, kind),
        )

    async def crisis_counts(self, since_day: str) -> list[tuple[str, str, int]]:
        """(day, kind, count) for the operator, newest first; no person, no text."""
        rows = await self.db.fetch_all(
            "SELECT day, kind, count FROM crisis_counts WHERE day >= ? ORDER BY day DESC, kind",
            (since_day,),
        )
        return [(str(r["day"]), str(r["kind"]), int(r["count"])) for r in rows]

    async def count(self) -> int:
        row = await self.db.fetch_one("SELECT COUNT(*) AS n FROM people")
        return 0 if row is None else int(row["n"])
