"""SQL for the record (/record): entries, their parts and amendments, and their files.

Parts and files are only ever added (an honest record never overwrites); deleting an entry
deletes its parts and files by cascade (secure_delete zeroes the pages), then the WAL is
folded in so the sealed copies leave it too.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from bot.storage.backend import Backend, Row


def new_record_id() -> str:
    """Entry, part and file ids: random, 24 hex digits (they go in sealing slots and state)."""
    return secrets.token_hex(12)


@dataclass(frozen=True)
class EntryRow:
    entry_id: str
    happened_at: int | None
    precision: int
    written_at: int
    finished_at: int | None


@dataclass(frozen=True)
class PartRow:
    part_id: str
    entry_id: str
    message_id: int | None
    body_enc: bytes
    created_at: int


@dataclass(frozen=True)
class FileRow:
    file_id: str
    entry_id: str
    message_id: int | None
    meta_enc: bytes
    created_at: int
    size: int  # of the sealed bytes


def _entry(row: Row) -> EntryRow:
    return EntryRow(
        entry_id=str(row["entry_id"]),
        happened_at=None if row["happened_at"] is None else int(row["happened_at"]),
        precision=int(row["precision"]),
        written_at=int(row["written_at"]),
        finished_at=None if row["finished_at"] is None else int(row["finished_at"]),
    )


def _part(row: Row) -> PartRow:
    return PartRow(
        part_id=str(row["part_id"]),
        entry_id=str(row["entry_id"]),
        message_id=None if row["message_id"] is None else int(row["message_id"]),
        body_enc=bytes(row["body_enc"]),
        created_at=int(row["created_at"]),
    )


def _file(row: Row) -> FileRow:
    return FileRow(
        file_id=str(row["file_id"]),
        entry_id=str(row["entry_id"]),
        message_id=None if row["message_id"] is None else int(row["message_id"]),
        meta_enc=bytes(row["meta_enc"]),
        created_at=int(row["created_at"]),
        size=int(row["size"]),
    )


_ENTRY = "entry_id, happened_at, precision, written_at, finished_at"
_PART = "part_id, entry_id, message_id, body_enc, created_at"
_FILE = "file_id, entry_id, message_id, meta_enc, created_at, length(data_enc) AS size"
# Newest first by when it happened; an entry with no time given sorts by when it was written.
_NEWEST = "ORDER BY COALESCE(happened_at, written_at) DESC, written_at DESC, entry_id"
_OLDEST = "ORDER BY COALESCE(happened_at, written_at), written_at, entry_id"


class RecordStore:
    def __init__(self, db: Backend) -> None:
        self.db = db

    # --- entries ---------------------------------------------------------------------

    async def create(self, person_id: str, entry_id: str, now: int) -> None:
        await self.db.execute(
            "INSERT INTO record_entries (entry_id, person_id, written_at) VALUES (?, ?, ?)",
            (entry_id, person_id, now),
        )

    async def entry(self, person_id: str, entry_id: str) -> EntryRow | None:
        row = await self.db.fetch_one(
            f"SELECT {_ENTRY} FROM record_entries WHERE person_id = ? AND entry_id = ?",  # noqa: S608 - constant columns
            (person_id, entry_id),
        )
        return None if row is None else _entry(row)

    async def set_happened(
        self, person_id: str, entry_id: str, happened_at: int | None, precision: int
    ) -> None:
        await self.db.execute(
            "UPDATE record_entries SET happened_at = ?, precision = ?"
            " WHERE person_id = ? AND entry_id = ?",
            (happened_at, precision, person_id, entry_id),
        )

    async def finish(self, person_id: str, entry_id: str, now: int) -> None:
        await self.db.execute(
            "UPDATE record_entries SET finished_at = COALESCE(finished_at, ?)"
            " WHERE person_id = ? AND entry_id = ?",
            (now, person_id, entry_id),
        )

    async def newest_unfinished(self, person_id: str) -> EntryRow | None:
        row = await self.db.fetch_one(
            f"SELECT {_ENTRY} FROM record_entries"  # noqa: S608 - constant columns
            " WHERE person_id = ? AND finished_at IS NULL ORDER BY written_at DESC LIMIT 1",
            (person_id,),
        )
        return None if row is None else _entry(row)

    async def page(self, person_id: str, *, offset: int, limit: int) -> list[EntryRow]:
        rows = await self.db.fetch_all(
            f"SELECT {_ENTRY} FROM record_entries WHERE person_id = ?"  # noqa: S608 - constant columns
            f" {_NEWEST} LIMIT ? OFFSET ?",
            (person_id, limit, offset),
        )
        return [_entry(r) for r in rows]

    async def all(self, person_id: str) -> list[EntryRow]:
        """Oldest first (by when it happened), for the export."""
        rows = await self.db.fetch_all(
            f"SELECT {_ENTRY} FROM record_entries WHERE person_id = ? {_OLDEST}",  # noqa: S608 - constant columns
            (person_id,),
        )
        return [_entry(r) for r in rows]

    async def count(self, person_id: str) -> int:
        row = await self.db.fetch_one(
            "SELECT COUNT(*) AS n FROM record_entries WHERE person_id = ?", (person_id,)
        )
        return 0 if row is None else int(row["n"])

    async def delete(self, person_id: str, entry_id: str) -> None:
        await self.db.execute(
            "DELETE FROM record_entries WHERE person_id = ? AND entry_id = ?",
            (person_id, entry_id),
        )
        await self.db.checkpoint()

    async def delete_all(self, person_id: str) -> None:
        await self.db.execute("DELETE FROM record_entries WHERE person_id = ?", (person_id,))
        await self.db.checkpoint()

    # --- parts -----------------------------------------------------------------------

    async def add_part(
        self,
        person_id: str,
        entry_id: str,
        part_id: str,
        message_id: int | None,
        body_enc: bytes,
        now: int,
    ) -> None:
        await self.db.execute(
            "INSERT INTO record_parts (part_id, entry_id, person_id, message_id, body_enc,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (part_id, entry_id, person_id, message_id, body_enc, now),
        )

    async def parts(self, person_id: str, entry_id: str) -> list[PartRow]:
        rows = await self.db.fetch_all(
            f"SELECT {_PART} FROM record_parts WHERE person_id = ? AND entry_id = ?"  # noqa: S608 - constant columns
            " ORDER BY created_at, rowid",
            (person_id, entry_id),
        )
        return [_part(r) for r in rows]

    async def part_by_message(self, person_id: str, message_id: int) -> PartRow | None:
        row = await self.db.fetch_one(
            f"SELECT {_PART} FROM record_parts WHERE person_id = ? AND message_id = ?"  # noqa: S608 - constant columns
            " ORDER BY created_at LIMIT 1",
            (person_id, message_id),
        )
        return None if row is None else _part(row)

    # --- files -----------------------------------------------------------------------

    async def add_file(
        self,
        person_id: str,
        entry_id: str,
        file_id: str,
        message_id: int | None,
        meta_enc: bytes,
        data_enc: bytes,
        now: int,
    ) -> None:
        await self.db.execute(
            "INSERT INTO record_files (file_id, entry_id, person_id, message_id, meta_enc,"
            " data_enc, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (file_id, entry_id, person_id, message_id, meta_enc, data_enc, now),
        )

    async def files(self, person_id: str, entry_id: str) -> list[FileRow]:
        rows = await self.db.fetch_all(
            f"SELECT {_FILE} FROM record_files WHERE person_id = ? AND entry_id = ?"  # noqa: S608 - constant columns
            " ORDER BY created_at, rowid",
            (person_id, entry_id),
        )
        return [_file(r) for r in rows]

    async def file_data(self, person_id: str, file_id: str) -> bytes | None:
        row = await self.db.fetch_one(
            "SELECT data_enc FROM record_files WHERE person_id = ? AND file_id = ?",
            (person_id, file_id),
        )
        return None if row is None else bytes(row["data_enc"])

    async def message_ids(self, person_id: str, entry_id: str | None = None) -> list[int]:
        """The person's messages an entry (or every entry) was written in."""
        where = "person_id = ?" + (" AND entry_id = ?" if entry_id else "")
        params = (person_id, entry_id) if entry_id else (person_id,)
        rows = await self.db.fetch_all(
            f"SELECT message_id FROM record_parts WHERE {where} AND message_id IS NOT NULL"  # noqa: S608 - constant clauses
            f" UNION SELECT message_id FROM record_files WHERE {where}"
            " AND message_id IS NOT NULL",
            params + params,
        )
        return sorted(int(r["message_id"]) for r in rows)
