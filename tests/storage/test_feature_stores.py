"""The feature stores (riding the wave, the record, discretion) and the rollback anchors,
on both engines: the store contract's second half (the `db` and `targets` fixtures run each
test on SQLite and on PostgreSQL)."""

from __future__ import annotations

import os

from bot.crypto import MasterKey
from bot.storage.backend import Backend
from bot.storage.discretion import DiscretionStore
from bot.storage.identities import person_tables, sweep_orphans
from bot.storage.keystore import KeyStore
from bot.storage.people import PeopleStore
from bot.storage.record import RecordStore
from bot.storage.urge import NO_CONTACT, REASONS, UrgeStore
from tests.storage.conftest import Targets
from tests.storage.test_store_contract import NOW, person

BIG = 2_200_000_000  # unix seconds past 2038 and message ids past 32 bits


async def test_urges_drafts_notes_moods(db: Backend) -> None:
    store = UrgeStore(db)
    await person(db)
    await store.add_urge("r1", "u1", NOW, b"\x01urge", NOW + 600)
    await store.add_urge("r1", "u2", BIG, b"\x01later", BIG + 600)
    urge = await store.urge("r1", "u1")
    assert urge is not None and (urge.at, urge.data_enc, urge.follow_up_due) == (
        NOW,
        b"\x01urge",
        NOW + 600,
    )
    assert await store.urge("someone-else", "u1") is None
    await store.update_urge("r1", "u1", b"\x01more", NOW + 5)
    assert [u.urge_id for u in await store.urges_since("r1", NOW)] == ["u1", "u2"]
    assert [u.urge_id for u in await store.due_follow_ups(NOW + 600, 10)] == ["u1"]
    assert await store.claim_follow_up("u1", NOW + 600)
    assert not await store.claim_follow_up("u1", NOW + 600)  # claimed once only
    await store.set_follow_up("r1", "u2", None)
    assert await store.due_follow_ups(BIG + 600, 10) == []

    await store.add_draft("r1", "d1", b"\x01draft", NOW, NOW + 3600)
    assert [d.draft_id for d in await store.due_drafts(NOW + 3600, 10)] == ["d1"]
    assert await store.move_offer("d1", NOW + 3600, None)
    assert not await store.move_offer("d1", NOW + 3600, None)
    draft = await store.draft("r1", "d1")
    assert draft is not None and draft.offer_due is None and draft.text_enc == b"\x01draft"
    assert [d.draft_id for d in await store.drafts("r1")] == ["d1"]
    assert await store.delete_draft("r1", "d1")
    assert not await store.delete_draft("r1", "d1")

    assert await store.note("r1", REASONS) is None
    await store.put_note("r1", REASONS, b"\x01one", NOW)
    await store.put_note("r1", REASONS, b"\x01two", NOW + 1)  # the upsert replaces it
    await store.put_note("r1", NO_CONTACT, b"\x01marks", NOW)
    assert await store.note("r1", REASONS) == b"\x01two"
    await store.put_mood("r1", "2026-12-01", b"\x013", NOW)
    await store.put_mood("r1", "2026-12-01", b"\x014", NOW + 1)
    await store.put_mood("r1", "2026-12-02", b"\x015", NOW + 2)
    assert await store.moods_since("r1", "2026-12-01") == [
        ("2026-12-01", b"\x014"),
        ("2026-12-02", b"\x015"),
    ]


async def test_record_entries_parts_and_files(db: Backend) -> None:
    store = RecordStore(db)
    await person(db)
    await store.create("r1", "e1", NOW)
    await store.create("r1", "e2", NOW + 10)
    assert [e.entry_id for e in await store.page("r1", offset=0, limit=5)] == ["e2", "e1"]
    await store.set_happened("r1", "e1", NOW + 100, 3)  # happened later than e2 was written
    assert [e.entry_id for e in await store.page("r1", offset=0, limit=5)] == ["e1", "e2"]
    assert [e.entry_id for e in await store.all("r1")] == ["e2", "e1"]
    unfinished = await store.newest_unfinished("r1")
    assert unfinished is not None and unfinished.entry_id == "e2"
    await store.finish("r1", "e2", NOW + 20)
    await store.finish("r1", "e2", NOW + 30)  # the first finish stands
    entry = await store.entry("r1", "e2")
    assert entry is not None and entry.finished_at == NOW + 20
    assert entry.happened_at is None and entry.precision == 0

    # Parts written in the same second come back in the order they were added.
    for n, part_id in enumerate(("pz", "pa", "pm")):
        await store.add_part("r1", "e1", part_id, 40 + n, f"\x01{n}".encode(), NOW)
    await store.add_part("r1", "e1", "amend", None, b"\x01amend", NOW)
    assert [p.part_id for p in await store.parts("r1", "e1")] == ["pz", "pa", "pm", "amend"]
    found = await store.part_by_message("r1", 41)
    assert found is not None and found.part_id == "pa"
    await store.add_file("r1", "e1", "fz", BIG, b"\x01meta", b"\x01" * 100, NOW)
    await store.add_file("r1", "e1", "fa", None, b"\x01meta2", b"\x01" * 7, NOW)
    files = await store.files("r1", "e1")
    assert [(f.file_id, f.size) for f in files] == [("fz", 100), ("fa", 7)]
    assert await store.file_data("r1", "fa") == b"\x01" * 7
    assert await store.message_ids("r1") == [40, 41, 42, BIG]
    assert await store.message_ids("r1", "e2") == []
    assert await store.count("r1") == 2

    await store.delete("r1", "e1")  # parts and files go with it
    assert await store.parts("r1", "e1") == [] and await store.files("r1", "e1") == []
    assert await store.count("r1") == 1
    await store.delete_all("r1")
    assert await store.count("r1") == 0


async def test_discretion_index_and_self_removals(db: Backend) -> None:
    store = DiscretionStore(db)
    await person(db, "r1")
    await person(db, "r2")
    await store.mark("r2")
    await store.mark("r1")
    await store.mark("r1")  # twice: still once
    await store.mark("gone")  # no such person: nothing
    assert await store.marked() == ["r1", "r2"]
    await store.unmark("r2")
    assert await store.marked() == ["r1"]

    await store.remove_later("r1", 5, NOW + 60)
    await store.remove_later("r1", 5, NOW + 300)  # the later due time replaces it
    await store.remove_later("r1", BIG, NOW + 10)
    await store.remove_later("gone", 6, NOW)
    assert await store.due_removals(NOW + 60) == [("r1", BIG)]
    assert await store.due_removals(NOW + 300) == [("r1", BIG), ("r1", 5)]
    await store.keep("r1", 5)
    assert await store.due_removals(NOW + 300) == [("r1", BIG)]

    await db.execute(
        "INSERT INTO deliveries (person_id, local_date, prompt_id, status, message_id,"
        " claimed_at) VALUES (?, ?, ?, ?, ?, ?)",
        ("r1", "2026-12-01", "p1", "sent", 77, NOW),
    )
    assert await store.check_in_ids("r1", NOW) == [77]
    assert await store.check_in_ids("r1", NOW + 1) == []


async def test_forgetting_a_person_leaves_no_row_in_any_table(db: Backend) -> None:
    """/forget's store step (PeopleStore.delete) reaches every person table by cascade,
    the feature tables included."""
    for pid in ("r1", "r2"):
        await person(db, pid)
        await UrgeStore(db).add_urge(pid, f"u-{pid}", NOW, b"\x01", NOW + 1)
        await UrgeStore(db).add_draft(pid, f"d-{pid}", b"\x01", NOW, NOW + 1)
        await UrgeStore(db).put_note(pid, REASONS, b"\x01", NOW)
        await UrgeStore(db).put_mood(pid, "2026-12-01", b"\x01", NOW)
        await RecordStore(db).create(pid, f"e-{pid}", NOW)
        await RecordStore(db).add_part(pid, f"e-{pid}", f"p-{pid}", 1, b"\x01", NOW)
        await RecordStore(db).add_file(pid, f"e-{pid}", f"f-{pid}", 2, b"\x01", b"\x01", NOW)
        await DiscretionStore(db).mark(pid)
        await DiscretionStore(db).remove_later(pid, 3, NOW)
    tables = await person_tables(db)
    feature_tables = {
        "urges",
        "urge_drafts",
        "urge_notes",
        "moods",
        "record_entries",
        "record_parts",
        "record_files",
        "panic_words",
        "self_removals",
    }
    assert feature_tables <= set(tables)
    await PeopleStore(db).delete("r1")
    for table in tables:
        rows = await db.fetch_all(f"SELECT DISTINCT person_id FROM {table}")
        assert {str(r["person_id"]) for r in rows} <= {"r2"}, table
    for table in feature_tables:
        row = await db.fetch_one(f"SELECT COUNT(*) AS n FROM {table}")
        assert row is not None and row["n"] == 1, table


async def test_row_version_anchors(targets: Targets) -> None:
    """The key store's row_versions: forward only, reloaded at open, gone with the identity,
    and learned from the store for a person another replica met first."""
    master = MasterKey(os.urandom(32))
    keys = await KeyStore.open(targets.keys, master)
    other = await KeyStore.open(targets.keys, master)  # a second replica on the same store
    try:
        row_id = await keys.identity("handle-1")
        await keys.anchor_slots(row_id, {"journal:e1": 2, "answer:5": 1})
        await keys.anchor_slots(row_id, {"journal:e1": 1})  # never backwards
        assert keys.anchored_slot(row_id, "journal:e1") == 2
        # The other replica lowers nothing either, though its memory knew no anchor.
        other_row = await other.identity("handle-1")
        assert other_row == row_id and other.anchored_slot(row_id, "journal:e1") == 2
        await other.anchor_slots(row_id, {"journal:e1": 3})
        await keys.anchor_slots(row_id, {"journal:e1": 2, "answer:5": 4})
        stored = await KeyStore.open(targets.keys, master)  # what the store itself holds
        try:
            assert await stored.find("handle-1") == row_id
            assert stored.anchored_slot(row_id, "answer:5") == 4
            assert stored.anchored_slot(row_id, "journal:e1") == 3
        finally:
            await stored.close()
        rows = await keys.db.fetch_all("SELECT row_id, slot, version FROM row_versions")
        assert sorted(int(r["version"]) for r in rows) == [3, 4]
        for row in rows:  # references only: nothing a data backup could be compared with
            assert row_id not in str(row["row_id"]) and ":" not in str(row["slot"])
        await keys.reanchor({row_id: 7}, {row_id: {"journal:e1": 1, "answer:5": 0}})
        assert keys.anchored_version(row_id) == 7
        assert keys.anchored_slot(row_id, "answer:5") == 0
    finally:
        await other.close()
        await keys.close()

    keys = await KeyStore.open(targets.keys, master)
    try:
        assert keys.anchored_slot(row_id, "journal:e1") == 0  # nobody in memory at open
        assert await keys.find("handle-1") == row_id
        assert keys.anchored_slot(row_id, "journal:e1") == 1  # read when they are met
        await keys.destroy_identity(row_id)
        assert keys.anchored_slot(row_id, "journal:e1") == 0
        left = await keys.db.fetch_one("SELECT COUNT(*) AS n FROM row_versions")
        assert left is not None and left["n"] == 0
    finally:
        await keys.close()


async def test_orphan_sweep_asks_the_key_store_for_people_it_has_not_met(
    targets: Targets, db: Backend
) -> None:
    """A replica starting while another one signs someone up must not sweep them away:
    only rows whose person is in no identity are deleted."""
    master = MasterKey(os.urandom(32))
    starting = await KeyStore.open(targets.keys, master)
    running = await KeyStore.open(targets.keys, master)
    try:
        known = await starting.identity("handle-known")
        joined = await running.identity("handle-new")  # after `starting` loaded its memory
        await person(db, known)
        await person(db, joined)
        await person(db, "r-forgotten-half-way")
        assert await sweep_orphans(db, starting) == 1
        assert await PeopleStore(db).get(joined) is not None
        assert await PeopleStore(db).get(known) is not None
        assert await PeopleStore(db).get("r-forgotten-half-way") is None
    finally:
        await running.close()
        await starting.close()
