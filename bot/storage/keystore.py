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

Identities are read when their person is met (one indexed query), never all at start
(issue 25): memory holds the people met lately (bot/storage/identity_cache.py).
Master keys are known by id; rotation is bot/storage/key_rotation.py.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from bot.core.errors import SteadyError
from bot.crypto import CryptoError, MasterKey, associated_data, random_key, seal, unseal_with
from bot.storage.anchor_writer import AnchorWriter
from bot.storage.backend import Backend, Row, StorageError
from bot.storage.engines import open_key_database
from bot.storage.identity_cache import Known, RecentIdentities, new_row_id
from bot.storage.key_batches import CHUNK, KeyBatches
from bot.storage.key_layout import LAYOUT, adopt_reference_layout
from bot.storage.key_rotation import (
    CURRENT,
    NEXT,
    NO_TIME,
    PSEUDONYM_LABEL,
    KeyRotation,
    RotationError,
)

__all__ = ["KeyStore", "RotationError", "WrongMasterKeyError", "new_row_id"]

log = logging.getLogger(__name__)

_REF_LABEL = b"steady key-store reference v1"
_BOX_LABEL = b"steady key-store identity box v1"
_BOX_KEY_ID = 1
# 128 bits: unique among any number of people the store will hold, and half the index.
_REF_HEX = 32
_KEY_TABLES = ("identities", "row_versions", CURRENT, NEXT, "next_master", "meta")
# In meta once the start-up's whole-store passes (legacy rows moved, orphans swept) have
# run with this layout: after that a half-finished /forget leaves a mark instead
# (bot/storage/identities.py), and start-up reads nothing that grows with people.
_SWEPT = "swept"
_CHUNK = CHUNK


class WrongMasterKeyError(SteadyError):
    """The key store was created with a different master key."""


class KeyStore(KeyBatches, KeyRotation):
    def __init__(self, db: Backend, master: MasterKey) -> None:
        self.db = db
        self._master = master
        self._table = CURRENT  # where this master key's wraps are
        self._ref_key = b""  # set at open, from the pseudonym key
        # Keyed once, copied per reference: `hmac.new` set up OpenSSL's key on every call.
        self._ref_mac = hmac.new(b"", digestmod=hashlib.sha256)
        self._box_key = b""
        self._box_aead: AESGCM | None = None  # the box key's, made once
        # The people met lately: a Telegram user's row id is needed synchronously (the
        # crisis path's memory is keyed by it), once their update has looked it up.
        self.cache = RecentIdentities()
        self._anchors = AnchorWriter(db)

    @classmethod
    async def open(cls, target: Path | str, master: MasterKey) -> KeyStore:
        """`target`: the key store's file, or its own PostgreSQL database's URL."""
        db = await open_key_database(target)
        store = cls(db, master)
        try:
            await store._check_or_initialise()
            await store._derive_reference_keys()
            await adopt_reference_layout(store)
        except BaseException:
            await db.close()
            raise
        return store

    async def close(self) -> None:
        await self._anchors.close()
        await self.db.close()

    async def flush_anchors(self) -> None:
        """Write the settings anchors that wait for their batch now."""
        await self._anchors.flush()

    @property
    def opened_with_next_key(self) -> bool:
        return self._table == NEXT

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
                    (self._master.wrap(random_key(), PSEUDONYM_LABEL),),
                )
                await tx.execute("INSERT INTO meta (name, value) VALUES ('layout', ?)", (LAYOUT,))
                # A new store has nobody to move or sweep.
                await tx.execute("INSERT INTO meta (name, value) VALUES (?, ?)", (_SWEPT, b"1"))
                return
            staged = await tx.fetch_one("SELECT check_value FROM next_master")
        if self._master.matches(bytes(row["value"])):
            return
        if staged is not None and self._master.matches(bytes(staged["check_value"])):
            self._table = NEXT
            return
        raise WrongMasterKeyError(f"the master key does not match the key store {self.db.name}")

    async def _derive_reference_keys(self) -> None:
        pseudo = await self.pseudonym_key()
        self._ref_key = hmac.new(pseudo, _REF_LABEL, hashlib.sha256).digest()
        self._ref_mac = hmac.new(self._ref_key, digestmod=hashlib.sha256)
        self._box_key = hmac.new(pseudo, _BOX_LABEL, hashlib.sha256).digest()
        self._box_aead = AESGCM(self._box_key)

    def _ref(self, value: str) -> str:
        """What is stored in place of a row id or an owner: equal values, equal references,
        and nobody without the master key can compute one from a backup's row id."""
        mac = self._ref_mac.copy()
        mac.update(value.encode())
        return mac.hexdigest()[:_REF_HEX]

    def _slot_ref(self, row_id: str, slot: str) -> str:
        # Slots name data-database ids (entry ids, message ids): referenced with the row id.
        return self._ref(f"{row_id}\x1f{slot}")

    def _box(self, handle: str, row_id: str, owner: str) -> bytes:
        aad = associated_data("identity", handle)
        return seal(self._box_key, _BOX_KEY_ID, f"{row_id}\n{owner}".encode(), aad)

    def _unbox(self, handle: str, box: bytes) -> tuple[str, str]:
        if self._box_aead is None:
            raise CryptoError("the key store's reference keys are not derived yet")
        opened = unseal_with(self._box_aead, _BOX_KEY_ID, box, associated_data("identity", handle))
        row_id, _, owner = opened.decode().partition("\n")
        return row_id, owner

    async def scrub(self) -> None:
        """Deleted and replaced rows out of every file of the store: SQLite's secure_delete
        and a WAL checkpoint; on PostgreSQL a VACUUM of the key tables (dead row versions
        stay in the table files until one runs)."""
        await self.db.checkpoint()
        await self.db.vacuum(_KEY_TABLES)

    # --- the start-up's whole-store passes ------------------------------------------------

    async def swept(self) -> bool:
        """Whether the whole-store passes at start have run once with this layout."""
        return await self.db.fetch_one("SELECT 1 FROM meta WHERE name = ?", (_SWEPT,)) is not None

    async def note_swept(self) -> None:
        await self.db.execute(
            "INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
            (_SWEPT, b"1"),
        )

    async def everyone(self) -> dict[str, str]:
        """row id -> owner of every identity (the whole store: `keys reanchor` and the
        once-only passes at start, never serving). Damaged identities are left out."""
        found: dict[str, str] = {}
        for row in await self.db.fetch_all("SELECT handle, sealed FROM identities"):
            try:
                row_id, owner = self._unbox(str(row["handle"]), bytes(row["sealed"]))
            except (CryptoError, TypeError):
                continue
            found[row_id] = owner
        return found

    async def adopt_legacy_keys(self) -> dict[str, str]:
        """handle -> row id of every person from before identities (their data key, and
        their texts' owner, is the handle itself), to move their data rows. The identity
        was made when the store took the reference layout."""
        moved: dict[str, str] = {}
        for row in await self.db.fetch_all("SELECT handle, sealed FROM identities"):
            handle = str(row["handle"])
            try:
                row_id, owner = self._unbox(handle, bytes(row["sealed"]))
            except (CryptoError, TypeError):
                continue
            if owner == handle:
                moved[handle] = row_id
        return moved

    # --- identities ----------------------------------------------------------------------

    def row_id(self, handle: str) -> str | None:
        """From memory only: None for someone not met lately (`find` asks the store)."""
        return self.cache.row_id(handle)

    def owner_of(self, row_id: str) -> str | None:
        """The name of the row's data key and of its sealed texts' owner (memory only)."""
        known = self.cache.get(row_id)
        return None if known is None else known.owner

    def anchored_version(self, row_id: str) -> int:
        """The newest version of the person's row ever written; an older one is a rollback."""
        known = self.cache.get(row_id)
        return 0 if known is None else known.version

    async def anchor_version(self, row_id: str, version: int) -> None:
        """Called after the row is written: a crash in between leaves the row newer than the
        anchor, which opens (and is then anchored); only an older row is refused. Memory
        has it at once; the store within `ANCHOR_DELAY`, with the others of that moment
        (bot/storage/anchor_writer.py)."""
        known = self.cache.get(row_id)
        if known is not None and version <= known.version:
            return
        if known is None:
            ref = self._ref(row_id)
        else:
            ref = known.ref = known.ref or self._ref(row_id)
        if known is not None:
            known.version = version
        self._anchors.put(row_id, ref, version)

    def anchored_slot(self, row_id: str, slot: str) -> int:
        """The newest version of one sealed row (0 if never edited or deleted)."""
        known = self.cache.get(row_id)
        if known is None or not known.slots:
            return 0
        return known.slots.get(self._slot_ref(row_id, slot), 0)

    async def anchor_slots(self, row_id: str, versions: Mapping[str, int]) -> None:
        """Called after the rows are written (or deleted), in one transaction; an anchor
        only moves forward, for the same reason as `anchor_version`."""
        known = self.cache.get(row_id)
        slots = await self._slots(row_id, known) if known is not None else {}
        refs = {self._slot_ref(row_id, s): v for s, v in versions.items()}
        newer = {s: v for s, v in refs.items() if v > slots.get(s, 0)}
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
        slots.update(newer)

    async def _slots(self, row_id: str, known: Known) -> dict[str, int]:
        """The row's anchors, read once per time it is met (another replica may have
        anchored edits since)."""
        if known.slots is None:
            rows = await self.db.fetch_all(
                "SELECT slot, version FROM row_versions WHERE row_id = ?", (self._ref(row_id),)
            )
            found = {str(r["slot"]): int(r["version"]) for r in rows}
            if known.slots is None:  # another task may have read them meanwhile
                known.slots = found
        return known.slots

    async def reanchor(
        self, versions: Mapping[str, int], slots: Mapping[str, Mapping[str, int]]
    ) -> None:
        """After a data backup older than this store was restored: the rows now there are
        the newest (`versions`: row id -> settings revision; `slots`: row id -> slot ->
        version of each versioned row). Anchors of rows no longer there go."""
        await self._anchors.flush()  # what waits is older than what is set here
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
        # What memory holds now says what the store says (anchors moved back, too).
        for row_id, known in self.cache.entries():
            known.version = versions.get(row_id, 0)
            by_slot = slots.get(row_id, {})
            known.slots = {self._slot_ref(row_id, s): v for s, v in by_slot.items() if v > 0}

    async def find(self, handle: str) -> str | None:
        """The row id for a handle: from memory, else one indexed read of the store (also
        how another replica's new people are met)."""
        row_id = self.cache.row_id(handle)
        if row_id is None:
            row = await self.db.fetch_one(
                "SELECT handle, version, sealed FROM identities WHERE handle = ?",
                (handle,),
            )
            if row is None:
                return None
            row_id = self._remember(row)
        known = self.cache.get(row_id)
        if known is not None:
            await self._slots(row_id, known)  # anchored_slot reads memory only
        return row_id

    async def owners(self, row_ids: list[str]) -> dict[str, str]:
        """row id -> owner for each known row id, asking the store for those not in memory."""
        found: dict[str, str] = {}
        missing: list[str] = []
        for row_id in row_ids:
            known = self.cache.get(row_id)
            if known is not None:
                found[row_id] = known.owner
            else:
                missing.append(self._ref(row_id))
        for start in range(0, len(missing), _CHUNK):
            chunk = missing[start : start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            rows = await self.db.fetch_all(
                "SELECT handle, version, sealed FROM identities"  # noqa: S608 - placeholders only
                f" WHERE row_id IN ({marks})",
                chunk,
            )
            for row in rows:
                if (met := self._met(row)) is not None:
                    found[met[0]] = met[1]
        return found

    def _met(self, row: Row) -> tuple[str, str] | None:
        """(row id, owner) of an identity row, now in memory; None if it does not open."""
        try:
            row_id = self._remember(row)
        except StorageError:
            log.warning("an identity in the key store does not open")
            return None  # that person is refused, not everyone in the batch
        known = self.cache.get(row_id)
        return None if known is None else (row_id, known.owner)

    def _remember(self, row: Row) -> str:
        """Open an identity row into memory; returns its row id."""
        handle = str(row["handle"])
        try:
            row_id, owner = self._unbox(handle, bytes(row["sealed"]))
        except (CryptoError, TypeError) as exc:
            raise StorageError("an identity in the key store does not open") from exc
        # An anchor of this process's that waits for its batch is newer than the store's.
        version = max(int(row["version"]), self._anchors.waiting(row_id))
        self.cache.put(row_id, Known(handle, owner, version))
        return row_id

    def drop_cached(self, row_id: str) -> None:
        """Another replica deleted this identity: forget the copy in memory too."""
        self.cache.drop(row_id)

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
            for table in (CURRENT, NEXT):
                await tx.execute(
                    f"DELETE FROM {table} WHERE person_id = ?",  # noqa: S608 - constant table
                    (self._ref(owner),),
                )
        self._anchors.forget(row_id)
        self.drop_cached(row_id)
        await self.scrub()

    async def add_people(self, people: Sequence[tuple[str, str, bytes]]) -> None:
        """Bulk (handle, row id, data key) for new people, whose owner is their row id: for
        benchmarks and tests that build a large store."""
        async with self.db.transaction() as tx:
            await tx.executemany(
                f"INSERT INTO {self._table} (person_id, wrapped, created_at) VALUES (?, ?, ?)",  # noqa: S608 - constant table
                [
                    (ref, self._master.wrap(k, ref), NO_TIME)
                    for _, r, k in people
                    for ref in [self._ref(r)]
                ],
            )
            await tx.executemany(
                "INSERT INTO identities (handle, row_id, owner, sealed) VALUES (?, ?, ?, ?)",
                [(h, self._ref(r), self._ref(r), self._box(h, r, r)) for h, r, _ in people],
            )

    # --- data keys -----------------------------------------------------------------------

    async def pseudonym_key(self) -> bytes:
        if self._table == NEXT:
            row = await self.db.fetch_one("SELECT pseudonym_key AS value FROM next_master")
        else:
            row = await self.db.fetch_one("SELECT value FROM meta WHERE name = 'pseudonym_key'")
        if row is None:
            raise WrongMasterKeyError("the key store has no pseudonym key")
        return self._master.unwrap(bytes(row["value"]), PSEUDONYM_LABEL)

    async def data_key(self, person_id: str) -> bytes | None:
        """`person_id`: the key's owner (`owner_of`)."""
        ref = self._ref(person_id)
        row = await self.db.fetch_one(
            f"SELECT wrapped FROM {self._table} WHERE person_id = ?",  # noqa: S608 - constant table
            (ref,),
        )
        if row is None:
            other = CURRENT if self._table == NEXT else NEXT
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
        for start in range(0, len(refs), _CHUNK):
            chunk = refs[start : start + _CHUNK]
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
                (ref, self._master.wrap(key, ref), NO_TIME),
            )
        stored = await self.data_key(person_id)
        if stored is None:  # inserted or already there: only a broken database lands here
            raise RuntimeError("data key missing right after it was written")
        return stored

    async def destroy_data_key(self, person_id: str) -> None:
        async with self.db.transaction() as tx:
            for table in (CURRENT, NEXT):
                await tx.execute(
                    f"DELETE FROM {table} WHERE person_id = ?",  # noqa: S608 - constant table
                    (self._ref(person_id),),
                )
        await self.scrub()
