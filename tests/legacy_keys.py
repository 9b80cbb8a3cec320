"""A key store as Steady wrote it before references (issue 27.3): row ids, owners and
slots in the clear, and data keys named (and wrapped) by their owner."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from bot.crypto import MasterKey
from bot.storage.keystore import KeyStore

WRITTEN_AT = 1_764_493_200


async def write_before_references(
    target: Path | str,
    master: MasterKey,
    keys: Mapping[str, bytes],
    identities: Sequence[tuple[str, str, str]] = (),
    versions: Sequence[tuple[str, str, int]] = (),
) -> None:
    """`keys`: owner -> data key; `identities`: (handle, row id, owner); `versions`: (row
    id, slot, version). Into a new, empty store."""
    store = await KeyStore.open(target, master)
    try:
        assert not await store.everyone()
        async with store.db.transaction() as tx:
            await tx.execute("DELETE FROM meta WHERE name IN ('layout', 'swept')")
            await tx.executemany(
                "INSERT INTO data_keys (person_id, wrapped, created_at) VALUES (?, ?, ?)",
                [(owner, master.wrap(key, owner), WRITTEN_AT) for owner, key in keys.items()],
            )
            await tx.executemany(
                "INSERT INTO identities (handle, row_id, owner) VALUES (?, ?, ?)", identities
            )
            await tx.executemany(
                "INSERT INTO row_versions (row_id, slot, version) VALUES (?, ?, ?)", versions
            )
    finally:
        await store.close()
