"""SQL for riding the wave (issue 15): urges, held drafts, per-person notes (My reasons,
no-contact marks) and check-in moods. Every blob arrives sealed; nothing here opens one."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from bot.storage.backend import Backend, Row

REASONS = "reasons"
NO_CONTACT = "no_contact"
NOTE_KINDS = (REASONS, NO_CONTACT)


def urge_slot(urge_id: str) -> str:
    return f"urge:{urge_id}"


def draft_slot(draft_id: str) -> str:
    return f"urge_draft:{draft_id}"


def note_slot(kind: str) -> str:
    return f"urge_note:{kind}"


def mood_slot(local_date: str) -> str:
    return f"mood:{local_date}"


def new_id() -> str:
    return secrets.token_hex(12)


@dataclass(frozen=True)
class UrgeRow:
    urge_id: str
    person_id: str
    at: int
    data_enc: bytes
    follow_up_due: int | None


@dataclass(frozen=True)
class DraftRow:
    draft_id: str
    person_id: str
    text_enc: bytes
    created_at: int
    offer_due: int | None


def _urge(row: Row) -> UrgeRow:
    due = row["follow_up_due"]
    return UrgeRow(
        str(row["urge_id"]),
        str(row["person_id"]),
        int(row["at"]),
        bytes(row["data_enc"]),
        None if due is None else int(due),
    )


def _draft(row: Row) -> DraftRow:
    due = row["offer_due"]
    return DraftRow(
        str(row["draft_id"]),
        str(row["person_id"]),
        bytes(row["text_enc"]),
        int(row["created_at"]),
        None if due is None else int(due),
    )


_URGE = "urge_id, person_id, at, data_enc, follow_up_due"
_DRAFT = "draft_id, person_id, text_enc, created_at, offer_due"


class UrgeStore:
    def __init__(self, db: Backend) -> None:
        self.db = db

    # --- urges ----------------------------------------------------------------------------

    async def add_urge(
        self, person_id: str, urge_id: str, at: int, data_enc: bytes, follow_up_due: int
    ) -> None:
        await self.db.execute(
            "INSERT INTO urges (urge_id, person_id, at, data_enc, follow_up_due, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (urge_id, person_id, at, data_enc, follow_up_due, at),
        )

    async def urge(self, person_id: str, urge_id: str) -> UrgeRow | None:
        row = await self.db.fetch_one(
            f"SELECT {_URGE} FROM urges WHERE person_id = ? AND urge_id = ?",  # noqa: S608 - constant columns
            (person_id, urge_id),
        )
        return None if row is None else _urge(row)

    async def update_urge(self, person_id: str, urge_id: str, data_enc: bytes, now: int) -> None:
        await self.db.execute(
            "UPDATE urges SET data_enc = ?, updated_at = ? WHERE person_id = ? AND urge_id = ?",
            (data_enc, now, person_id, urge_id),
        )

    async def set_follow_up(self, person_id: str, urge_id: str, due: int | None) -> None:
        await self.db.execute(
            "UPDATE urges SET follow_up_due = ? WHERE person_id = ? AND urge_id = ?",
            (due, person_id, urge_id),
        )

    async def urges_since(self, person_id: str, since: int) -> list[UrgeRow]:
        rows = await self.db.fetch_all(
            f"SELECT {_URGE} FROM urges WHERE person_id = ? AND at >= ?"  # noqa: S608 - constant columns
            " ORDER BY at, urge_id",
            (person_id, since),
        )
        return [_urge(r) for r in rows]

    async def due_follow_ups(self, now: int, limit: int) -> list[UrgeRow]:
        rows = await self.db.fetch_all(
            f"SELECT {_URGE} FROM urges WHERE follow_up_due IS NOT NULL"  # noqa: S608 - constant columns
            " AND follow_up_due <= ? ORDER BY follow_up_due LIMIT ?",
            (now, limit),
        )
        return [_urge(r) for r in rows]

    async def claim_follow_up(self, urge_id: str, due: int) -> bool:
        """Clear a due check-back, once: False if another pass (or the person) moved it."""
        changed = await self.db.execute(
            "UPDATE urges SET follow_up_due = NULL WHERE urge_id = ? AND follow_up_due = ?",
            (urge_id, due),
        )
        return changed == 1

    # --- held drafts ------------------------------------------------------------------------

    async def add_draft(
        self, person_id: str, draft_id: str, text_enc: bytes, now: int, offer_due: int
    ) -> None:
        await self.db.execute(
            "INSERT INTO urge_drafts (draft_id, person_id, text_enc, created_at, offer_due)"
            " VALUES (?, ?, ?, ?, ?)",
            (draft_id, person_id, text_enc, now, offer_due),
        )

    async def draft(self, person_id: str, draft_id: str) -> DraftRow | None:
        row = await self.db.fetch_one(
            f"SELECT {_DRAFT} FROM urge_drafts WHERE person_id = ? AND draft_id = ?",  # noqa: S608 - constant columns
            (person_id, draft_id),
        )
        return None if row is None else _draft(row)

    async def drafts(self, person_id: str) -> list[DraftRow]:
        rows = await self.db.fetch_all(
            f"SELECT {_DRAFT} FROM urge_drafts WHERE person_id = ?"  # noqa: S608 - constant columns
            " ORDER BY created_at, draft_id",
            (person_id,),
        )
        return [_draft(r) for r in rows]

    async def due_drafts(self, now: int, limit: int) -> list[DraftRow]:
        rows = await self.db.fetch_all(
            f"SELECT {_DRAFT} FROM urge_drafts WHERE offer_due IS NOT NULL"  # noqa: S608 - constant columns
            " AND offer_due <= ? ORDER BY offer_due LIMIT ?",
            (now, limit),
        )
        return [_draft(r) for r in rows]

    async def move_offer(self, draft_id: str, due: int, to: int | None) -> bool:
        """Move (or clear, with None) a due offer, once."""
        changed = await self.db.execute(
            "UPDATE urge_drafts SET offer_due = ? WHERE draft_id = ? AND offer_due = ?",
            (to, draft_id, due),
        )
        return changed == 1

    async def delete_draft(self, person_id: str, draft_id: str) -> bool:
        changed = await self.db.execute(
            "DELETE FROM urge_drafts WHERE person_id = ? AND draft_id = ?", (person_id, draft_id)
        )
        return changed == 1

    # --- notes (My reasons, no-contact marks) ---------------------------------------------

    async def note(self, person_id: str, kind: str) -> bytes | None:
        row = await self.db.fetch_one(
            "SELECT data_enc FROM urge_notes WHERE person_id = ? AND kind = ?", (person_id, kind)
        )
        return None if row is None else bytes(row["data_enc"])

    async def put_note(self, person_id: str, kind: str, data_enc: bytes, now: int) -> None:
        await self.db.execute(
            "INSERT INTO urge_notes (person_id, kind, data_enc, updated_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (person_id, kind) DO UPDATE SET data_enc = excluded.data_enc,"
            " updated_at = excluded.updated_at",
            (person_id, kind, data_enc, now),
        )

    # --- moods ------------------------------------------------------------------------------

    async def put_mood(self, person_id: str, local_date: str, rating_enc: bytes, now: int) -> None:
        await self.db.execute(
            "INSERT INTO moods (person_id, local_date, rating_enc, updated_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (person_id, local_date) DO UPDATE SET rating_enc = excluded.rating_enc,"
            " updated_at = excluded.updated_at",
            (person_id, local_date, rating_enc, now),
        )

    async def moods_since(self, person_id: str, first_date: str) -> list[tuple[str, bytes]]:
        rows = await self.db.fetch_all(
            "SELECT local_date, rating_enc FROM moods WHERE person_id = ? AND local_date >= ?"
            " ORDER BY local_date",
            (person_id, first_date),
        )
        return [(str(r["local_date"]), bytes(r["rating_enc"])) for r in rows]
