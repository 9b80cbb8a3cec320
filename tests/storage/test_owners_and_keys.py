"""The check-in batch's key lookup: identities and data keys read in one query
(`owners_and_keys`) give exactly what `owners` then `data_keys` give, for every kind of
person the store holds, before and after a rotation is staged."""

from __future__ import annotations

import os

from bot.crypto import MasterKey, random_key
from bot.storage.keystore import KeyStore
from tests.helpers.legacy_keys import write_before_references
from tests.helpers.storage import Targets


async def two_queries(store: KeyStore, row_ids: list[str]) -> dict[str, tuple[str, bytes]]:
    owners = await store.owners(row_ids)
    keys = await store.data_keys(sorted(set(owners.values())))
    return {r: (o, keys[o]) for r, o in owners.items() if o in keys}


async def fresh(targets: Targets, master: MasterKey) -> KeyStore:
    return await KeyStore.open(targets.keys, master)  # nobody in memory yet


async def test_one_query_finds_what_two_did(targets: Targets) -> None:
    master = MasterKey(os.urandom(32))
    joined = "r" + "ab" * 16
    await write_before_references(
        targets.keys,
        master,
        {joined: random_key(), "legacy-handle": random_key()},
        identities=[("handle-1", joined, joined)],
    )
    store = await fresh(targets, master)
    try:
        legacy = (await store.adopt_legacy_keys())["legacy-handle"]  # owner is not its row id
        keyed = await store.identity("handle-2")
        await store.create_data_key(keyed)
        keyless = await store.identity("handle-3")  # an identity whose key is gone
    finally:
        await store.close()
    everyone = [joined, legacy, keyed, keyless, "r" + "00" * 16]

    store = await fresh(targets, master)
    try:
        expected = await two_queries(store, everyone)
        assert set(expected) == {joined, legacy, keyed}
        assert expected[legacy][0] == "legacy-handle"
    finally:
        await store.close()
    for warm in (False, True):
        store = await fresh(targets, master)
        try:
            if warm:
                await store.owners(everyone)
            assert await store.owners_and_keys(everyone) == expected
            assert store.row_id("handle-2") == keyed  # met: in memory as after `owners`
        finally:
            await store.close()

    store = await fresh(targets, master)
    try:
        new_master = MasterKey(os.urandom(32))
        await store.stage(new_master)
    finally:
        await store.close()
    store = await fresh(targets, new_master)  # reads the staged table now
    try:
        assert store.opened_with_next_key
        assert await store.owners_and_keys(everyone) == expected
    finally:
        await store.close()
