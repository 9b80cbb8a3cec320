"""The key store: wrapped data keys and the wrapped pseudonym key, in their own file.

Kept apart from the data database so that deleting a person's wrapped key makes their rows
unreadable in every copy of the data database, backups included (crypto-shredding).

Nothing here can be compared with a copy of the data database (issue 27.3): row ids,
data-key owners and the slots of anchored rows are stored only as keyed references
(HMAC-SHA256 under a key derived from the pseudonym key, which only the master key
unlocks), and the row id and owner a handle maps to are sealed under another derived key.
Without the master key, an old backup's row ids minus what this store holds leaves every
row id, not the forgotten person's. Data keys carry no creation time (a time would match
the person's row).

Master keys are known by id. A rotation first *stages* the next key (every data key and the
pseudonym key wrapped under it as well, in `data_keys_next` / `next_master`), so either key
opens the store; only `retire`, run with the next key, makes it the one key.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path

from bot.core.errors import SteadyError
from bot.crypto import CryptoError, MasterKey, associated_data, random_key, seal, unseal
from bot.storage.backend import Backend, Row, StorageError, Tx
from bot.storage.engines import open_key_database

log = logging.getLogger(__name__)

_PSEUDONYM_LABEL = "pseudonym"
# The layout where nothing is stored in a form comparable with the data database.
_LAYOUT = b"refs-v1"
_REF_LABEL = b"steady key-store reference v1"
_BOX_LABEL = b"steady key-store identity box v1"
_BOX_KEY_ID = 1
# 128 bits: unique among any number of people the store will hold, and half the index.
_REF_HEX = 32
# Creation times are not kept (they would match the person's row in a backup); the
# column stays, always this.
_NO_TIME = 0
_CURRENT = "data_keys"
_NEXT = "data_keys_next"
# Data keys with a wrap under the staged key and none under the current one.
_KEY_TABLES = ("identities", "row_versions", _CURRENT, _NEXT, "next_master", "meta")
_ONLY_STAGED_COUNT = (
    f"SELECT COUNT(*) FROM {_NEXT} WHERE person_id NOT IN (SELECT person_id FROM {_CURRENT})"  # noqa: S608 - constant tables
)


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
        self._ref_key = b""  # set at open, from the pseudonym key
        self._box_key = b""
        # identities, in memory: a Telegram user's row id is needed synchronously (the
        # crisis path looks it up before anything may wait).
        self._row_of: dict[str, str] = {}
        self._owner_of: dict[str, str] = {}
        self._version_of: dict[str, int] = {}
        # row id -> slot reference -> newest version of each edited or deleted row: few
        # (only edits and deletions make one), and checked on every read, so kept in memory.
        self._slots_of: dict[str, dict[str, int]] = {}

    @classmethod
    async def open(cls, target: Path | str, master: MasterKey) -> KeyStore:
        """`target`: the key store's file, or its own PostgreSQL database's URL."""
        db = await open_key_database(target)
        store = cls(db, master)
        try:
            await store._check_or_initialise()
            await store._derive_reference_keys()
            await store._adopt_reference_layout()
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
                await tx.execute("INSERT INTO meta (name, value) VALUES ('layout', ?)", (_LAYOUT,))
                return
            staged = await tx.fetch_one("SELECT check_value FROM next_master")
        if self._master.matches(bytes(row["value"])):
            return
        if staged is not None and self._master.matches(bytes(staged["check_value"])):
            self._table = _NEXT
            return
        raise WrongMasterKeyError(f"the master key does not match the key store {self.db.name}")

    async def _derive_reference_keys(self) -> None:
        pseudo = await self.pseudonym_key()
        self._ref_key = hmac.new(pseudo, _REF_LABEL, hashlib.sha256).digest()
        self._box_key = hmac.new(pseudo, _BOX_LABEL, hashlib.sha256).digest()

    def _ref(self, value: str) -> str:
        """What is stored in place of a row id or an owner: equal values, equal references,
        and nobody without the master key can compute one from a backup's row id."""
        return hmac.new(self._ref_key, value.encode(), hashlib.sha256).hexdigest()[:_REF_HEX]

    def _slot_ref(self, row_id: str, slot: str) -> str:
        # Slots name data-database ids (entry ids, message ids): referenced with the row id.
        return self._ref(f"{row_id}\x1f{slot}")

    def _box(self, handle: str, row_id: str, owner: str) -> bytes:
        aad = associated_data("identity", handle)
        return seal(self._box_key, _BOX_KEY_ID, f"{row_id}\n{owner}".encode(), aad)

    def _unbox(self, handle: str, box: bytes) -> tuple[str, str]:
        opened = unseal(self._box_key, _BOX_KEY_ID, box, associated_data("identity", handle))
        row_id, _, owner = opened.decode().partition("\n")
        return row_id, owner

    async def _adopt_reference_layout(self) -> None:
        """Once, for a store written before references: every row id, owner and slot
        becomes a reference, every wrap is relabelled by its reference, creation times go.
        Data keys from before identities (named by the handle) get an identity here."""
        async with self.db.transaction() as tx:
            await tx.lock("keystore-initialise")
            if await tx.fetch_one("SELECT 1 FROM meta WHERE name = 'layout'") is not None:
                return
            if await tx.fetch_one("SELECT 1 FROM next_master") is not None:
                raise StorageError(
                    "the key store has a staged rotation from an older Steady: finish it "
                    "(`keys retire`) with that version before upgrading"
                )
            if self._table != _CURRENT:  # only reachable with a staged rotation
                raise StorageError("open the key store with its current master key")
            keys = await tx.fetch_all(f"SELECT person_id, wrapped FROM {_CURRENT}")  # noqa: S608 - constant table
            people = await tx.fetch_all("SELECT handle, row_id, owner, version FROM identities")
            versions = await tx.fetch_all("SELECT row_id, slot, version FROM row_versions")
            owners = {str(p["owner"]) for p in people}
            identities = [
                (str(p["handle"]), str(p["row_id"]), str(p["owner"]), int(p["version"]))
                for p in people
            ]
            # Before identities, the data key was named by the handle itself.
            identities += [
                (str(k["person_id"]), new_row_id(), str(k["person_id"]), 0)
                for k in keys
                if str(k["person_id"]) not in owners
            ]
            await tx.execute(f"DELETE FROM {_CURRENT}")  # noqa: S608 - constant table
            await tx.executemany(
                f"INSERT INTO {_CURRENT} (person_id, wrapped, created_at) VALUES (?, ?, ?)",  # noqa: S608 - constant table
                [
                    (ref, self._master.wrap(self._master.unwrap(bytes(k["wrapped"]), pid), ref), 0)
                    for k in keys
                    for pid in [str(k["person_id"])]
                    for ref in [self._ref(pid)]
                ],
            )
            await tx.execute("DELETE FROM identities")
            await tx.executemany(
                "INSERT INTO identities (handle, row_id, owner, version, sealed)"
                " VALUES (?, ?, ?, ?, ?)",
                [
                    (h, self._ref(r), self._ref(o), v, self._box(h, r, o))
                    for h, r, o, v in identities
                ],
            )
            await tx.execute("DELETE FROM row_versions")
            await tx.executemany(
                "INSERT INTO row_versions (row_id, slot, version) VALUES (?, ?, ?)",
                [
                    (self._ref(r), self._slot_ref(r, slot), int(v["version"]))
                    for v in versions
                    for r, slot in [(str(v["row_id"]), str(v["slot"]))]
                ],
            )
            await tx.execute("INSERT INTO meta (name, value) VALUES ('layout', ?)", (_LAYOUT,))
        await self.scrub()

    async def scrub(self) -> None:
        """Deleted and replaced rows out of every file of the store: SQLite's secure_delete
        and a WAL checkpoint; on PostgreSQL a VACUUM of the key tables (dead row versions
        stay in the table files until one runs)."""
        await self.db.checkpoint()
        await self.db.vacuum(_KEY_TABLES)

    async def _load_identities(self) -> None:
        rows = await self.db.fetch_all("SELECT handle, version, sealed FROM identities")
        damaged = 0
        for row in rows:
            try:
                self._remember(row)
            except StorageError:
                damaged += 1  # that person is refused when they write, not everyone now
        if damaged:
            log.warning("%d identities in the key store do not open", damaged)
        anchors = await self.db.fetch_all("SELECT row_id, slot, version FROM row_versions")
        if not anchors:
            return
        by_ref = {self._ref(r): r for r in self._owner_of}
        for row in anchors:
            row_id = by_ref.get(str(row["row_id"]))
            if row_id is not None:
                self._remember_slot(row_id, row)

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
            (version, self._ref(row_id), version),
        )
        self._version_of[row_id] = version

    def anchored_slot(self, row_id: str, slot: str) -> int:
        """The newest version of one sealed row (0 if never edited or deleted)."""
        return self._slots_of.get(row_id, {}).get(self._slot_ref(row_id, slot), 0)

    async def anchor_slots(self, row_id: str, versions: Mapping[str, int]) -> None:
        """Called after the rows are written (or deleted), in one transaction; an anchor
        only moves forward, for the same reason as `anchor_version`."""
        known = self._slots_of.setdefault(row_id, {})
        refs = {self._slot_ref(row_id, s): v for s, v in versions.items()}
        newer = {s: v for s, v in refs.items() if v > known.get(s, 0)}
        if not newer:
            return
        async with self.db.transaction() as tx:
            # Only forward, on both engines (another replica may have anchored a newer one).
            await tx.executemany(
                "INSERT INTO row_versions (row_id, slot, version) VALUES (?, ?, ?)"
                " ON CONFLICT (row_id, slot) DO UPDATE SET version = excluded.version"
                " WHERE row_versions.version < excluded.version",
                [(self._ref(row_id), s, v) for s, v in newer.items()],
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
                [(v, self._ref(r)) for r, v in versions.items()],
            )
            await tx.execute("DELETE FROM row_versions")
            await tx.executemany(
                "INSERT INTO row_versions (row_id, slot, version) VALUES (?, ?, ?)",
                [
                    (self._ref(r), self._slot_ref(r, s), v)
                    for r, by_slot in slots.items()
                    for s, v in by_slot.items()
                    if v > 0
                ],
            )
        self._version_of = {r: versions.get(r, 0) for r in self._owner_of}
        self._slots_of = {
            r: {self._slot_ref(r, s): v for s, v in m.items() if v > 0} for r, m in slots.items()
        }

    def row_ids(self) -> set[str]:
        return set(self._owner_of)

    async def find(self, handle: str) -> str | None:
        """The row id for a handle: from memory, else from the store. Another replica may
        have made it since this one loaded the identities."""
        known = self._row_of.get(handle)
        if known is not None:
            return known
        row = await self.db.fetch_one(
            "SELECT handle, version, sealed FROM identities WHERE handle = ?",
            (handle,),
        )
        if row is None:
            return None
        row_id = self._remember(row)
        # Its rows' anchors too: that replica may have anchored edits since this one started.
        for slot in await self.db.fetch_all(
            "SELECT row_id, slot, version FROM row_versions WHERE row_id = ?", (self._ref(row_id),)
        ):
            self._remember_slot(row_id, slot)
        return row_id

    async def owners(self, row_ids: list[str]) -> dict[str, str]:
        """row id -> owner for each known row id, asking the store for those not in memory."""
        found = {r: o for r in row_ids if (o := self._owner_of.get(r)) is not None}
        missing = [self._ref(r) for r in row_ids if r not in found]
        for start in range(0, len(missing), 500):
            chunk = missing[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = await self.db.fetch_all(
                "SELECT handle, version, sealed FROM identities"  # noqa: S608 - placeholders only
                f" WHERE row_id IN ({marks})",
                chunk,
            )
            for row in rows:
                row_id = self._remember(row)
                found[row_id] = self._owner_of[row_id]
        return found

    def _remember(self, row: Row) -> str:
        """Open an identity row into memory; returns its row id."""
        handle = str(row["handle"])
        try:
            row_id, owner = self._unbox(handle, bytes(row["sealed"]))
        except (CryptoError, TypeError) as exc:
            raise StorageError("an identity in the key store does not open") from exc
        self._row_of[handle] = row_id
        self._owner_of[row_id] = owner
        version = int(row["version"])
        if version > self._version_of.get(row_id, 0):
            self._version_of[row_id] = version
        return row_id

    def _remember_slot(self, row_id: str, row: Row) -> None:
        known = self._slots_of.setdefault(row_id, {})
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
        ref = self._ref(row_id)
        await self.db.execute(
            "INSERT OR IGNORE INTO identities (handle, row_id, owner, sealed) VALUES (?, ?, ?, ?)",
            (handle, ref, ref, self._box(handle, row_id, row_id)),
        )
        found = await self.find(handle)
        if found is None:  # inserted or already there: only a broken database lands here
            raise RuntimeError("identity row missing right after it was written")
        return found

    async def destroy_identity(self, row_id: str) -> None:
        """Cut the link and shred the key, in one transaction: afterwards nothing here names
        the row id, so no copy of the data database can be tied to the person."""
        owner = (await self.owners([row_id])).get(row_id, row_id)
        async with self.db.transaction() as tx:
            await tx.execute("DELETE FROM identities WHERE row_id = ?", (self._ref(row_id),))
            await tx.execute("DELETE FROM row_versions WHERE row_id = ?", (self._ref(row_id),))
            for table in (_CURRENT, _NEXT):
                await tx.execute(
                    f"DELETE FROM {table} WHERE person_id = ?",  # noqa: S608 - constant table
                    (self._ref(owner),),
                )
        self.drop_cached(row_id)
        await self.scrub()

    async def adopt_legacy_keys(self) -> dict[str, str]:
        """handle -> row id of every person from before identities (their data key, and
        their texts' owner, is the handle itself), to move their data rows. The identity
        was made when the store took the reference layout."""
        return {h: r for h, r in self._row_of.items() if self._owner_of.get(r) == h}

    async def add_people(self, people: Sequence[tuple[str, str, bytes]]) -> None:
        """Bulk (handle, row id, data key) for new people, whose owner is their row id: for
        benchmarks and tests that build a large store."""
        async with self.db.transaction() as tx:
            await tx.executemany(
                f"INSERT INTO {self._table} (person_id, wrapped, created_at) VALUES (?, ?, ?)",  # noqa: S608 - constant table
                [
                    (ref, self._master.wrap(k, ref), _NO_TIME)
                    for _, r, k in people
                    for ref in [self._ref(r)]
                ],
            )
            await tx.executemany(
                "INSERT INTO identities (handle, row_id, owner, sealed) VALUES (?, ?, ?, ?)",
                [(h, self._ref(r), self._ref(r), self._box(h, r, r)) for h, r, _ in people],
            )
        for handle, row_id, _ in people:
            self._row_of[handle] = row_id
            self._owner_of[row_id] = row_id

    async def pseudonym_key(self) -> bytes:
        if self._table == _NEXT:
            row = await self.db.fetch_one("SELECT pseudonym_key AS value FROM next_master")
        else:
            row = await self.db.fetch_one("SELECT value FROM meta WHERE name = 'pseudonym_key'")
        if row is None:
            raise WrongMasterKeyError("the key store has no pseudonym key")
        return self._master.unwrap(bytes(row["value"]), _PSEUDONYM_LABEL)

    async def data_key(self, person_id: str) -> bytes | None:
        """`person_id`: the key's owner (`owner_of`)."""
        ref = self._ref(person_id)
        row = await self.db.fetch_one(
            f"SELECT wrapped FROM {self._table} WHERE person_id = ?",  # noqa: S608 - constant table
            (ref,),
        )
        if row is None:
            other = _CURRENT if self._table == _NEXT else _NEXT
            elsewhere = await self.db.fetch_one(
                f"SELECT 1 FROM {other} WHERE person_id = ?",  # noqa: S608 - constant table
                (ref,),
            )
            if elsewhere is not None:
                # Never "no key" (which would read as a half-done /forget and erase them).
                raise RotationError("this data key is wrapped only under the other master key")
            return None
        return self._master.unwrap(bytes(row["wrapped"]), ref)

    async def data_keys(self, person_ids: list[str]) -> dict[str, bytes]:
        """Unwrap many keys in one query (the daily-prompt batch needs hundreds at once)."""
        by_ref = {self._ref(p): p for p in person_ids}
        return {by_ref[ref]: key for ref, key in (await self._unwrap(list(by_ref))).items()}

    async def _unwrap(self, refs: list[str]) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        for start in range(0, len(refs), 500):
            chunk = refs[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = await self.db.fetch_all(
                f"SELECT person_id, wrapped FROM {self._table} WHERE person_id IN ({marks})",  # noqa: S608 - only placeholders are interpolated
                chunk,
            )
            for row in rows:
                ref = str(row["person_id"])
                found[ref] = self._master.unwrap(bytes(row["wrapped"]), ref)
        return found

    async def create_data_key(self, person_id: str) -> bytes:
        """Return the person's key, making one if they have none (safe to call twice)."""
        key = random_key()
        ref = self._ref(person_id)
        async with self.db.transaction() as tx:
            await tx.execute(
                f"INSERT OR IGNORE INTO {self._table} (person_id, wrapped, created_at)"  # noqa: S608 - constant table
                " VALUES (?, ?, ?)",
                (ref, self._master.wrap(key, ref), _NO_TIME),
            )
        stored = await self.data_key(person_id)
        if stored is None:  # inserted or already there: only a broken database lands here
            raise RuntimeError("data key missing right after it was written")
        return stored

    async def destroy_data_key(self, person_id: str) -> None:
        async with self.db.transaction() as tx:
            for table in (_CURRENT, _NEXT):
                await tx.execute(
                    f"DELETE FROM {table} WHERE person_id = ?",  # noqa: S608 - constant table
                    (self._ref(person_id),),
                )
        await self.scrub()

    # --- rotation ------------------------------------------------------------------------

    async def staged_key_id(self) -> int | None:
        row = await self.db.fetch_one("SELECT key_id FROM next_master")
        return None if row is None else int(row["key_id"])

    async def all_data_keys(self) -> dict[str, bytes]:
        """Every key this master key opens, by its stored reference."""
        rows = await self.db.fetch_all(f"SELECT person_id FROM {self._table}")  # noqa: S608 - constant table
        return await self._unwrap([str(r["person_id"]) for r in rows])

    async def stage(self, new_master: MasterKey) -> dict[str, bytes]:
        """Wrap every data key and the pseudonym key under `new_master` as well; the current
        wraps stay. Safe to repeat (a resumed rotation). Returns the keys it wrapped, by
        their stored reference."""
        if self._table != _CURRENT:
            raise RotationError("the store was opened with the staged key; open it with the old")
        if new_master.key_id == self._master.key_id:
            raise RotationError("the new master key is the current one")
        pseudo = await self.pseudonym_key()
        async with self.db.transaction() as tx:
            staged = await tx.fetch_one("SELECT key_id FROM next_master")
            if staged is not None and int(staged["key_id"]) != new_master.key_id:
                # People who joined while the bot served with the staged key have a wrap
                # under it alone: replacing it would lose their keys for good.
                only = await _scalar(tx, _ONLY_STAGED_COUNT)
                if only:
                    raise RotationError(
                        f"another new key is staged and {only} data key(s) are wrapped only "
                        "under it; finish that rotation with it (`keys rotate` with "
                        "BOT_NEW_MASTER_KEY set to it, or `keys retire`)"
                    )
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
                [(pid, new_master.wrap(key, pid), _NO_TIME) for pid, key in keys.items()],
            )
        await self.scrub()
        return keys

    async def unstage(self) -> None:
        """Undo a staging that failed: only staged wraps whose key also has a wrap under the
        current master key go. A key wrapped under the staged key alone (someone joined
        while the bot served with it) is never deleted, and nor is the staged key's check
        value while such a key needs it to open."""
        async with self.db.transaction() as tx:
            await tx.execute(
                f"DELETE FROM {_NEXT} WHERE person_id IN (SELECT person_id FROM {_CURRENT})"  # noqa: S608 - constant tables
            )
            if not await _scalar(tx, _ONLY_STAGED_COUNT):
                await tx.execute("DELETE FROM next_master")
        await self.scrub()

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
        await self.scrub()
        return count


async def _scalar(tx: Tx, sql: str) -> int:
    row = await tx.fetch_one(sql)
    if row is None:  # an aggregate always returns a row
        raise RuntimeError("no row from an aggregate query")
    return int(row[0])
