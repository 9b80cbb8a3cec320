"""/forget reaches old backups: the data database keys rows by a random id per person, and
only the key store (from which /forget deletes it) links that id to a Telegram user."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.crypto import MasterKey, PersonCipher, pseudonym, random_key
from bot.people.profile import Profile
from bot.people.service import CHAT_SLOT, PROFILE_SLOT
from bot.storage.database import Database
from bot.storage.keystore import KeyStore
from bot.storage.people import PeopleStore
from bot.storage.schema import MIGRATIONS
from tests.helpers.bot import USER, BotUnderTest
from tests.helpers.legacy_keys import write_before_references
from tests.helpers.unlinkable import (
    file_bytes,
    forget,
)


def ids_in(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        return {str(r[0]) for r in db.execute("SELECT person_id FROM people")}


async def test_an_old_backup_holds_no_link_after_forget(bot: BotUnderTest, tmp_path: Path) -> None:
    await bot.onboard()
    await bot.onboard(user=USER + 1)  # someone who stays
    backup = tmp_path / "old-backup.sqlite3"
    await bot.services.db.backup_to(backup)
    await forget(bot)
    assert bot.settings.master_key is not None
    await bot.stop()

    # The attacker: the old backup, the current key store, the master key, the Telegram id.
    keys = await KeyStore.open(bot.settings.key_db, MasterKey(bot.settings.master_key))
    try:
        handle = pseudonym(await keys.pseudonym_key(), USER)
        in_backup = ids_in(backup)
        assert handle not in in_backup
        assert handle.encode() not in file_bytes(backup)[backup.name]
        stayed = await keys.find(pseudonym(await keys.pseudonym_key(), USER + 1))
        assert await keys.find(handle) is None
        assert len(in_backup) == 2 and stayed in in_backup  # the backup does hold them both
        for row_id in in_backup - {stayed}:
            # Nothing in the key store names the forgotten row: no owner, no key.
            assert await keys.owners([row_id]) == {}
            assert await keys.data_key(row_id) is None
        store_bytes = b"".join(file_bytes(bot.settings.key_db).values())
        for row_id in in_backup - {stayed}:
            assert row_id.encode() not in store_bytes
    finally:
        await keys.close()


async def test_people_from_before_move_to_random_row_ids(bot: BotUnderTest, tmp_path: Path) -> None:
    """A data dir written by the previous version: rows keyed by the handle, the data key
    named by it, no identities. After a restart the person reads as before, and the data
    database no longer holds the handle."""
    services = bot.services
    keys = services.keys
    handle = pseudonym(await keys.pseudonym_key(), USER)
    key = random_key()
    assert bot.settings.master_key is not None
    await bot.stop()
    await write_before_references(  # as the previous version made it
        bot.settings.key_db, MasterKey(bot.settings.master_key), {handle: key}
    )
    legacy = PersonCipher(handle, key)
    profile = Profile(country="IE", onboarded=True, timezone="Europe/Dublin")
    old = await Database.open(bot.settings.data_db, MIGRATIONS)
    try:
        await PeopleStore(old).insert(
            handle,
            legacy.seal_text(CHAT_SLOT, str(USER)),
            legacy.seal_text(PROFILE_SLOT, profile.to_json()),
            "",
            1_764_493_200,
        )
        await old.execute(
            "INSERT INTO chat_messages (person_id, message_id, sent_at) VALUES (?, 5, 1764493200)",
            (handle,),
        )
    finally:
        await old.close()
    await bot.start()
    person = await bot.services.people.load(USER)
    assert person is not None and person.profile.country == "IE" and person.chat_id == USER
    assert person.person_id != handle and person.person_id.startswith("r")
    await bot.stop()
    db = await Database.open(bot.settings.data_db, MIGRATIONS)
    try:
        for table in ("people", "chat_messages"):
            rows = await db.fetch_all(f"SELECT person_id FROM {table}")
            assert [str(r["person_id"]) for r in rows] == [person.person_id], table
    finally:
        await db.close()
    for name, blob in file_bytes(bot.settings.data_db).items():
        assert handle.encode() not in blob, name
