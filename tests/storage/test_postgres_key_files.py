"""After /forget, the key database's files on PostgreSQL hold nothing of the person
(issue 27.4): not their handle, their references, their sealed identity or their wrapped
data key. A plain DELETE leaves the row in the table and index files until a VACUUM, and a
plain VACUUM leaves the bytes of a page's newest row in the page's free space.

The test reads the server's own files when it can (a local server whose data directory
this user can read: found by matching a relation's path and size, never guessed blindly);
everywhere it checks that every key table and index was rewritten into a new file."""

from __future__ import annotations

import glob
import os
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from bot.crypto import MasterKey
from bot.storage.keystore import KeyStore
from tests.helpers.postgres import fresh_schemas

TABLES = ("identities", "data_keys", "row_versions")


async def relation_files(conn: asyncpg.Connection) -> dict[str, str]:
    """Every table, index and TOAST relation of the test's schema -> its file path."""
    rows = await conn.fetch(
        "SELECT c.relname, pg_relation_filepath(c.oid) AS path FROM pg_class c"
        " JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE (n.nspname = current_schema() OR c.oid IN (SELECT reltoastrelid FROM pg_class"
        "  t JOIN pg_namespace tn ON tn.oid = t.relnamespace WHERE tn.nspname = current_schema()))"
        " AND c.relkind IN ('r', 'i', 't') AND pg_relation_filepath(c.oid) IS NOT NULL"
    )
    return {str(r["relname"]): str(r["path"]) for r in rows}


async def server_data_dir(conn: asyncpg.Connection) -> Path | None:
    """The server's data directory, if this process can read it."""
    path = await conn.fetchval("SELECT pg_relation_filepath('identities')")
    size = await conn.fetchval("SELECT pg_relation_size('identities')")
    configured = os.environ.get("STEADY_TEST_POSTGRES_DATA_DIR")
    candidates = [configured] if configured else glob.glob("/var/lib/postgresql/*/main")
    for candidate in candidates:
        file = Path(candidate) / path
        try:
            if file.stat().st_size == size:
                return Path(candidate)
        except OSError:
            continue
    return None


@pytest.fixture
async def key_url() -> AsyncIterator[str]:
    async with fresh_schemas("keys") as urls:
        yield urls["keys"]


async def test_forget_leaves_nothing_of_the_person_in_the_key_databases_files(
    key_url: str,
) -> None:
    store = await KeyStore.open(key_url, MasterKey(os.urandom(32)))
    conn = await asyncpg.connect(key_url)
    try:
        people = []
        for n in range(3):
            handle = f"handle-{n}-" + os.urandom(8).hex()
            row_id = await store.identity(handle)
            await store.create_data_key(row_id)
            await store.anchor_slots(row_id, {"journal:e1": 2})
            people.append((handle, row_id))
        # The newest row of each page: the one a plain VACUUM leaves in the free space.
        handle, row_id = people[-1]
        identity = await conn.fetchrow(
            "SELECT row_id, owner, sealed FROM identities WHERE handle = $1", handle
        )
        assert identity is not None
        wrapped = await conn.fetchval(
            "SELECT wrapped FROM data_keys WHERE person_id = $1", identity["owner"]
        )
        traces = [handle.encode(), identity["row_id"].encode(), bytes(identity["sealed"])]
        traces.append(bytes(wrapped))
        before = await relation_files(conn)

        await store.destroy_identity(row_id)

        after = await relation_files(conn)
        for table in TABLES:  # rewritten into new files, with their indexes
            assert after[table] != before[table], table
        for index in [n for n in before if n.startswith(TABLES) and n not in TABLES]:
            assert after[index] != before[index], index
        data_dir = await server_data_dir(conn)
        if data_dir is None:
            pytest.skip("the server's files are not readable here; the rewrite was checked")
        live = (Path(data_dir) / after["identities"]).read_bytes()
        assert people[0][0].encode() in live  # reading the right files: the others are there
        for name, path in after.items():
            blob = (Path(data_dir) / path).read_bytes()
            for trace in traces:
                assert trace not in blob, name
    finally:
        await conn.close()
        await store.close()
