"""A key store written before references takes the reference layout at its first open
(issue 27.3): everyone reads as before, and no row id, owner or slot is left in the clear."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.crypto import MasterKey, random_key
from bot.storage.backend import StorageError
from bot.storage.keystore import KeyStore
from tests.legacy_keys import write_before_references
from tests.storage.conftest import Targets


async def every_value(store: KeyStore) -> list[bytes]:
    found: list[bytes] = []
    for table in ("identities", "data_keys", "row_versions", "meta"):
        for row in await store.db.fetch_all(f"SELECT * FROM {table}"):
            found += [v if isinstance(v, bytes) else str(v).encode() for v in tuple(row)]
    return found


async def test_an_older_store_takes_references_and_reads_as_before(targets: Targets) -> None:
    master = MasterKey(os.urandom(32))
    joined, legacy = random_key(), random_key()
    row_id = "r" + "ab" * 16
    await write_before_references(
        targets.keys,
        master,
        {row_id: joined, "legacy-handle": legacy},
        identities=[("handle-1", row_id, row_id)],
        versions=[(row_id, "journal:entry-77", 4)],
    )
    store = await KeyStore.open(targets.keys, master)
    try:
        assert store.row_id("handle-1") is None  # memory holds nobody before they are met
        assert await store.find("handle-1") == row_id
        assert store.row_id("handle-1") == row_id
        assert await store.data_key(row_id) == joined
        assert store.anchored_slot(row_id, "journal:entry-77") == 4
        moved = await store.adopt_legacy_keys()  # the key named by its handle got an identity
        assert set(moved) == {"legacy-handle"} and await store.data_key("legacy-handle") == legacy
        for blob in await every_value(store):
            for clear in (row_id, "entry-77", moved["legacy-handle"]):
                assert clear.encode() not in blob
    finally:
        await store.close()
    if isinstance(targets.keys, Path):  # the old names are out of the file and its WAL too
        for path in (targets.keys, Path(f"{targets.keys}-wal")):
            if path.exists():
                assert row_id.encode() not in path.read_bytes(), path.name
    store = await KeyStore.open(targets.keys, master)  # and once only
    try:
        assert await store.data_key(row_id) == joined
    finally:
        await store.close()


async def test_an_older_store_mid_rotation_is_refused_in_one_line(targets: Targets) -> None:
    master = MasterKey(os.urandom(32))
    await write_before_references(targets.keys, master, {"r" + "cd" * 16: random_key()})
    store = await KeyStore.open(targets.keys, master)
    try:  # already on references: stage, then pretend the layout is older
        await store.stage(MasterKey(os.urandom(32)))
        await store.db.execute("DELETE FROM meta WHERE name = 'layout'")
    finally:
        await store.close()
    with pytest.raises(StorageError, match="staged rotation"):
        await KeyStore.open(targets.keys, master)


async def test_one_damaged_identity_does_not_stop_the_store_opening(targets: Targets) -> None:
    master = MasterKey(os.urandom(32))
    store = await KeyStore.open(targets.keys, master)
    try:
        kept = await store.identity("handle-kept")
        await store.identity("handle-damaged")
        await store.db.execute(
            "UPDATE identities SET sealed = ? WHERE handle = ?", (b"\x01" * 40, "handle-damaged")
        )
    finally:
        await store.close()
    store = await KeyStore.open(targets.keys, master)
    try:
        assert await store.find("handle-kept") == kept
        with pytest.raises(StorageError):  # that person's update fails, nobody else's
            await store.find("handle-damaged")
    finally:
        await store.close()
