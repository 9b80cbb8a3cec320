"""The key store's move, once, to the layout where nothing is comparable with the data
database (issue 27.3): every row id, owner and slot becomes a keyed reference, every wrap
is relabelled by its reference, creation times go. Data keys from before identities (named
by the handle) get an identity here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.storage.backend import StorageError
from bot.storage.identity_cache import new_row_id
from bot.storage.key_rotation import CURRENT

if TYPE_CHECKING:
    from bot.storage.keystore import KeyStore

# The layout where nothing is stored in a form comparable with the data database.
LAYOUT = b"refs-v1"


async def adopt_reference_layout(store: KeyStore) -> bool:
    """True if the store was moved now (it was written before references)."""
    master = store._master
    async with store.db.transaction() as tx:
        await tx.lock("keystore-initialise")
        if await tx.fetch_one("SELECT 1 FROM meta WHERE name = 'layout'") is not None:
            return False
        if await tx.fetch_one("SELECT 1 FROM next_master") is not None:
            raise StorageError(
                "the key store has a staged rotation from an older Steady: finish it "
                "(`keys retire`) with that version before upgrading"
            )
        if store._table != CURRENT:  # only reachable with a staged rotation
            raise StorageError("open the key store with its current master key")
        keys = await tx.fetch_all(f"SELECT person_id, wrapped FROM {CURRENT}")  # noqa: S608 - constant table
        people = await tx.fetch_all("SELECT handle, row_id, owner, version FROM identities")
        versions = await tx.fetch_all("SELECT row_id, slot, version FROM row_versions")
        owners = {str(p["owner"]) for p in people}
        identities = [
            (str(p["handle"]), str(p["row_id"]), str(p["owner"]), int(p["version"])) for p in people
        ]
        # Before identities, the data key was named by the handle itself.
        identities += [
            (str(k["person_id"]), new_row_id(), str(k["person_id"]), 0)
            for k in keys
            if str(k["person_id"]) not in owners
        ]
        await tx.execute(f"DELETE FROM {CURRENT}")  # noqa: S608 - constant table
        await tx.executemany(
            f"INSERT INTO {CURRENT} (person_id, wrapped, created_at) VALUES (?, ?, ?)",  # noqa: S608 - constant table
            [
                (ref, master.wrap(master.unwrap(bytes(k["wrapped"]), pid), ref), 0)
                for k in keys
                for pid in [str(k["person_id"])]
                for ref in [store._ref(pid)]
            ],
        )
        await tx.execute("DELETE FROM identities")
        await tx.executemany(
            "INSERT INTO identities (handle, row_id, owner, version, sealed)"
            " VALUES (?, ?, ?, ?, ?)",
            [
                (h, store._ref(r), store._ref(o), v, store._box(h, r, o))
                for h, r, o, v in identities
            ],
        )
        await tx.execute("DELETE FROM row_versions")
        await tx.executemany(
            "INSERT INTO row_versions (row_id, slot, version) VALUES (?, ?, ?)",
            [
                (store._ref(r), store._slot_ref(r, slot), int(v["version"]))
                for v in versions
                for r, slot in [(str(v["row_id"]), str(v["slot"]))]
            ],
        )
        await tx.execute("INSERT INTO meta (name, value) VALUES ('layout', ?)", (LAYOUT,))
    await store.scrub()
    return True
