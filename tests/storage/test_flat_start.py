"""Start-up reads nothing that grows with the number of people (issue 25), on both engines:
the key store opens without reading an identity, a person is met with one indexed read,
memory holds a bounded number of them, and a /forget that stopped half-way is finished
from its mark, not from a comparison of every row with the key store."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest

from bot.crypto import MasterKey, random_key
from bot.storage import keystore as keystore_module
from bot.storage.backend import Backend
from bot.storage.engines import open_key_database
from bot.storage.identities import tidy_at_start
from bot.storage.identity_cache import new_row_id
from bot.storage.journal import JournalStore
from bot.storage.keystore import KeyStore
from bot.storage.people import PeopleStore
from tests.storage.conftest import Targets
from tests.storage.test_store_contract import NOW, person

PEOPLE = 300


class Recording:
    """A backend (or transaction) that notes every statement it is given."""

    def __init__(self, inner: Any, seen: list[str]) -> None:
        self._inner, self._seen = inner, seen

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name in ("fetch_all", "fetch_one", "execute", "executemany"):

            async def call(sql: str, *args: Any, **kwargs: Any) -> Any:
                self._seen.append(sql)
                return await attr(sql, *args, **kwargs)

            return call
        if name == "transaction":

            @asynccontextmanager
            async def transaction(*args: Any, **kwargs: Any) -> AsyncIterator[Recording]:
                async with attr(*args, **kwargs) as tx:
                    yield Recording(tx, self._seen)

            return transaction
        return attr


async def seeded(targets: Targets, master: MasterKey) -> list[tuple[str, str]]:
    """(handle, row id) of PEOPLE people, through one open that is then closed."""
    store = await KeyStore.open(targets.keys, master)
    try:
        people = [(f"handle-{n}", new_row_id(), random_key()) for n in range(PEOPLE)]
        await store.add_people(people)
    finally:
        await store.close()
    return [(h, r) for h, r, _ in people]


def recorded(monkeypatch: pytest.MonkeyPatch, seen: list[str]) -> None:
    async def opener(target: Any) -> Any:
        return Recording(await open_key_database(target), seen)

    monkeypatch.setattr(keystore_module, "open_key_database", opener)


def reading(table: str) -> Callable[[str], bool]:
    return lambda sql: f"from {table}" in sql.lower()


async def test_start_up_reads_no_identity_and_meets_people_one_read_each(
    targets: Targets, db: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    master = MasterKey(os.urandom(32))
    people = await seeded(targets, master)
    for _, row_id in people:
        await person(db, row_id)
    seen: list[str] = []
    recorded(monkeypatch, seen)
    store = await KeyStore.open(targets.keys, master)
    try:
        # The first start of this layout, then any other: nothing to sweep either time.
        await tidy_at_start(db, store, PeopleStore(db))
        await tidy_at_start(db, store, PeopleStore(db))
        assert not [s for s in seen if reading("identities")(s) or reading("row_versions")(s)]
        assert len(store.cache) == 0
        handle, row_id = people[123]
        seen.clear()
        assert await store.find(handle) == row_id
        assert len([s for s in seen if reading("identities")(s)]) == 1
        assert store.row_id(handle) == row_id  # memory, from now on
        seen.clear()
        assert await store.find(handle) == row_id
        assert seen == []
    finally:
        await store.close()
    assert len(await PeopleStore(db).forgetting()) == 0
    assert all([await PeopleStore(db).get(r) is not None for _, r in people[:5]])


async def test_memory_holds_a_bounded_number_of_people(targets: Targets) -> None:
    master = MasterKey(os.urandom(32))
    people = await seeded(targets, master)
    store = await KeyStore.open(targets.keys, master)
    try:
        store.cache.capacity = 50
        kept = people[0][1]
        store.cache.keep = lambda row_id: row_id == kept  # a panic word armed
        for handle, row_id in people:
            assert await store.find(handle) == row_id
        assert len(store.cache) == 51
        assert store.row_id(people[0][0]) == kept  # kept aside, however long ago
        assert store.row_id(people[1][0]) is None  # evicted: found again by a read
        assert store.row_id(people[-1][0]) == people[-1][1]
        assert await store.find(people[1][0]) == people[1][1]
        assert await store.owners([people[2][1]]) == {people[2][1]: people[2][1]}
    finally:
        await store.close()


async def test_anchors_of_someone_met_again_come_from_the_store(targets: Targets) -> None:
    """Memory forgot them; the rollback anchors written meanwhile still hold."""
    master = MasterKey(os.urandom(32))
    store = await KeyStore.open(targets.keys, master)
    try:
        store.cache.capacity = 1
        row_id = await store.identity("handle-a")
        await store.anchor_slots(row_id, {"journal:e1": 3})
        await store.anchor_version(row_id, 5)
        await store.identity("handle-b")  # pushes handle-a out
        assert store.anchored_slot(row_id, "journal:e1") == 0
        assert await store.find("handle-a") == row_id
        assert store.anchored_slot(row_id, "journal:e1") == 3
        assert store.anchored_version(row_id) == 5
    finally:
        await store.close()


async def test_a_forget_that_stopped_half_way_is_finished_from_its_mark(
    targets: Targets, db: Backend
) -> None:
    master = MasterKey(os.urandom(32))
    store = await KeyStore.open(targets.keys, master)
    people = PeopleStore(db)
    try:
        gone = await store.identity("handle-gone")
        stays = await store.identity("handle-stays")
        before = await store.identity("handle-before-the-key")
        for row_id in (gone, stays, before):
            await person(db, row_id)
            await store.create_data_key(row_id)
            await JournalStore(db).add(row_id, f"e-{row_id}", None, 1, b"\x01t", NOW)
        # Died after the key store's delete: rows left, the mark with them.
        await people.mark_forgetting(gone)
        await store.destroy_identity(gone)
        # Died before it: they asked, so they are forgotten all the same.
        await people.mark_forgetting(before)
    finally:
        await store.close()
    store = await KeyStore.open(targets.keys, master)
    try:
        await tidy_at_start(db, store, PeopleStore(db))
        assert await people.get(gone) is None and await JournalStore(db).count(gone) == 0
        assert await people.get(before) is None
        assert await store.find("handle-before-the-key") is None
        assert await store.data_key(before) is None
        assert await people.get(stays) is not None and await JournalStore(db).count(stays) == 1
        assert await people.forgetting() == []
    finally:
        await store.close()
