"""SQL for worksheets: how far a person is in each one, and the sealed parts of their answers.

One row of `answer_parts` per message the person sent, keyed by that message's id: a second
delivery of the same update (after a crash, before Telegram saw our offset) changes nothing,
and an edit finds its row.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.backend import Backend, Row


def answer_slot(worksheet_id: str, question_id: str, message_id: int) -> str:
    """The sealing slot: a part moved to another question or message fails to open."""
    return f"answer:{worksheet_id}:{question_id}:{message_id}"


@dataclass(frozen=True)
class ProgressRow:
    worksheet_id: str
    position: int
    finished_at: int | None
    started_at: int
    updated_at: int
    question_id: str | None = None  # the question at `position` when it was written

    @property
    def finished(self) -> bool:
        return self.finished_at is not None


@dataclass(frozen=True)
class PartRow:
    worksheet_id: str
    question_id: str
    message_id: int
    text_enc: bytes
    created_at: int
    updated_at: int
    version: int = 0  # bound into the sealing slot (crypto.versioned_slot)

    @property
    def slot(self) -> str:
        return answer_slot(self.worksheet_id, self.question_id, self.message_id)


def _progress(row: Row) -> ProgressRow:
    return ProgressRow(
        worksheet_id=str(row["worksheet_id"]),
        position=int(row["position"]),
        finished_at=None if row["finished_at"] is None else int(row["finished_at"]),
        started_at=int(row["started_at"]),
        updated_at=int(row["updated_at"]),
        question_id=None if row["question_id"] is None else str(row["question_id"]),
    )


def _part(row: Row) -> PartRow:
    return PartRow(
        worksheet_id=str(row["worksheet_id"]),
        question_id=str(row["question_id"]),
        message_id=int(row["message_id"]),
        text_enc=bytes(row["text_enc"]),
        created_at=int(row["created_at"]),
        updated_at=int(row["updated_at"]),
        version=int(row["version"]),
    )


_PROGRESS = "worksheet_id, position, finished_at, started_at, updated_at, question_id"
_PARTS = "worksheet_id, question_id, message_id, text_enc, created_at, updated_at, version"
# Parts in the order the person wrote them. Message ids rise within a chat, while the time
# we stored a part need not: a crisis message is handled ahead of one queued before it.
_PART_ORDER = "ORDER BY message_id"


class WorksheetStore:
    def __init__(self, db: Backend) -> None:
        self.db = db

    # --- progress -----------------------------------------------------------------------

    async def progress(self, person_id: str, worksheet_id: str) -> ProgressRow | None:
        row = await self.db.fetch_one(
            f"SELECT {_PROGRESS} FROM worksheet_progress"  # noqa: S608 - constant columns
            " WHERE person_id = ? AND worksheet_id = ?",
            (person_id, worksheet_id),
        )
        return None if row is None else _progress(row)

    async def all_progress(self, person_id: str) -> list[ProgressRow]:
        rows = await self.db.fetch_all(
            f"SELECT {_PROGRESS} FROM worksheet_progress"  # noqa: S608 - constant columns
            " WHERE person_id = ? ORDER BY started_at, worksheet_id",
            (person_id,),
        )
        return [_progress(r) for r in rows]

    async def begin(
        self, person_id: str, worksheet_id: str, now: int, first_question: str | None = None
    ) -> None:
        """Create the progress row at the first question; an existing row is left alone."""
        await self.db.execute(
            "INSERT OR IGNORE INTO worksheet_progress (person_id, worksheet_id, position,"
            " question_id, started_at, updated_at) VALUES (?, ?, 0, ?, ?, ?)",
            (person_id, worksheet_id, first_question, now, now),
        )

    async def move(
        self,
        person_id: str,
        worksheet_id: str,
        position: int,
        now: int,
        *,
        finished: bool,
        question_id: str | None = None,
    ) -> None:
        await self.db.execute(
            "UPDATE worksheet_progress SET position = ?, question_id = ?, updated_at = ?,"
            " finished_at = CASE WHEN ? = 1 THEN COALESCE(finished_at, ?) END"
            " WHERE person_id = ? AND worksheet_id = ?",
            (position, question_id, now, int(finished), now, person_id, worksheet_id),
        )

    # --- answer parts -------------------------------------------------------------------

    async def add_part(
        self,
        person_id: str,
        worksheet_id: str,
        question_id: str,
        message_id: int,
        text_enc: bytes,
        now: int,
        version: int = 0,
    ) -> bool:
        """Store one message of an answer; False if that message was stored already."""
        changed = await self.db.execute(
            "INSERT OR IGNORE INTO answer_parts (person_id, worksheet_id, question_id,"
            " message_id, text_enc, created_at, updated_at, version)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (person_id, worksheet_id, question_id, message_id, text_enc, now, now, version),
        )
        return changed > 0

    async def part(self, person_id: str, message_id: int) -> PartRow | None:
        row = await self.db.fetch_one(
            f"SELECT {_PARTS} FROM answer_parts"  # noqa: S608 - constant columns
            " WHERE person_id = ? AND message_id = ?",
            (person_id, message_id),
        )
        return None if row is None else _part(row)

    async def replace_part(
        self, person_id: str, message_id: int, text_enc: bytes, now: int, version: int
    ) -> None:
        await self.db.execute(
            "UPDATE answer_parts SET text_enc = ?, updated_at = ?, version = ?"
            " WHERE person_id = ? AND message_id = ?",
            (text_enc, now, version, person_id, message_id),
        )

    async def parts(
        self, person_id: str, worksheet_id: str, question_id: str | None = None
    ) -> list[PartRow]:
        if question_id is None:
            rows = await self.db.fetch_all(
                f"SELECT {_PARTS} FROM answer_parts"  # noqa: S608 - constant columns
                f" WHERE person_id = ? AND worksheet_id = ? {_PART_ORDER}",
                (person_id, worksheet_id),
            )
        else:
            rows = await self.db.fetch_all(
                f"SELECT {_PARTS} FROM answer_parts"  # noqa: S608 - constant columns
                f" WHERE person_id = ? AND worksheet_id = ? AND question_id = ? {_PART_ORDER}",
                (person_id, worksheet_id, question_id),
            )
        return [_part(r) for r in rows]

    async def count_parts(self, person_id: str, worksheet_id: str, question_id: str) -> int:
        row = await self.db.fetch_one(
            "SELECT COUNT(*) AS n FROM answer_parts"
            " WHERE person_id = ? AND worksheet_id = ? AND question_id = ?",
            (person_id, worksheet_id, question_id),
        )
        return 0 if row is None else int(row["n"])

    async def versioned(self) -> list[tuple[str, str, int]]:
        """(person id, slot, version) of every part ever edited, for `keys reanchor`."""
        rows = await self.db.fetch_all(
            f"SELECT person_id, {_PARTS} FROM answer_parts WHERE version > 0"  # noqa: S608 - constant columns
        )
        return [(str(r["person_id"]), _part(r).slot, int(r["version"])) for r in rows]

    # --- deletion -----------------------------------------------------------------------

    async def delete_part(self, person_id: str, message_id: int) -> bool:
        """One message of an answer (one that no longer opens); False if it was gone."""
        count = await self.db.execute(
            "DELETE FROM answer_parts WHERE person_id = ? AND message_id = ?",
            (person_id, message_id),
        )
        await self.db.checkpoint()
        return count > 0

    async def delete_answer(self, person_id: str, worksheet_id: str, question_id: str) -> None:
        await self.db.execute(
            "DELETE FROM answer_parts WHERE person_id = ? AND worksheet_id = ? AND question_id = ?",
            (person_id, worksheet_id, question_id),
        )
        # secure_delete zeroes the pages; the checkpoint makes the WAL forget them too.
        await self.db.checkpoint()

    async def delete_worksheet(self, person_id: str, worksheet_id: str) -> None:
        """Every answer and the progress of one worksheet, in one transaction."""
        async with self.db.transaction() as tx:
            await tx.execute(
                "DELETE FROM answer_parts WHERE person_id = ? AND worksheet_id = ?",
                (person_id, worksheet_id),
            )
            await tx.execute(
                "DELETE FROM worksheet_progress WHERE person_id = ? AND worksheet_id = ?",
                (person_id, worksheet_id),
            )
        await self.db.checkpoint()
