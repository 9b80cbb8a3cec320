"""The migration runner on both engines: every missing number runs, in order (not only
those above the highest), and a database a newer Steady migrated is refused."""

from __future__ import annotations

import pytest

from bot.storage.backend import StorageError, pending
from bot.storage.engines import open_backend
from tests.helpers.storage import Targets

ONE = (1, "CREATE TABLE a (x INTEGER NOT NULL)")
TWO = (2, "CREATE TABLE b (x INTEGER NOT NULL)")
THREE = (3, "CREATE TABLE c (x INTEGER NOT NULL)")


def test_pending_is_every_number_not_applied_in_order() -> None:
    assert pending([ONE, TWO, THREE], []) == [ONE, TWO, THREE]
    assert pending([ONE, TWO, THREE], [1, 3]) == [TWO]  # the gap, not nothing
    assert pending([ONE, TWO, THREE], [3, 2, 1]) == []
    with pytest.raises(StorageError, match=r"migration\(s\) 4 that this version does not know"):
        pending([ONE, TWO, THREE], [1, 2, 3, 4])


async def test_a_gap_is_filled_and_a_newer_database_refused(targets: Targets) -> None:
    # A database that ran 1 and 3 (a branch's 3 landed before another's 2).
    db = await open_backend(targets.data, [ONE, THREE], [ONE, THREE])
    await db.close()
    db = await open_backend(targets.data, [ONE, TWO, THREE], [ONE, TWO, THREE])
    try:
        await db.execute("INSERT INTO b (x) VALUES (?)", (1,))  # 2 ran
        rows = await db.fetch_all("SELECT version FROM schema_version ORDER BY version")
        assert [int(r["version"]) for r in rows] == [1, 2, 3]
    finally:
        await db.close()
    with pytest.raises(StorageError, match="a newer Steady opened it"):
        await open_backend(targets.data, [ONE, TWO], [ONE, TWO])
