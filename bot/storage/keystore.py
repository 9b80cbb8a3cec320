"""The key store: wrapped data keys and the wrapped pseudonym key, in their own file.

Kept apart from the data database so that deleting a person's wrapped key makes their rows
unreadable in every copy of the data database, backups included (crypto-shredding).

Master keys are known by id. A rotation first *stages* the next key (every data key and the
pseudonym key wrapped under it as well, in `data_keys_next` / `next_master`), so either key
opens the store; only `retire`, run with the next key, makes it the one key.
"""

from __future__ import annotations

import secrets
import time
from pathlib import Path

import aiosqlite

from bot.crypto import MasterKey, random_key
from bot.storage.database import Database
from bot.storage.schema import KEYSTORE_MIGRATIONS

_PSEUDONYM_LABEL = "pseudonym"
_CURRENT = "data_keys"
_NEXT = "data_keys_next"


def new_row_id() -> str:
    """Random, so nothing about the person (not even an HMAC under a key we keep) is in it."""
    return "r" + secrets.token_hex(16)


class WrongMasterKeyError(Exception):
    """The key store was created with a different master key."""


class RotationError(Exception):
    """A rotation step cannot go ahead; nothing was changed by it."""


class KeyStore:
    def __init__(self, db: Database, master: MasterKey) -> None:
        self.db = db
        self._master = master
        self._table = _CURRENT  # where this master key's wraps are
        # identities, in memory: a Telegram user's row id is needed synchronously (the
        # crisis path looks it up before anything may wait).
        self._row_of: dict[str, str] = {}
        self._owner_of: dict[str, str] = {}
        self._version_of: dict[str, int] = {}

    @classmethod
    async def open(cls, path: Path, master: MasterKey) -> KeyStore:
        db = await Database.open(path, KEYSTORE_MIGRATIONS)
        store = cls(db, master)
        try:
            await store._check_or_initialise()
            await store._load_identities()
        except BaseException:
            await db.close()
            raise
        return store

    async def close(self) -> None:
        await self.db.close()

    @property
    def opened_with_next_key(self) -> bool:
        return self._table == _NEXT

    async def _check_or_initialise(self) -> None:
        row = await self.db.fetch_one("SELECT value FROM meta WHERE name = 'check'")
        if row is not None:
            if self._master.matches(bytes(row["value"])):
                return
            staged = await self.db.fetch_one("SELECT check_value FROM next_master")
            if staged is not None and self._master.matches(bytes(staged["check_value"])):
                self._table = _NEXT
                return
            raise WrongMasterKeyError(f"the master key does not match the key store {self.db.path}")
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO meta (name, value) VALUES ('check', ?)", (self._master.check_value(),)
            )
            await conn.execute(
                "INSERT INTO meta (name, value) VALUES ('pseudonym_key', ?)",
                (self._master.wrap(random_key(), _PSEUDONYM_LABEL),),
            )

    async def _load_identities(self) -> None:
        rows = await self.db.fetch_all("SELECT handle, row_id, owner, version FROM identities")
        for row in rows:
            self._row_of[str(row["handle"])] = str(row["row_id"])
            self._owner_of[str(row["row_id"])] = str(row["owner"])
            self._version_of[str(row["row_id"])] = int(row["version"])

    # --- identities ----------------------------------------------------------------------

    def row_id(self, handle: str) -> str | None:
        return self._row_of.get(handle)

    def owner_of(self, row_id: str) -> str | None:
        """The name of the row's data key and of its sealed texts' owner."""
        return self._owner_of.get(row_id)

    def anchored_version(self, row_id: str) -> int:
        """The newest version of the person's row ever written; an older one is a rollback."""
        return self._version_of.get(row_id, 0)

    async def anchor_version(self, row_id: str, version: int) -> None:
        """Called after the row is written: a crash in between leaves the row newer than the
        anchor, which opens (and is then anchored); only an older row is refused."""
        if version <= self._version_of.get(row_id, 0):
            return
        await self.db.execute(
            "UPDATE identities SET version = ? WHERE row_id = ? AND version < ?",
            (version, row_id, version),
        )
        self._version_of[row_id] = version

    async def identity(self, handle: str) -> str:
        """The row id for a handle, making a random one if there is none (safe to repeat)."""
        known = self._row_of.get(handle)
        if known is not None:
            return known
        row_id = new_row_id()
        await self.db.execute(
            "INSERT INTO identities (handle, row_id, owner) VALUES (?, ?, ?)",
            (handle, row_id, row_id),
        )
        self._row_of[handle] = row_id
        self._owner_of[row_id] = row_id
        return row_id

    async def destroy_identity(self, row_id: str) -> None:
        """Cut the link and shred the key, in one transaction: afterwards nothing here names
        the row id, so no copy of the data database can be tied to the person."""
        owner = self._owner_of.get(row_id, row_id)
        async with self.db.transaction() as conn:
            await conn.execute("DELETE FROM identities WHERE row_id = ?", (row_id,))
            for table in (_CURRENT, _NEXT):
                await conn.execute(f"DELETE FROM {table} WHERE person_id = ?", (owner,))  # noqa: S608 - constant table
        self._owner_of.pop(row_id, None)
        self._version_of.pop(row_id, None)
        for handle in [h for h, r in self._row_of.items() if r == row_id]:
            del self._row_of[handle]
        await self.db.checkpoint()

    async def adopt_legacy_keys(self) -> dict[str, str]:
        """Data keys from before identities (named by the handle itself) get a random row id.
        Returns handle -> row id for every such person, to move their data rows."""
        async with self.db.transaction() as conn:
            rows = list(
                await conn.execute_fetchall(
                    f"SELECT person_id FROM {_CURRENT} WHERE person_id NOT IN"  # noqa: S608 - constant table
                    " (SELECT owner FROM identities)"
                )
            )
            for row in rows:
                handle = str(row["person_id"])
                await conn.execute(
                    "INSERT INTO identities (handle, row_id, owner) VALUES (?, ?, ?)",
                    (handle, new_row_id(), handle),
                )
            legacy = list(
                await conn.execute_fetchall(
                    "SELECT handle, row_id FROM identities WHERE owner = handle"
                )
            )
        self._row_of.clear()
        self._owner_of.clear()
        self._version_of.clear()
        await self._load_identities()
        return {str(r["handle"]): str(r["row_id"]) for r in legacy}

    async def pseudonym_key(self) -> bytes:
        if self._table == _NEXT:
            row = await self.db.fetch_one("SELECT pseudonym_key AS value FROM next_master")
        else:
            row = await self.db.fetch_one("SELECT value FROM meta WHERE name = 'pseudonym_key'")
        if row is None:
            raise WrongMasterKeyError("the key store has no pseudonym key")
        return self._master.unwrap(bytes(row["value"]), _PSEUDONYM_LABEL)

    async def data_key(self, person_id: str) -> bytes | None:
        row = await self.db.fetch_one(
            f"SELECT wrapped FROM {self._table} WHERE person_id = ?",  # noqa: S608 - constant table
            (person_id,),
        )
        if row is None:
            other = _CURRENT if self._table == _NEXT else _NEXT
            elsewhere = await self.db.fetch_one(
                f"SELECT 1 FROM {other} WHERE person_id = ?",  # noqa: S608 - constant table
                (person_id,),
            )
            if elsewhere is not None:
                # Never "no key" (which would read as a half-done /forget and erase them).
                raise RotationError("this data key is wrapped only under the other master key")
            return None
        return self._master.unwrap(bytes(row["wrapped"]), person_id)

    async def data_keys(self, person_ids: list[str]) -> dict[str, bytes]:
        """Unwrap many keys in one query (the daily-prompt batch needs hundreds at once)."""
        found: dict[str, bytes] = {}
        for start in range(0, len(person_ids), 500):
            chunk = person_ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = await self.db.fetch_all(
                f"SELECT person_id, wrapped FROM {self._table} WHERE person_id IN ({marks})",  # noqa: S608 - only placeholders are interpolated
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
                f"INSERT OR IGNORE INTO {self._table} (person_id, wrapped, created_at)"  # noqa: S608 - constant table
                " VALUES (?, ?, ?)",
                (person_id, self._master.wrap(key, person_id), int(time.time())),
            )
        stored = await self.data_key(person_id)
        assert stored is not None
        return stored

    async def destroy_data_key(self, person_id: str) -> None:
        async with self.db.transaction() as conn:
            for table in (_CURRENT, _NEXT):
                await conn.execute(f"DELETE FROM {table} WHERE person_id = ?", (person_id,))  # noqa: S608 - constant table
        await self.db.checkpoint()

    # --- rotation ------------------------------------------------------------------------

    async def staged_key_id(self) -> int | None:
        row = await self.db.fetch_one("SELECT key_id FROM next_master")
        return None if row is None else int(row["key_id"])

    async def all_data_keys(self) -> dict[str, bytes]:
        rows = await self.db.fetch_all(f"SELECT person_id FROM {self._table}")  # noqa: S608 - constant table
        return await self.data_keys([str(r["person_id"]) for r in rows])

    async def stage(self, new_master: MasterKey) -> dict[str, bytes]:
        """Wrap every data key and the pseudonym key under `new_master` as well; the current
        wraps stay. Safe to repeat (a resumed rotation). Returns the keys it wrapped."""
        if self._table != _CURRENT:
            raise RotationError("the store was opened with the staged key; open it with the old")
        if new_master.key_id == self._master.key_id:
            raise RotationError("the new master key is the current one")
        pseudo = await self.pseudonym_key()
        async with self.db.transaction() as conn:
            # Read inside the transaction, so a key added meanwhile is wrapped too.
            rows = list(await conn.execute_fetchall(f"SELECT person_id, wrapped FROM {_CURRENT}"))  # noqa: S608 - constant table
            keys: dict[str, bytes] = {}
            for row in rows:
                pid = str(row["person_id"])
                keys[pid] = self._master.unwrap(bytes(row["wrapped"]), pid)
            await conn.execute("DELETE FROM next_master")
            await conn.execute(
                "INSERT INTO next_master (key_id, check_value, pseudonym_key) VALUES (?, ?, ?)",
                (
                    new_master.key_id,
                    new_master.check_value(),
                    new_master.wrap(pseudo, _PSEUDONYM_LABEL),
                ),
            )
            await conn.executemany(
                f"INSERT OR REPLACE INTO {_NEXT} (person_id, wrapped, created_at)"  # noqa: S608 - constant table
                " VALUES (?, ?, ?)",
                [(pid, new_master.wrap(key, pid), int(time.time())) for pid, key in keys.items()],
            )
        await self.db.checkpoint()
        return keys

    async def unstage(self) -> None:
        """Drop a staged key (a rotation whose new key was not delivered)."""
        async with self.db.transaction() as conn:
            await conn.execute("DELETE FROM next_master")
            await conn.execute(f"DELETE FROM {_NEXT}")  # noqa: S608 - constant table
        await self.db.checkpoint()

    async def retire_old_key(self) -> int:
        """Make the staged key (the one this store was opened with) the only key: the old
        key's wraps are deleted. Refused if any data key lacks a wrap under the new key."""
        if self._table != _NEXT:
            raise RotationError(
                "no rotation is staged for this master key (is BOT_MASTER_KEY the new key?)"
            )
        async with self.db.transaction() as conn:
            missing = await _scalar(
                conn,
                "SELECT COUNT(*) FROM data_keys"
                " WHERE person_id NOT IN (SELECT person_id FROM data_keys_next)",
            )
            if missing:
                raise RotationError(
                    f"{missing} data key(s) were added under the old key after staging; "
                    "run `keys rotate` again with the old key, then retire"
                )
            staged = next(
                iter(
                    await conn.execute_fetchall(
                        "SELECT check_value, pseudonym_key FROM next_master"
                    )
                )
            )
            await conn.execute(f"DELETE FROM {_CURRENT}")  # noqa: S608 - constant table
            await conn.execute(
                f"INSERT INTO {_CURRENT} (person_id, wrapped, created_at)"  # noqa: S608 - constant tables
                f" SELECT person_id, wrapped, created_at FROM {_NEXT}"
            )
            count = await _scalar(conn, "SELECT COUNT(*) FROM data_keys")
            await conn.execute("UPDATE meta SET value = ? WHERE name = 'check'", (staged[0],))
            await conn.execute(
                "UPDATE meta SET value = ? WHERE name = 'pseudonym_key'", (staged[1],)
            )
            await conn.execute("DELETE FROM next_master")
            await conn.execute(f"DELETE FROM {_NEXT}")  # noqa: S608 - constant table
        self._table = _CURRENT
        await self.db.checkpoint()
        return count


async def _scalar(conn: aiosqlite.Connection, sql: str) -> int:
    rows = list(await conn.execute_fetchall(sql))
    return int(rows[0][0])
