"""Settings anchors written together (bot/storage/anchor_writer.py): one commit for the
saves of a moment, memory ahead of the store, nothing refused that should open, and a write
that fails tried again rather than dropped."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

import bot.storage.anchor_writer as anchor_writer
from bot.people.service import RolledBackError
from bot.storage.anchor_writer import AnchorWriter
from bot.storage.backend import Tx
from bot.storage.keystore import KeyStore
from tests.helpers.people_stores import PeopleStores, people_stores

USERS = range(7001, 7011)


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[PeopleStores]:
    async with people_stores(tmp_path) as opened:
        yield opened


async def stored_versions(keys: KeyStore) -> list[int]:
    rows = await keys.db.fetch_all("SELECT version FROM identities ORDER BY version")
    return [int(r["version"]) for r in rows]


class CountedTransactions:
    """The key store's backend, counting the transactions opened on it."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.opened = 0

    def transaction(self) -> AbstractAsyncContextManager[Tx]:
        self.opened += 1
        return self.real.transaction()  # type: ignore[no-any-return]


class Down:
    """A backend whose every transaction fails, as storage that is down."""

    def transaction(self) -> AbstractAsyncContextManager[Tx]:
        raise OSError("disk")


async def test_the_saves_of_a_moment_share_one_commit(world: PeopleStores) -> None:
    people = world.service()
    persons = [await people.create(user, user, "") for user in USERS]
    await world.keys.flush_anchors()
    counted = CountedTransactions(world.keys.db)
    world.keys._anchors._db = counted  # type: ignore[assignment]
    for person in persons:
        await people.save(person)
    for person in persons:  # memory knows each at once
        assert world.keys.anchored_version(person.person_id) == person.profile.revision == 1
    await world.keys.flush_anchors()
    assert await stored_versions(world.keys) == [1] * len(USERS)
    assert counted.opened == 1  # before the anchor writer: ten commits, one a save


async def test_a_save_waiting_for_its_batch_still_refuses_an_older_row_put_back(
    world: PeopleStores,
) -> None:
    people = world.service()
    person = await people.create(USERS[0], USERS[0], "")
    await people.save(person)
    old = await world.db.fetch_one(
        "SELECT profile_enc FROM people WHERE person_id = ?", (person.person_id,)
    )
    assert old is not None
    await people.save(person)
    await world.keys.close()  # closing writes what waits
    await world.reopen_keys()
    await world.db.execute(
        "UPDATE people SET profile_enc = ? WHERE person_id = ?",
        (old["profile_enc"], person.person_id),
    )
    with pytest.raises(RolledBackError):
        await world.service().load(USERS[0])


async def test_a_write_that_fails_keeps_the_anchors_and_memory_has_them(
    world: PeopleStores,
) -> None:
    people = world.service()
    person = await people.create(USERS[0], USERS[0], "")
    await world.keys.flush_anchors()
    real = world.keys._anchors._db
    world.keys._anchors._db = Down()  # type: ignore[assignment]
    await people.save(person)
    await people.save(person)
    with pytest.raises(OSError, match="disk"):
        await world.keys.flush_anchors()
    # Met again after memory let the identity go: what waits is newer than the store's 0.
    world.keys.drop_cached(person.person_id)
    assert await people.load(USERS[0]) is not None
    assert world.keys.anchored_version(person.person_id) == 2
    world.keys._anchors._db = real  # storage is back
    await world.keys.flush_anchors()
    assert await stored_versions(world.keys) == [2]


async def test_an_anchor_lost_in_a_crash_leaves_a_row_that_opens(world: PeopleStores) -> None:
    # The process dies before the batch is written (kill -9): the row is newer than its
    # anchor, which opens, as a crash between a row and its anchor always did.
    people = world.service()
    person = await people.create(USERS[0], USERS[0], "")
    await world.keys.flush_anchors()
    world.keys._anchors._db = Down()  # type: ignore[assignment]
    for _ in range(3):
        await people.save(person)
    crashed = world.keys
    await crashed.db.close()  # the file as a crash leaves it: the batch never written
    await crashed._anchors.close()  # its timer, which could write nothing now anyway
    await world.reopen_keys()
    assert await stored_versions(world.keys) == [0]
    restarted = world.service()
    found = await restarted.load(USERS[0])
    assert found is not None and found.profile.revision == 3
    await restarted.save(found)
    await world.keys.flush_anchors()
    assert await stored_versions(world.keys) == [4]


class Held:
    """The key store's backend, whose transactions wait for `go` once inside."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.inside = asyncio.Event()
        self.go = asyncio.Event()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Tx]:
        async with self.real.transaction() as tx:
            self.inside.set()
            await self.go.wait()
            yield tx


async def test_a_save_made_while_its_batch_is_written_waits_for_the_next(
    world: PeopleStores,
) -> None:
    people = world.service()
    person = await people.create(USERS[0], USERS[0], "")
    await people.save(person)
    real = world.keys._anchors._db
    held = Held(real)
    world.keys._anchors._db = held  # type: ignore[assignment]
    writing = asyncio.create_task(world.keys.flush_anchors())
    await held.inside.wait()
    await people.save(person)  # revision 2, while 1 is being written
    held.go.set()
    await writing
    world.keys._anchors._db = real
    await world.keys.flush_anchors()
    assert await stored_versions(world.keys) == [2]


async def test_a_late_batch_never_moves_another_replicas_anchor_back(world: PeopleStores) -> None:
    people = world.service()
    person = await people.create(USERS[0], USERS[0], "")
    await people.save(person)  # revision 1 waits here
    other = await KeyStore.open(world.tmp / "keys.sqlite3", world.master)  # another replica
    try:
        await other.anchor_version(person.person_id, 2)  # it saved the next revision since
        await other.flush_anchors()
        await world.keys.flush_anchors()  # this one's batch arrives late
        assert await stored_versions(world.keys) == [2]
    finally:
        await other.close()


async def test_the_timer_tries_again_on_its_own(
    world: PeopleStores, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(anchor_writer, "ANCHOR_DELAY", 0.0)
    anchors = world.keys._anchors
    anchors._delay = 0.0
    people = world.service()
    person = await people.create(USERS[0], USERS[0], "")
    await world.keys.flush_anchors()
    real = anchors._db
    anchors._db = Down()  # type: ignore[assignment]
    await people.save(person)
    first = anchors._task
    assert first is not None
    await first  # fails, logged, and has started the next try
    retry = anchors._task
    assert retry is not None and retry is not first
    anchors._db = real  # storage is back
    await retry
    assert await stored_versions(world.keys) == [1] and anchors._task is None


async def test_reanchor_in_process_is_not_undone_by_what_waited(world: PeopleStores) -> None:
    people = world.service()
    person = await people.create(USERS[0], USERS[0], "")
    for _ in range(3):
        await people.save(person)
    await world.keys.reanchor({person.person_id: 1}, {})
    await world.keys.flush_anchors()
    assert await stored_versions(world.keys) == [1]


async def test_a_cancelled_timer_starts_no_other(caplog: pytest.LogCaptureFixture) -> None:
    writer = AnchorWriter(Down())  # type: ignore[arg-type]
    writer.put("row", "ref", 1)
    task = writer._task
    assert task is not None
    await asyncio.sleep(0)  # one turn: it waits out its delay
    task.cancel()  # the loop ending without close()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert writer._task is None
    await writer.close()  # fails to write: said, with the count only
    assert "rollback anchors not written at close (1)" in caplog.text
    writer.put("row", "ref", 2)  # after close: said, not kept
    assert writer.waiting("row") == 1 and writer._task is None
    assert "came after close" in caplog.text
