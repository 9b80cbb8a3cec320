"""Rollback refused for rows that are rewritten or deleted (journal entries, answer parts).

Each such row carries a version, bound into its sealing slot (`crypto.versioned_slot`), and
the key store anchors the newest version of every row ever edited or deleted: an older copy
put back from a data backup, or a deleted one, opens only under its own older version, and
is refused here. One key-store write per edit or deletion; reads check memory only.
"""

from __future__ import annotations

import logging

from bot.crypto import CryptoError, PersonCipher, versioned_slot
from bot.people.service import Person, RolledBackError, open_profile
from bot.storage.journal import JournalStore
from bot.storage.keystore import KeyStore
from bot.storage.people import PeopleStore
from bot.storage.worksheets import WorksheetStore

log = logging.getLogger(__name__)


def open_versioned(keys: KeyStore, person: Person, slot: str, version: int, blob: bytes) -> str:
    """The row's text; RolledBackError (offered erasure, like the settings row) if it is
    older than the newest written. Logged by kind and versions only."""
    anchored = keys.anchored_slot(person.person_id, slot)
    if version < anchored:
        log.warning(
            "refused a rolled-back %s row (version %d, newest written %d)",
            slot.split(":", 1)[0],
            version,
            anchored,
        )
        raise RolledBackError(person.person_id)
    return person.cipher.open_text(versioned_slot(slot, version), blob)


def next_version(keys: KeyStore, person: Person, slot: str, current: int) -> int:
    """The version an edit writes, and a deletion anchors: past anything ever written."""
    return max(current, keys.anchored_slot(person.person_id, slot)) + 1


async def reanchor(
    keys: KeyStore, people: PeopleStore, journal: JournalStore, parts: WorksheetStore
) -> int:
    """`keys reanchor`: after a data backup older than the key store was restored, accept
    the rows now there as the newest (each settings revision, each edited row's version).
    Returns how many people's settings were read; one that does not open is anchored at 0."""
    revisions: dict[str, int] = {}
    owners = {o: r for r, o in sorted((await keys.everyone()).items())}
    data_keys = await keys.data_keys(list(owners))
    for owner, key in data_keys.items():
        row_id = owners[owner]
        row = await people.get(row_id)
        if row is None:
            continue
        try:
            profile, _ = open_profile(PersonCipher(owner, key), row.profile_enc, row.chat_enc)
        except (CryptoError, ValueError, TypeError):
            log.warning("reanchor: a person's settings do not open; anchored at 0")
            continue
        revisions[row_id] = profile.revision
    slots: dict[str, dict[str, int]] = {}
    for person_id, slot, version in await journal.versioned() + await parts.versioned():
        slots.setdefault(person_id, {})[slot] = version
    await keys.reanchor(revisions, slots)
    return len(revisions)
