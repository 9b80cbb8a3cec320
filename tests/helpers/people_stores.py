"""A key store and a data database in a test's temp dir, with PeopleService on them: what
the people side's unit tests run against."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bot.core.clock import ManualClock
from bot.crypto import MasterKey
from bot.people.profile import Record
from bot.people.service import PeopleService
from bot.storage.database import Database
from bot.storage.keystore import KeyStore
from bot.storage.people import PeopleStore
from bot.storage.schema import MIGRATIONS


@dataclass
class PeopleStores:
    tmp: Path
    master: MasterKey
    keys: KeyStore
    db: Database
    pseudonym_key: bytes
    records: Sequence[type[Record]] = ()  # registered on each service, besides the app's

    def service(self) -> PeopleService:
        """A PeopleService on these stores: a second one is another replica, or a restart."""
        clock = ManualClock(datetime(2026, 12, 3, 9, tzinfo=UTC))
        people = PeopleService(PeopleStore(self.db), self.keys, self.pseudonym_key, clock)
        if self.records:
            people.know_records(self.records)
        return people

    async def reopen_keys(self) -> None:
        """The key store opened again from its file (the one before closed, or crashed)."""
        self.keys = await KeyStore.open(self.tmp / "keys.sqlite3", self.master)


@asynccontextmanager
async def people_stores(
    tmp: Path, records: Sequence[type[Record]] = ()
) -> AsyncIterator[PeopleStores]:
    master = MasterKey(os.urandom(32))
    keys = await KeyStore.open(tmp / "keys.sqlite3", master)
    db = await Database.open(tmp / "data.sqlite3", MIGRATIONS)
    opened = PeopleStores(tmp, master, keys, db, await keys.pseudonym_key(), records)
    try:
        yield opened
    finally:
        await opened.keys.close()  # a test may have reopened it
        await db.close()
