"""Moving people from rows keyed by an HMAC of their Telegram id to random row ids.

Before, every table's person_id was HMAC(pseudonym key, Telegram id): with the key store
and the master key, any old copy of the data database led back to the person, /forget or
not. Now the data database holds only random row ids; the key store maps handles to them.
Run at start until it has run once with the key store's reference layout (then the key
store notes it): a crash between the key store's commit and this one is finished next time
(each step is one transaction and safe to repeat). After that, start-up reads nothing that
grows with the number of people (issue 25): a /forget marks itself in the data database
first, and only marked ones are finished at start.
"""

from __future__ import annotations

import logging

from bot.storage.backend import Backend
from bot.storage.keystore import KeyStore
from bot.storage.people import PeopleStore

log = logging.getLogger(__name__)


async def person_tables(db: Backend) -> list[str]:
    """Every table with a person_id column, so tables added later move too."""
    found = await db.tables_with_column("person_id")
    # The parent last is not needed (foreign keys are deferred), but keeps it readable.
    return sorted(found, key=lambda n: n == "people")


async def move_legacy_rows(db: Backend, keys: KeyStore) -> int:
    """Re-key every legacy person's rows to their random row id; returns how many moved."""
    mapping = await keys.adopt_legacy_keys()
    if not mapping:
        return 0
    handles = list(mapping)
    present: list[str] = []
    for start in range(0, len(handles), 500):
        chunk = handles[start : start + 500]
        marks = ",".join("?" * len(chunk))
        rows = await db.fetch_all(
            f"SELECT person_id FROM people WHERE person_id IN ({marks})",  # noqa: S608 - placeholders only
            chunk,
        )
        present += [str(r["person_id"]) for r in rows]
    if not present:
        return 0
    tables = await person_tables(db)
    async with db.transaction() as tx:
        # Children and parent change in one transaction; checked at COMMIT.
        await tx.defer_foreign_keys()
        for table in tables:
            await tx.executemany(
                f"UPDATE {table} SET person_id = ? WHERE person_id = ?",  # noqa: S608 - schema names
                [(mapping[h], h) for h in present],
            )
    # secure_delete zeroes the old keys' cells; the checkpoint takes them out of the WAL.
    await db.checkpoint()
    log.info("moved %d people to random row ids", len(present))
    return len(present)


async def sweep_orphans(db: Backend, keys: KeyStore) -> int:
    """Delete rows whose person id has no identity in the key store: a /forget that stopped
    between the key store's delete (first) and the rows' leaves rows that nothing can open
    or link. Run at start, after the move above. A key store with nobody in it could be the
    wrong file, so then nothing is deleted."""
    known = set(await keys.everyone())
    if not known:
        return 0
    candidates: set[str] = set()
    tables = await person_tables(db)
    for table in tables:
        rows = await db.fetch_all(f"SELECT DISTINCT person_id FROM {table}")  # noqa: S608 - schema names
        candidates.update(str(r["person_id"]) for r in rows if str(r["person_id"]) not in known)
    if not candidates:
        return 0
    # Asked again of the key store itself: with several replicas, someone may have joined
    # on another one since this one read the identities (their identity is written
    # before their first row, so a row with none in the store is truly orphaned).
    orphans = candidates - set(await keys.owners(sorted(candidates)))
    if not orphans:
        return 0
    async with db.transaction() as tx:
        for table in tables:
            await tx.executemany(
                f"DELETE FROM {table} WHERE person_id = ?",  # noqa: S608 - schema names
                [(pid,) for pid in orphans],
            )
    await db.checkpoint()
    log.info("deleted the rows of %d people forgotten half-way", len(orphans))
    return len(orphans)


async def finish_forgets(people: PeopleStore, keys: KeyStore) -> int:
    """Finish every /forget marked and not done: the key and the link go (again, if they
    went already), then the rows. Someone who asked to be forgotten is, even if the
    process died before the key store's delete."""
    marked = await people.forgetting()
    for person_id in marked:
        await keys.destroy_identity(person_id)
        await people.delete(person_id)
    if marked:
        log.info("finished %d /forget(s) that stopped half-way", len(marked))
    return len(marked)


async def tidy_at_start(db: Backend, keys: KeyStore, people: PeopleStore) -> None:
    """What start-up does about identities: the whole-store passes once, then only the
    marked /forgets (a read of one small table)."""
    if not await keys.swept():
        await move_legacy_rows(db, keys)
        await sweep_orphans(db, keys)
        await keys.note_swept()
    await finish_forgets(people, keys)
