"""SQL for journal entries: replies to daily check-ins, sealed under slot journal:<entry_id>."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from bot.storage.backend import Backend, Row


def journal_slot(entry_id: str) -> str:
    return f"journal:{entry_id}"


def new_entry_id() -> str:
    return secrets.token_hex(12)


@dataclass(frozen=True)
class JournalRow:
    entry_id: str
    prompt_id: str | None
    message_id: int | None
    text_enc: bytes
    created_at: int
    updated_at: int
    version: int = 0  # bound into the sealing slot (crypto.versioned_slot)

    @property
    def slot(self) -> str:
        return journal_slot(self.entry_id)


def _entry(row: Row) -> JournalRow:
    return JournalRow(
        entry_id=str(row["entry_id"]),
        prompt_id=None if row["prompt_id"] is None else str(row["prompt_id"]),
        message_id=None if row["message_id"] is None else int(row["message_id"]),
        text_enc=bytes(row["text_enc"]),
        created_at=int(row["created_at"]),
        updated_at=int(row["updated_at"]),
        version=int(row["version"]),
    )


_COLUMNS = "entry_id, prompt_id, message_id, text_enc, created_at, updated_at, version"


class JournalStore:
    def __init__(self, db: Backend) -> None:
        self.db = db

    async def add(
        self,
        person_id: str,
        entry_id: str,
        prompt_id: str | None,
        message_id: int | None,
        text_enc: bytes,
        now: int,
    ) -> None:
        await self.db.execute(
            "INSERT INTO journal (entry_id, person_id, prompt_id, message_id, text_enc,"
            " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (entry_id, person_id, prompt_id, message_id, text_enc, now, now),
        )

    async def by_message(self, person_id: str, message_id: int) -> JournalRow | None:
        row = await self.db.fetch_one(
            f"SELECT {_COLUMNS} FROM journal WHERE person_id = ? AND message_id = ?",  # noqa: S608 - constant columns
            (person_id, message_id),
        )
        return None if row is None else _entry(row)

    async def replace_text(
        self, person_id: str, entry_id: str, text_enc: bytes, now: int, version: int
    ) -> None:
        await self.db.execute(
            "UPDATE journal SET text_enc = ?, updated_at = ?, version = ?"
            " WHERE person_id = ? AND entry_id = ?",
            (text_enc, now, version, person_id, entry_id),
        )

    async def page(self, person_id: str, *, offset: int, limit: int) -> list[JournalRow]:
        """Newest first."""
        rows = await self.db.fetch_all(
            f"SELECT {_COLUMNS} FROM journal WHERE person_id = ?"  # noqa: S608 - constant columns
            " ORDER BY created_at DESC, entry_id DESC LIMIT ? OFFSET ?",
            (person_id, limit, offset),
        )
        return [_entry(r) for r in rows]

    async def all(self, person_id: str) -> list[JournalRow]:
        """Oldest first, for export."""
        rows = await self.db.fetch_all(
            f"SELECT {_COLUMNS} FROM journal WHERE person_id = ?"  # noqa: S608 - constant columns
            " ORDER BY created_at, entry_id",
            (person_id,),
        )
        return [_entry(r) for r in rows]

    async def versioned(self) -> list[tuple[str, str, int]]:
        """(person id, slot, version) of every entry ever edited, for `keys reanchor`."""
        rows = await self.db.fetch_all(
            "SELECT person_id, entry_id, version FROM journal WHERE version > 0"
        )
        return [
            (str(r["person_id"]), journal_slot(str(r["entry_id"])), int(r["version"])) for r in rows
        ]

    async def version(self, person_id: str, entry_id: str) -> int | None:
        row = await self.db.fetch_one(
            "SELECT version FROM journal WHERE person_id = ? AND entry_id = ?",
            (person_id, entry_id),
        )
        return None if row is None else int(row["version"])

    async def entry(self, person_id: str, entry_id: str) -> JournalRow | None:
        row = await self.db.fetch_one(
            f"SELECT {_COLUMNS} FROM journal WHERE person_id = ? AND entry_id = ?",  # noqa: S608 - constant columns
            (person_id, entry_id),
        )
        return None if row is None else _entry(row)

    async def delete(self, person_id: str, entry_id: str) -> bool:
        """One entry, by id; False when there was none (undone already, or forgotten)."""
        count = await self.db.execute(
            "DELETE FROM journal WHERE person_id = ? AND entry_id = ?", (person_id, entry_id)
        )
        return count > 0

    async def count(self, person_id: str) -> int:
        row = await self.db.fetch_one(
            "SELECT COUNT(*) AS n FROM journal WHERE person_id = ?", (person_id,)
        )
        return 0 if row is None else int(row["n"])
