"""A person's row sealed in the flat layout (before per-feature records) opens unchanged on
both engines, is written in the records' layout on its next save, and a copy of the old row
put back is still refused as rolled back (bot/people/row_versions.py's rule for settings),
also after a restart, when the anchors come back from the key store."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime

import pytest

from bot.core.clock import ManualClock
from bot.crypto import MasterKey
from bot.features.checkins.prefs import READS
from bot.people.profile import PARTS
from bot.people.row_versions import reanchor
from bot.people.service import (
    PROFILE_SLOT,
    PeopleService,
    Person,
    RolledBackError,
    UnreadableDataError,
    open_profile,
)
from bot.storage.backend import Backend
from bot.storage.engines import open_data_database
from bot.storage.journal import JournalStore
from bot.storage.keystore import KeyStore
from bot.storage.people import PeopleStore
from bot.storage.worksheets import WorksheetStore
from tests.helpers.old_profile import (
    EXPECTED,
    FLAT_ROW,
    HELD_CANARY,
    SHARED,
    UNCLAIMED,
    registered_records,
    stored,
)
from tests.helpers.storage import Targets

USER = 4242


class Opened:
    def __init__(self, keys: KeyStore, db: Backend, people: PeopleService) -> None:
        self.keys, self.db, self.people = keys, db, people

    async def close(self) -> None:
        await self.db.close()
        await self.keys.close()

    async def sealed(self, person: Person) -> str:
        row = await self.people.store.get(person.person_id)
        assert row is not None
        return person.cipher.open_text(PROFILE_SLOT, row.profile_enc)

    async def put_back(self, person: Person, text: str) -> None:
        """Write the row's settings as an older copy (or older code) would have."""
        sealed = person.cipher.seal_text(PROFILE_SLOT, text)
        await self.people.store.update(person.person_id, now=0, profile_enc=sealed)


async def open_all(targets: Targets, master: MasterKey) -> Opened:
    clock = ManualClock(datetime(2026, 12, 1, 9, tzinfo=UTC))
    keys = await KeyStore.open(targets.keys, master)
    db = await open_data_database(targets.data)
    people = PeopleService(PeopleStore(db), keys, await keys.pseudonym_key(), clock)
    people.know_records(registered_records())
    return Opened(keys, db, people)


def assert_as_flat_row(person: Person, revision: int) -> None:
    assert {name: getattr(person.profile, name) for name in SHARED} == {
        **SHARED,
        "revision": revision,
    }
    for record in EXPECTED:
        assert person.profile.part(type(record)) == record


async def test_a_flat_row_opens_is_rewritten_and_its_old_copy_is_refused(
    targets: Targets,
) -> None:
    master = MasterKey(os.urandom(32))
    world = await open_all(targets, master)
    try:
        person = await world.people.create(USER, 99, "")
        await world.put_back(person, FLAT_ROW)  # as the code before records sealed it
        old = await world.people.load(USER)
        assert old is not None
        assert "parts" not in stored(await world.sealed(old))
        assert_as_flat_row(old, revision=5)

        await world.people.save(old)  # the next save: the records' layout
        written = stored(await world.sealed(old))
        assert set(written) == set(SHARED) | set(UNCLAIMED) | {PARTS}
        assert written["revision"] == 6 and written["zz_removed_feature"] == {"kept": [1, 2]}
        assert {kind.KEY for kind in registered_records()} == set(written[PARTS])
        assert HELD_CANARY in str(written[PARTS]["held"])
    finally:
        await world.close()

    world = await open_all(targets, master)  # a restart: nothing from memory
    try:
        again = await world.people.load(USER)
        assert again is not None
        assert_as_flat_row(again, revision=6)
        # The old flat row put back (a data backup from before the save) is refused, by
        # the revision it carries; so is an older copy in the new layout.
        newer = await world.sealed(again)
        await world.put_back(again, FLAT_ROW)
        with pytest.raises(RolledBackError):
            await world.people.load(USER)
        await world.put_back(again, newer)
        loaded = await world.people.load(USER)
        assert loaded is not None
        await world.people.save(loaded)  # revision 7
        await world.put_back(again, newer)
        with pytest.raises(RolledBackError):
            await world.people.load(USER)
        # `keys reanchor` reads the revision of either layout.
        await world.put_back(again, FLAT_ROW)
        journal, parts = JournalStore(world.db), WorksheetStore(world.db)
        assert await reanchor(world.keys, world.people.store, journal, parts) == 1
        back = await world.people.load(USER)
        assert back is not None
        assert_as_flat_row(back, revision=5)
    finally:
        await world.close()


async def test_a_record_that_does_not_decode_makes_the_row_unreadable(targets: Targets) -> None:
    """Records are decoded as the row opens (every one for a loaded person, the pass's own
    at a claim), so a bad one is an unreadable row (erasure offered, prompts stop), as a
    bad field was before records, and not a failure at its first use."""
    world = await open_all(targets, MasterKey(os.urandom(32)))
    try:
        person = await world.people.create(USER, 99, "")
        raw = stored(FLAT_ROW)
        raw["daily_days"] = ["not a day"]
        await world.put_back(person, json.dumps(raw))
        with pytest.raises(UnreadableDataError):
            await world.people.load(USER)
        row = await world.people.store.get(person.person_id)
        assert row is not None
        with pytest.raises(ValueError, match="not a day"):
            open_profile(person.cipher, row.profile_enc, row.chat_enc, reading=READS)
        profile, _ = open_profile(person.cipher, row.profile_enc, row.chat_enc)
        assert profile.country == "ES"  # the rest is there; only that record does not open
    finally:
        await world.close()
