"""The store contract: every store method behaves the same on SQLite and PostgreSQL.

Each test runs twice (the `targets` fixture); a new store adds its tests here (or in a file
beside it using the `db` fixture) and so runs on both engines. docs/scaling.md.
"""

from __future__ import annotations

import os

import pytest

from bot.crypto import MasterKey
from bot.storage.backend import Backend
from bot.storage.deliveries import (
    CLAIMED,
    SENT,
    SKIPPED,
    SNOOZED,
    ClaimConflictError,
    ClaimWrites,
    DeliveryStore,
)
from bot.storage.engines import open_data_database
from bot.storage.identities import move_legacy_rows, person_tables
from bot.storage.journal import JournalStore
from bot.storage.keystore import KeyStore, RotationError, WrongMasterKeyError
from bot.storage.people import PeopleStore
from bot.storage.worksheets import WorksheetStore
from tests.helpers.legacy_keys import write_before_references
from tests.helpers.storage import Targets
from tests.helpers.store_contract import (
    NOW,
    person,
)


async def test_people_round_trip(db: Backend) -> None:
    store = PeopleStore(db)
    await person(db)
    row = await store.get("r1")
    assert row is not None
    assert (row.chat_enc, row.profile_enc, row.state, row.active) == (
        b"\x01chat",
        b"\x01profile",
        "",
        True,
    )
    await store.update("r1", now=NOW + 1, state="setup:time", active=False, profile_enc=b"\x02")
    row = await store.get("r1")
    assert row is not None and (row.state, row.active, row.profile_enc) == (
        "setup:time",
        False,
        b"\x02",
    )
    assert await store.get("nobody") is None
    assert await store.count() == 1


async def test_message_ids_and_cascade(db: Backend) -> None:
    store = PeopleStore(db)
    await person(db)
    big = 2_200_000_000  # beyond 32 bits: message ids and unix seconds must fit
    await store.remember_messages(
        [("r1", 5, NOW, None), ("r1", 6, NOW, "ws"), ("r1", 6, NOW, "ws"), ("gone", 7, NOW, None)]
    )
    await store.remember_messages([("r1", big, big, None)])
    assert await store.recent_messages("r1", NOW) == [5, 6, big]
    assert await store.quoting_messages("r1", "ws", NOW) == [6]
    await store.forget_messages("r1", [5])
    assert await store.recent_messages("r1", 0) == [6, big]
    assert await store.prune_messages(NOW + 1) == 1
    await store.delete("r1")
    assert await store.recent_messages("r1", 0) == []
    assert await store.count() == 0


async def test_crisis_counts(db: Backend) -> None:
    store = PeopleStore(db)
    for kind in ("danger", "danger", "self_harm"):
        await store.count_crisis("2026-12-01", kind)
    await store.count_crisis("2026-11-30", "danger")
    assert await store.crisis_counts("2026-12-01") == [
        ("2026-12-01", "danger", 2),
        ("2026-12-01", "self_harm", 1),
    ]


async def test_worksheets(db: Backend) -> None:
    store = WorksheetStore(db)
    await person(db)
    await store.begin("r1", "ws", NOW, "q1")
    await store.begin("r1", "ws", NOW + 5, "other")  # an existing row is left alone
    progress = await store.progress("r1", "ws")
    assert progress is not None and (progress.position, progress.question_id) == (0, "q1")
    await store.move("r1", "ws", 2, NOW + 10, finished=False, question_id="q3")
    await store.move("r1", "ws", 3, NOW + 20, finished=True)
    await store.move("r1", "ws", 3, NOW + 30, finished=True)
    progress = await store.progress("r1", "ws")
    assert progress is not None and progress.finished_at == NOW + 20 and progress.position == 3
    assert await store.add_part("r1", "ws", "q1", 11, b"\x01a", NOW)
    assert not await store.add_part("r1", "ws", "q1", 11, b"\x01again", NOW)
    assert await store.add_part("r1", "ws", "q1", 10, b"\x01b", NOW + 1)
    assert [p.message_id for p in await store.parts("r1", "ws")] == [10, 11]
    assert await store.count_parts("r1", "ws", "q1") == 2
    await store.replace_part("r1", 11, b"\x01edited", NOW + 2, 1)
    part = await store.part("r1", 11)
    assert part is not None and (part.text_enc, part.version) == (b"\x01edited", 1)
    assert await store.versioned() == [("r1", part.slot, 1)]
    await store.delete_answer("r1", "ws", "q1")
    assert await store.parts("r1", "ws", "q1") == []
    await store.delete_worksheet("r1", "ws")
    assert await store.all_progress("r1") == []


async def test_journal(db: Backend) -> None:
    store = JournalStore(db)
    await person(db)
    for i in range(3):
        await store.add("r1", f"e{i}", "p1" if i else None, 100 + i, b"\x01t", NOW + i)
    assert [e.entry_id for e in await store.page("r1", offset=0, limit=2)] == ["e2", "e1"]
    assert [e.entry_id for e in await store.all("r1")] == ["e0", "e1", "e2"]
    await store.replace_text("r1", "e1", b"\x01new", NOW + 9, 2)
    entry = await store.by_message("r1", 101)
    assert entry is not None and entry.text_enc == b"\x01new" and entry.prompt_id == "p1"
    assert entry.version == 2 and await store.version("r1", "e1") == 2
    assert await store.versioned() == [("r1", entry.slot, 2)]
    assert await store.count("r1") == 3
    assert await store.delete("r1", "e1")
    assert not await store.delete("r1", "e1")
    assert await store.version("r1", "e1") is None


async def test_deliveries_claim_results_snooze(db: Backend) -> None:
    store = DeliveryStore(db)
    await person(db, "r1")
    await person(db, "r2")
    await store.reschedule("r1", NOW - 10, "2026-12-01")
    await store.reschedule("r2", NOW - 5, "2026-12-01")
    due = await store.due(NOW, 10)
    assert [d.person_id for d in due] == ["r1", "r2"]
    async with store.claiming() as claim:
        versions = await claim.versions(["r1", "r2"])
        assert versions["r1"].next_due_utc == NOW - 10
        assert await claim.statuses([("r1", "2026-12-01")]) == {}
        await claim.write(
            ClaimWrites(
                records=[
                    ("r1", "2026-12-01", "p1", CLAIMED, NOW),
                    ("r2", "2026-12-01", "p1", SKIPPED, NOW),
                ],
                resends=[],
                restores=[],
                advances=[(NOW + 86400, "2026-12-02", "r1"), (NOW + 86400, "2026-12-02", "r2")],
            )
        )
    assert await store.due(NOW, 10) == []
    await store.record_results([("r1", "2026-12-01", 55, NOW + 1)], [])
    record = await store.record("r1", "2026-12-01")
    assert record is not None and (record.status, record.message_id) == (SENT, 55)
    assert await PeopleStore(db).recent_messages("r1", 0) == [55]
    by_message = await store.by_message("r1", 55)
    assert by_message is not None and by_message.local_date == "2026-12-01"
    assert await store.snooze("r1", "2026-12-01", NOW + 3600)
    assert not await store.snooze("r2", "2026-12-01", NOW + 3600)  # skipped stays skipped
    latest = await store.latest_delivered("r1")
    assert latest is not None and latest.status == SNOOZED
    history = await store.histories(["r1", "r2"])
    assert [h.status for h in history["r2"]] == [SKIPPED]

    # A second claim of the same day conflicts and writes nothing at all.
    with pytest.raises(ClaimConflictError):
        async with store.claiming() as claim:
            await claim.write(ClaimWrites([("r2", "2026-12-01", "p1", CLAIMED, NOW)], [], [], []))
    again = await store.record("r2", "2026-12-01")
    assert again is not None and again.status == SKIPPED


async def test_claim_reads_due_rows_in_its_transaction_and_current_rows(db: Backend) -> None:
    store = DeliveryStore(db)
    for n, pid in enumerate(("c1", "c2", "c3")):
        await person(db, pid)
        await store.reschedule(pid, NOW - 10 + n, "2026-12-01")
    async with store.claiming() as claim:
        assert [d.person_id for d in await claim.due(NOW, 2)] == ["c1", "c2"]
        history = await claim.histories(["c1"])
        assert history == {"c1": []}
    now = await store.current(["c1", "c3", "gone"])
    assert set(now) == {"c1", "c3"}
    assert now["c1"].active and now["c1"].next_due_utc == NOW - 10
    assert now["c1"].profile_enc == b"\x01profile"


async def test_a_claims_due_rows_are_passed_over_by_another_claim(db: Backend) -> None:
    """Two dispatchers at once (PostgreSQL): the rows one claim read are locked until it
    commits, so the other's read takes the next rows instead of the same ones."""
    store = DeliveryStore(db)
    if not store.locks_rows:
        pytest.skip("one writer: a second claim waits for the first (BEGIN IMMEDIATE)")
    for n, pid in enumerate(("d1", "d2", "d3", "d4")):
        await person(db, pid)
        await store.reschedule(pid, NOW - 10 + n, "2026-12-01")
    async with store.claiming() as first:
        assert [d.person_id for d in await first.due(NOW, 2)] == ["d1", "d2"]
        async with store.claiming() as second:
            assert [d.person_id for d in await second.due(NOW, 10)] == ["d3", "d4"]
    # Nothing was written: once both end, every row is due again for whoever reads next.
    assert len(await store.due(NOW, 10)) == 4


async def test_release_and_deactivate(db: Backend) -> None:
    store = DeliveryStore(db)
    await person(db, "r1")
    async with store.claiming() as claim:
        await claim.write(
            ClaimWrites(
                [("r1", "2026-12-01", "p1", CLAIMED, NOW)],
                [],
                [],
                [(NOW + 86400, "2026-12-02", "r1")],
            )
        )
    await store.release(
        [("r1", "2026-12-01")], [], [(NOW, "2026-12-01", "r1", NOW + 86400, "2026-12-02")]
    )
    assert await store.record("r1", "2026-12-01") is None
    row = await PeopleStore(db).get("r1")
    assert row is not None and (row.next_due_utc, row.next_due_date) == (NOW, "2026-12-01")
    # NULL compares equal in the release's guard (SQLite's IS, PostgreSQL's IS NOT DISTINCT).
    await store.reschedule("r1", None, None)
    await store.release([], [], [(NOW, "2026-12-01", "r1", None, None)])
    row = await PeopleStore(db).get("r1")
    assert row is not None and row.next_due_utc == NOW
    await store.deactivate("r1", NOW + 5, unless_changed_after=NOW - 1)
    row = await PeopleStore(db).get("r1")
    assert row is not None and row.active  # changed after the send began: left alone
    await store.deactivate("r1", NOW + 5, unless_changed_after=NOW + 5)
    row = await PeopleStore(db).get("r1")
    assert row is not None and not row.active and row.next_due_utc is None


async def test_person_tables(db: Backend) -> None:
    tables = await person_tables(db)
    assert tables[-1] == "people"
    assert {"answer_parts", "chat_messages", "deliveries", "journal", "worksheet_progress"} <= set(
        tables
    )


async def test_keystore(targets: Targets) -> None:
    master = MasterKey(os.urandom(32))
    keys = await KeyStore.open(targets.keys, master)
    try:
        pseudo = await keys.pseudonym_key()
        row_id = await keys.identity("handle-1")
        assert await keys.identity("handle-1") == row_id
        key = await keys.create_data_key(row_id)
        assert await keys.create_data_key(row_id) == key
        assert await keys.data_keys([row_id, "none"]) == {row_id: key}
        await keys.anchor_version(row_id, 3)
    finally:
        await keys.close()

    with pytest.raises(WrongMasterKeyError):
        await KeyStore.open(targets.keys, MasterKey(os.urandom(32)))

    keys = await KeyStore.open(targets.keys, master)
    try:
        assert await keys.find("handle-1") == row_id
        assert keys.row_id("handle-1") == row_id
        assert keys.anchored_version(row_id) == 3
        assert await keys.pseudonym_key() == pseudo
        new_master = MasterKey(os.urandom(32))
        staged = await keys.stage(new_master)
        assert list(staged.values()) == [key] and row_id not in staged  # by reference
        await keys.stage(new_master)  # a resumed rotation: the upsert replaces the wraps
    finally:
        await keys.close()

    keys = await KeyStore.open(targets.keys, new_master)
    try:
        assert keys.opened_with_next_key
        assert await keys.data_key(row_id) == key
        assert await keys.retire_old_key() == 1
        with pytest.raises(RotationError):
            await keys.retire_old_key()
        await keys.destroy_identity(row_id)
        assert keys.row_id("handle-1") is None
        assert await keys.data_key(row_id) is None
    finally:
        await keys.close()


async def test_legacy_rows_move(targets: Targets) -> None:
    """Rows keyed by the handle itself (before identities) move to a random row id."""
    master = MasterKey(os.urandom(32))
    # A key named by the handle, no identity: written by a Steady from before identities.
    await write_before_references(targets.keys, master, {"legacy-handle": os.urandom(32)})
    keys = await KeyStore.open(targets.keys, master)
    db = await open_data_database(targets.data)
    try:
        await person(db, "legacy-handle")
        await JournalStore(db).add("legacy-handle", "e1", None, 1, b"\x01t", NOW)
        assert await move_legacy_rows(db, keys) == 1
        row_id = await keys.find("legacy-handle")
        assert row_id is not None and row_id != "legacy-handle"
        assert await PeopleStore(db).get(row_id) is not None
        assert await JournalStore(db).count(row_id) == 1
        assert await move_legacy_rows(db, keys) == 0
    finally:
        await db.close()
        await keys.close()
