"""The key store: wrapped data keys and the wrapped pseudonym key, in their own file.

Kept apart from the data database so that deleting a person's wrapped key makes their rows
unreadable in every copy of the data database, backups included (crypto-shredding).
"""

from __future__ import annotations

import time
from pathlib import Path

from bot.crypto import MasterKey, random_key
from bot.storage.database import Database
from bot.storage.schema import KEYSTORE_MIGRATIONS

_PSEUDONYM_LABEL = "pseudonym"


class WrongMasterKeyError(Exception):
    """The key store was created with a different master key."""


class KeyStore:
    def __init__(self, db: Database, master: MasterKey) -> None:
        self.db = db
        self._master = master

    @classmethod
    async def open(cls, path: Path, master: MasterKey) -> KeyStore:
        db = await Database.open(path, KEYSTORE_MIGRATIONS)
        store = cls(db, master)
        try:
            await store._check_or_initialise()
        except BaseException:
            await db.close()
            raise
        return store

    async def close(self) -> None:
        await self.db.close()

    async def _check_or_initialise(self) -> None:
        row = await self.db.fetch_one("SELECT value FROM meta WHERE name = 'check'")
        if row is not None:
            if not self._master.matches(bytes(row["value"])):
                raise WrongMasterKeyError(
                    f"the master key does not match the key store {self.db.path}"
                )
            return
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO meta (name, value) VALUES ('check', ?)", (self._master.check_value(),)
            )
            await conn.execute(
                "INSERT INTO meta (name, value) VALUES ('pseudonym_key', ?)",
                (self._master.wrap(random_key(), _PSEUDONYM_LABEL),),
            )

    async def pseudonym_key(self) -> bytes:
        row = await self.db.fetch_one("SELECT value FROM meta WHERE name = 'pseudonym_key'")
        if row is None:
            raise WrongMasterKeyError("the key store has no pseudonym key")
        return self._master.unwrap(bytes(row["value"]), _PSEUDONYM_LABEL)

    async def data_key(self, person_id: str) -> bytes | None:
        row = await self.db.fetch_one(
            "SELECT wrapped FROM data_keys WHERE person_id = ?", (person_id,)
        )
        if row is None:
            return None
        return self._master.unwrap(bytes(row["wrapped"]), person_id)

    async def data_keys(self, person_ids: list[str]) -> dict[str, bytes]:
        """Unwrap many keys in one query (the daily-prompt batch needs hundreds at once)."""
        found: dict[str, bytes] = {}
        for start in range(0, len(person_ids), 500):
            chunk = person_ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = await self.db.fetch_all(
                f"SELECT person_id, wrapped FROM data_keys WHERE person_id IN ({marks})",  # noqa: S608 - only placeholders are interpolated
                chunk,
            )
            for row in rows:
                pid = str(row["person_id"])
                found[pid] = self._master.unwrap(bytes(row["wrapped"]), pid)
        return found

    async def create_data_key(self, person_id: str) -> bytes:
        """Return the person's key, making one if they have none (safe to call twice)."""
        key = random_key()
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT OR IGNORE INTO data_keys (person_id, wrapped, created_at) VALUES (?, ?, ?)",
                (person_id, self._master.wrap(key, person_id), int(time.time())),
            )
        stored = await self.data_key(person_id)
        assert stored is not None
        return stored

    async def destroy_data_key(self, person_id: str) -> None:
        await self.db.execute("DELETE FROM data_keys WHERE person_id = ?", (person_id,))
        await self.db.checkpoint()

    async def rotate(self, new_master: MasterKey) -> int:
        """Re-wrap every key under `new_master` in one transaction; rows stay as they are."""
        pseudo = await self.pseudonym_key()
        async with self.db.transaction() as conn:
            # Read inside the transaction, so a key added meanwhile is re-wrapped too.
            rows = list(await conn.execute_fetchall("SELECT person_id, wrapped FROM data_keys"))
            for row in rows:
                pid = str(row["person_id"])
                key = self._master.unwrap(bytes(row["wrapped"]), pid)
                await conn.execute(
                    "UPDATE data_keys SET wrapped = ? WHERE person_id = ?",
                    (new_master.wrap(key, pid), pid),
                )
            await conn.execute(
                "UPDATE meta SET value = ? WHERE name = 'pseudonym_key'",
                (new_master.wrap(pseudo, _PSEUDONYM_LABEL),),
            )
            await conn.execute(
                "UPDATE meta SET value = ? WHERE name = 'check'", (new_master.check_value(),)
            )
        self._master = new_master
        await self.db.checkpoint()
        return len(rows)
