"""/forget cannot be undone by subtraction (issue 27.3).

The attack: an old copy of the data database (taken before someone's /forget) and the key
store as it is now, no master key. Before references, the backup's row ids minus the row
ids still in the key store left exactly the forgotten person's row. Now nothing in the key
store can be compared with the backup: the subtraction leaves every row id, so it singles
out nobody. Run on SQLite (the files themselves) and PostgreSQL (every value of every
table, what a dump shows)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.storage.backend import Backend
from tests.helpers import postgres_canaries
from tests.helpers.bot import USER, BotUnderTest
from tests.helpers.canaries import PERSON, write_everywhere
from tests.helpers.postgres_canaries import as_bytes, every_value
from tests.helpers.unlinkable import file_bytes, forget

pg_bot = postgres_canaries.pg_bot  # the same PostgreSQL deployment, as a fixture here


def sqlite_values(path: Path) -> list[tuple[str, object]]:
    with sqlite3.connect(path) as db:
        tables = [
            str(r[0]) for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        ]
        return [(t, v) for t in tables for row in db.execute(f"SELECT * FROM {t}") for v in row]


def backup_ids(values: list[tuple[str, object]]) -> set[str]:
    """Every text value long enough to be an id (row ids, entry ids, worksheet ids)."""
    return {v for _, v in values if isinstance(v, str) and len(v) >= 8}


def subtraction(backup: set[str], key_store: list[bytes]) -> set[str]:
    """The attack: the backup's ids that the key store does not hold, in any form."""
    return {i for i in backup if not any(i.encode() in blob for blob in key_store)}


async def people_ids(db: Backend) -> set[str]:
    return {str(r["person_id"]) for r in await db.fetch_all("SELECT person_id FROM people")}


async def setting_up(bot: BotUnderTest) -> None:
    await write_everywhere(bot)  # edits and deletions too: the key store anchors their slots
    await bot.onboard()
    await bot.onboard(user=USER + 1)


async def test_backup_minus_the_key_store_singles_out_nobody_on_sqlite(
    bot: BotUnderTest, tmp_path: Path
) -> None:
    await setting_up(bot)
    rows = await people_ids(bot.services.db)
    backup = tmp_path / "old-backup.sqlite3"
    await bot.services.db.backup_to(backup)
    await forget(bot, PERSON)
    await bot.stop()

    values = sqlite_values(backup)
    ids = backup_ids(values)
    people = {str(v) for t, v in values if t == "people" and str(v) in rows}
    assert len(people) == 3 and people <= ids
    key_store = [as_bytes(v) for _, v in sqlite_values(bot.settings.key_db)]
    key_store += list(file_bytes(bot.settings.key_db).values())
    left = subtraction(ids, key_store)
    assert people <= left, "the key store names someone's row id"
    assert left == ids  # no id of the backup (entry, part, worksheet) is in the key store


async def test_backup_minus_the_key_store_singles_out_nobody_on_postgres(
    pg_bot: BotUnderTest,
) -> None:
    bot = pg_bot
    await setting_up(bot)
    data, keys = bot.services.db, bot.services.keys.db
    values = await every_value(data)  # the old backup: a dump of the data database
    people = await people_ids(data)
    await forget(bot, PERSON)

    ids = backup_ids(values)
    assert len(people) == 3 and people <= ids
    left = subtraction(ids, [as_bytes(v) for _, v in await every_value(keys)])
    assert people <= left, "the key store names someone's row id"
    assert left == ids
    times = await keys.fetch_all("SELECT DISTINCT created_at FROM data_keys")
    assert [int(r["created_at"]) for r in times] == [0]  # no time to match a row by
