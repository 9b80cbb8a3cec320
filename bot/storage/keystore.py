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
from collections.abc import Mapping
from pathlib import Path

from bot.core.errors import SteadyError
from bot.crypto import MasterKey, random_key
from bot.storage.backend import Backend, Row, Tx
from bot.storage.engines import open_key_database

_PSEUDONYM_LABEL = "pseudonym"
_CURRENT = "data_keys"
_NEXT = "data_keys_next"


def new_row_id() -> str:
    """Random, so nothing about the person (not even an HMAC under a key we keep) is in it."""
    return "r" + secrets.token_hex(16)


class WrongMasterKeyError(SteadyError):
    """The key store was created with a different master key."""


class RotationError(SteadyError):
    """A rotation step cannot go ahead; nothing was changed by it."""


class KeyStore:
    def __init__(self, db: Backend, master: MasterKey) -> None:
        self.db = db
        self._master = master
        self._table = _CURRENT  # where this master key's wraps are
        # identities, in memory: a Telegram user's row id is needed synchronously (the
        # crisis path looks it up before anything may wait).
        self._row_of: dict[str, str] = {}
        self._owner_of: dict[str, str] = {}
        self._version_of: dict[str, int] = {}
        # row id -> slot -> newest version of each edited or deleted row: few (only edits
        # and deletions make one), and checked on every read, so kept in memory.
        self._slots_of: dict[str, dict[str, int]] = {}

    @classmethod
    async def open(cls, target: Path | str, master: MasterKey) -> KeyStore:
        """`target`: the key store's file, or its own PostgreSQL database's URL."""
        db = await open_key_database(target)
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
        async with self.db.transaction() as tx:
            # Replicas starting together on a new key store: one initialises, the others
            # wait here and then find its check value.
            await tx.lock("keystore-initialise")
            row = await tx.fetch_one("SELECT value FROM meta WHERE name = 'check'")
            if row is None:
                await tx.execute(
                    "INSERT INTO meta (name, value) VALUES ('check', ?)",
                    (self._master.check_value(),),
                )
                await tx.execute(
                    "INSERT INTO meta (name, value) VALUES ('pseudonym_key', ?)",
                    (self._master.wrap(random_key(), _PSEUDONYM_LABEL),),
                )
                return
            staged = await tx.fetch_one("SELECT check_value FROM next_master")
        if self._master.matches(bytes(row["value"])):
            return
        if staged is not None and self._master.matches(bytes(staged["check_value"])):
            self._table = _NEXT
            return
        raise WrongMasterKeyError(f"the master key does not match the key store {self.db.name}")

    async def _load_identities(self) -> None:
        rows = await self.db.fetch_all("SELECT handle, row_id, owner, version FROM identities")
        for row in rows:
            self._remember(row)
        for row in await self.db.fetch_all("SELECT row_id, slot, version FROM row_versions"):
            self._remember_slot(row)

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

    def anchored_slot(self, row_id: str, slot: str) -> int:
        """The newest version of one sealed row (0 if never edited or deleted)."""
        return self._slots_of.get(row_id, {}).get(slot, 0)

    async def anchor_slots(self, row_id: str, versions: Mapping[str, int]) -> None:
        """Called after the rows are written (or deleted), in one transaction; an anchor
        only moves forward, for the same reason as `anchor_version`."""
        known = self._slots_of.setdefault(row_id, {})
        newer = {s: v for s, v in versions.items() if v > known.get(s, 0)}
        if not newer:
            return
        async with self.db.transaction() as tx:
            # Only forward, on both engines (another replica may have anchored a newer one).
            await tx.executemany(
                "INSERT INTO row_versions (row_id, slot, version) VALUES (?, ?, ?)"
                " ON CONFLICT (row_id, slot) DO UPDATE SET version = excluded.version"
                " WHERE row_versions.version < excluded.version",
                [(row_id, s, v) for s, v in newer.items()],
            )
        known.update(newer)

    async def reanchor(
        self, versions: Mapping[str, int], slots: Mapping[str, Mapping[str, int]]
    ) -> None:
        """After a data backup older than this store was restored: the rows now there are
        the newest (`versions`: row id -> settings revision; `slots`: row id -> slot ->
        version of each versioned row). Anchors of rows no longer there go."""
        async with self.db.transaction() as tx:
            await tx.execute("UPDATE identities SET version = 0")
            await tx.executemany(
                "UPDATE identities SET version = ? WHERE row_id = ?",
                [(v, r) for r, v in versions.items()],
            )
            await tx.execute("DELETE FROM row_versions")
            await tx.executemany(
                "INSERT INTO row_versions (row_id, slot, version) VALUES (?, ?, ?)",
                [(r, s, v) for r, by_slot in slots.items() for s, v in by_slot.items() if v > 0],
            )
        self._version_of = {r: versions.get(r, 0) for r in self._owner_of}
        self._slots_of = {r: {s: v for s, v in m.items() if v > 0} for r, m in slots.items()}

    def row_ids(self) -> set[str]:
        return set(self._owner_of)

    async def find(self, handle: str) -> str | None:
        """The row id for a handle: from memory, else from the store. Another replica may
        have made it since this one loaded the identities."""
        known = self._row_of.get(handle)
        if known is not None:
            return known
        row = await self.db.fetch_one(
            "SELECT handle, row_id, owner, version FROM identities WHERE handle = ?", (handle,)
        )
        if row is None:
            return None
        self._remember(row)
        # Its rows' anchors too: that replica may have anchored edits since this one started.
        for slot in await self.db.fetch_all(
            "SELECT row_id, slot, version FROM row_versions WHERE row_id = ?", (row["row_id"],)
        ):
            self._remember_slot(slot)
        return str(row["row_id"])

    async def owners(self, row_ids: list[str]) -> dict[str, str]:
        """row id -> owner for each known row id, asking the store for those not in memory."""
        found = {r: o for r in row_ids if (o := self._owner_of.get(r)) is not None}
        missing = [r for r in row_ids if r not in found]
        for start in range(0, len(missing), 500):
            chunk = missing[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = await self.db.fetch_all(
                "SELECT handle, row_id, owner, version FROM identities"  # noqa: S608 - placeholders only
                f" WHERE row_id IN ({marks})",
                chunk,
            )
            for row in rows:
                self._remember(row)
                found[str(row["row_id"])] = str(row["owner"])
        return found

    def _remember(self, row: Row) -> None:
        self._row_of[str(row["handle"])] = str(row["row_id"])
        self._owner_of[str(row["row_id"])] = str(row["owner"])
        version = int(row["version"])
        if version > self._version_of.get(str(row["row_id"]), 0):
            self._version_of[str(row["row_id"])] = version

    def _remember_slot(self, row: Row) -> None:
        known = self._slots_of.setdefault(str(row["row_id"]), {})
        slot, version = str(row["slot"]), int(row["version"])
        if version > known.get(slot, 0):
            known[slot] = version

    def drop_cached(self, row_id: str) -> None:
        """Another replica deleted this identity: forget the copy in memory too."""
        self._owner_of.pop(row_id, None)
        self._version_of.pop(row_id, None)
        self._slots_of.pop(row_id, None)
        for handle in [h for h, r in self._row_of.items() if r == row_id]:
            del self._row_of[handle]

    async def identity(self, handle: str) -> str:
        """The row id for a handle, making a random one if there is none (safe to repeat,
        and to race: two replicas making one for the same person end with the same)."""
        known = await self.find(handle)
        if known is not None:
            return known
        row_id = new_row_id()
        await self.db.execute(
            "INSERT OR IGNORE INTO identities (handle, row_id, owner) VALUES (?, ?, ?)",
            (handle, row_id, row_id),
        )
        found = await self.find(handle)
        if found is None:  # inserted or already there: only a broken database lands here
            raise RuntimeError("identity row missing right after it was written")
        return found

    async def destroy_identity(self, row_id: str) -> None:
        """Cut the link and shred the key, in one transaction: afterwards nothing here names
        the row id, so no copy of the data database can be tied to the person."""
        owner = self._owner_of.get(row_id, row_id)
        async with self.db.transaction() as tx:
            await tx.execute("DELETE FROM identities WHERE row_id = ?", (row_id,))
            await tx.execute("DELETE FROM row_versions WHERE row_id = ?", (row_id,))
            for table in (_CURRENT, _NEXT):
                await tx.execute(f"DELETE FROM {table} WHERE person_id = ?", (owner,))  # noqa: S608 - constant table
        self._owner_of.pop(row_id, None)
        self._version_of.pop(row_id, None)
        self._slots_of.pop(row_id, None)
        for handle in [h for h, r in self._row_of.items() if r == row_id]:
            del self._row_of[handle]
        await self.db.checkpoint()

    async def adopt_legacy_keys(self) -> dict[str, str]:
        """Data keys from before identities (named by the handle itself) get a random row id.
        Returns handle -> row id for every such person, to move their data rows."""
        async with self.db.transaction() as tx:
            rows = await tx.fetch_all(
                f"SELECT person_id FROM {_CURRENT} WHERE person_id NOT IN"  # noqa: S608 - constant table
                " (SELECT owner FROM identities)"
            )
            for row in rows:
                handle = str(row["person_id"])
                await tx.execute(
                    "INSERT INTO identities (handle, row_id, owner) VALUES (?, ?, ?)",
                    (handle, new_row_id(), handle),
                )
            legacy = await tx.fetch_all(
                "SELECT handle, row_id FROM identities WHERE owner = handle"
            )
        self._row_of.clear()
        self._owner_of.clear()
        self._version_of.clear()
        self._slots_of.clear()
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
        async with self.db.transaction() as tx:
            await tx.execute(
                f"INSERT OR IGNORE INTO {self._table} (person_id, wrapped, created_at)"  # noqa: S608 - constant table
                " VALUES (?, ?, ?)",
                (person_id, self._master.wrap(key, person_id), int(time.time())),
            )
        stored = await self.data_key(person_id)
        if stored is None:  # inserted or already there: only a broken database lands here
            raise RuntimeError("data key missing right after it was written")
        return stored

    async def destroy_data_key(self, person_id: str) -> None:
        async with self.db.transaction() as tx:
            for table in (_CURRENT, _NEXT):
                await tx.execute(f"DELETE FROM {table} WHERE person_id = ?", (person_id,))  # noqa: S608 - constant table
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
        async with self.db.transaction() as tx:
            # Read inside the transaction, so a key added meanwhile is wrapped too.
            rows = await tx.fetch_all(f"SELECT person_id, wrapped FROM {_CURRENT}")  # noqa: S608 - constant table
            keys: dict[str, bytes] = {}
            for row in rows:
                pid = str(row["person_id"])
                keys[pid] = self._master.unwrap(bytes(row["wrapped"]), pid)
            await tx.execute("DELETE FROM next_master")
            await tx.execute(
                "INSERT INTO next_master (key_id, check_value, pseudonym_key) VALUES (?, ?, ?)",
                (
                    new_master.key_id,
                    new_master.check_value(),
                    new_master.wrap(pseudo, _PSEUDONYM_LABEL),
                ),
            )
            await tx.executemany(
                f"INSERT INTO {_NEXT} (person_id, wrapped, created_at) VALUES (?, ?, ?)"  # noqa: S608 - constant table
                " ON CONFLICT (person_id) DO UPDATE"
                " SET wrapped = excluded.wrapped, created_at = excluded.created_at",
                [(pid, new_master.wrap(key, pid), int(time.time())) for pid, key in keys.items()],
            )
        await self.db.checkpoint()
        return keys

    async def unstage(self) -> None:
        """Drop a staged key (a rotation whose new key was not delivered)."""
        async with self.db.transaction() as tx:
            await tx.execute("DELETE FROM next_master")
            await tx.execute(f"DELETE FROM {_NEXT}")  # noqa: S608 - constant table
        await self.db.checkpoint()

    async def retire_old_key(self) -> int:
        """Make the staged key (the one this store was opened with) the only key: the old
        key's wraps are deleted. Refused if any data key lacks a wrap under the new key."""
        if self._table != _NEXT:
            raise RotationError(
                "no rotation is staged for this master key (is BOT_MASTER_KEY the new key?)"
            )
        async with self.db.transaction() as tx:
            missing = await _scalar(
                tx,
                "SELECT COUNT(*) FROM data_keys"
                " WHERE person_id NOT IN (SELECT person_id FROM data_keys_next)",
            )
            if missing:
                raise RotationError(
                    f"{missing} data key(s) were added under the old key after staging; "
                    "run `keys rotate` again with the old key, then retire"
                )
            staged = await tx.fetch_one("SELECT check_value, pseudonym_key FROM next_master")
            if staged is None:
                raise RotationError("no staged key: run `keys rotate` first")
            await tx.execute(f"DELETE FROM {_CURRENT}")  # noqa: S608 - constant table
            await tx.execute(
                f"INSERT INTO {_CURRENT} (person_id, wrapped, created_at)"  # noqa: S608 - constant tables
                f" SELECT person_id, wrapped, created_at FROM {_NEXT}"
            )
            count = await _scalar(tx, "SELECT COUNT(*) FROM data_keys")
            await tx.execute("UPDATE meta SET value = ? WHERE name = 'check'", (staged[0],))
            await tx.execute("UPDATE meta SET value = ? WHERE name = 'pseudonym_key'", (staged[1],))
            await tx.execute("DELETE FROM next_master")
            await tx.execute(f"DELETE FROM {_NEXT}")  # noqa: S608 - constant table
        self._table = _CURRENT
        await self.db.checkpoint()
        return count


async def _scalar(tx: Tx, sql: str) -> int:
    row = await tx.fetch_one(sql)
    if row is None:  # an aggregate always returns a row
        raise RuntimeError("no row from an aggregate query")
    return int(row[0])
