"""SQL for discretion: who has a panic word (ids only), messages due to remove themselves,
and the recent check-in ids a panic wipe deletes with the rest."""

from __future__ import annotations

from bot.storage.backend import Backend


class DiscretionStore:
    def __init__(self, db: Backend) -> None:
        self.db = db

    async def mark(self, person_id: str) -> None:
        await self.db.execute(
            "INSERT OR IGNORE INTO panic_words (person_id)"
            " SELECT ? WHERE EXISTS (SELECT 1 FROM people WHERE person_id = ?)",
            (person_id, person_id),
        )

    async def unmark(self, person_id: str) -> None:
        await self.db.execute("DELETE FROM panic_words WHERE person_id = ?", (person_id,))

    async def marked(self) -> list[str]:
        rows = await self.db.fetch_all("SELECT person_id FROM panic_words ORDER BY person_id")
        return [str(r["person_id"]) for r in rows]

    async def check_in_ids(self, person_id: str, since: int) -> list[int]:
        """Check-ins the dispatcher sent (their ids live in deliveries, not the ledger)."""
        rows = await self.db.fetch_all(
            "SELECT message_id FROM deliveries WHERE person_id = ? AND claimed_at >= ?"
            " AND message_id IS NOT NULL",
            (person_id, since),
        )
        return [int(r["message_id"]) for r in rows]

    async def remove_later(self, person_id: str, message_id: int, due_at: int) -> None:
        await self.db.execute(
            "INSERT INTO self_removals (person_id, message_id, due_at)"
            " SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM people WHERE person_id = ?)"
            " ON CONFLICT (person_id, message_id) DO UPDATE SET due_at = excluded.due_at",
            (person_id, message_id, due_at, person_id),
        )

    async def keep(self, person_id: str, message_id: int) -> None:
        await self.db.execute(
            "DELETE FROM self_removals WHERE person_id = ? AND message_id = ?",
            (person_id, message_id),
        )

    async def due_removals(self, now: int, limit: int = 200) -> list[tuple[str, int]]:
        rows = await self.db.fetch_all(
            "SELECT person_id, message_id FROM self_removals WHERE due_at <= ?"
            " ORDER BY due_at LIMIT ?",
            (now, limit),
        )
        return [(str(r["person_id"]), int(r["message_id"])) for r in rows]
