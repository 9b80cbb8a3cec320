"""Moving people from rows keyed by an HMAC of their Telegram id to random row ids.

Before, every table's person_id was HMAC(pseudonym key, Telegram id): with the key store
and the master key, any old copy of the data database led back to the person, /forget or
not. Now the data database holds only random row ids; the key store maps handles to them.
Run at every start: a crash between the key store's commit and this one is finished next
time (each step is one transaction and safe to repeat).
"""

from __future__ import annotations

import logging

from bot.storage.database import Database
from bot.storage.keystore import KeyStore

log = logging.getLogger(__name__)


async def person_tables(db: Database) -> list[str]:
    """Every table with a person_id column, so tables added later move too."""
    tables = await db.fetch_all(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    )
    found: list[str] = []
    for table in tables:
        name = str(table["name"])
        columns = await db.fetch_all(f"PRAGMA table_info({name})")
        if any(str(c["name"]) == "person_id" for c in columns):
            found.append(name)
    # The parent last is not needed (foreign keys are deferred), but keeps it readable.
    return sorted(found, key=lambda n: n == "people")


async def move_legacy_rows(db: Database, keys: KeyStore) -> int:
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
    async with db.transaction() as conn:
        # Children and parent change in one transaction; checked at COMMIT.
        await conn.execute("PRAGMA defer_foreign_keys = ON")
        for table in tables:
            await conn.executemany(
                f"UPDATE {table} SET person_id = ? WHERE person_id = ?",  # noqa: S608 - schema names
                [(mapping[h], h) for h in present],
            )
    # secure_delete zeroes the old keys' cells; the checkpoint takes them out of the WAL.
    await db.checkpoint()
    log.info("moved %d people to random row ids", len(present))
    return len(present)
