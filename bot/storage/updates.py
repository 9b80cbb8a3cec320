"""SQL for webhook mode's seen update ids (bot-wide numbers, no person, kept 24 hours)."""

from __future__ import annotations

from bot.storage.backend import Backend


class UpdateStore:
    def __init__(self, db: Backend) -> None:
        self.db = db

    async def seen(self, update_id: int) -> bool:
        row = await self.db.fetch_one(
            "SELECT 1 FROM seen_updates WHERE update_id = ?", (update_id,)
        )
        return row is not None

    async def mark(self, update_id: int, now: int) -> None:
        await self.db.execute(
            "INSERT OR IGNORE INTO seen_updates (update_id, seen_at) VALUES (?, ?)",
            (update_id, now),
        )

    async def prune(self, older_than: int) -> int:
        return await self.db.execute("DELETE FROM seen_updates WHERE seen_at < ?", (older_than,))
