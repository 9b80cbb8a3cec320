"""Several replicas tick; the claim keeps every prompt to one send (PostgreSQL only).

Each "replica" here has its own connection pools, key store and dispatcher, as a separate
process would; the database cannot tell them apart from two processes.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass

import asyncpg
import pytest

from bot.core.clock import ManualClock
from bot.crypto import MasterKey, PersonCipher, pseudonym, random_key
from bot.features.checkins.delivery import Dispatcher
from bot.features.checkins.policy import Claim, PassReport
from bot.features.checkins.prefs import CheckinPrefs
from bot.people.profile import Profile
from bot.people.service import CHAT_SLOT, PROFILE_SLOT, PeopleService
from bot.storage.backend import Backend, Leadership
from bot.storage.deliveries import DeliveryStore
from bot.storage.engines import open_data_database
from bot.storage.keystore import KeyStore, new_row_id
from bot.storage.people import PeopleStore
from bot.storage.postgres import lock_key, lock_space
from bot.transport.send_outcome import Delivered, SendOutcome
from tests.helpers.bot import shared_content
from tests.helpers.postgres import fresh_schemas

PROMPTS = shared_content().prompts
DUE = dt.datetime(2026, 12, 1, 7, 30, tzinfo=dt.UTC)


async def seed(data: str, keys_url: str, master: MasterKey, people: int) -> None:
    """`people` Londoners due at 07:30, written in bulk (as bench/bench_daily.py does)."""
    keys = await KeyStore.open(keys_url, master)
    db = await open_data_database(data)
    try:
        pseudo = await keys.pseudonym_key()
        now = int(DUE.timestamp()) - 86_400
        profile = (
            Profile(country="GB", timezone="Europe/London", onboarded=True)
            .holding(CheckinPrefs(daily_time="07:30", daily_enabled=True))
            .to_json()
        )
        identity_rows, people_rows = [], []
        for n in range(people):
            pid, key = new_row_id(), random_key()
            cipher = PersonCipher(pid, key)
            identity_rows.append((pseudonym(pseudo, 50_000 + n), pid, key))
            people_rows.append(
                (
                    pid,
                    cipher.seal_text(CHAT_SLOT, str(50_000 + n)),
                    cipher.seal_text(PROFILE_SLOT, profile),
                    int(DUE.timestamp()),
                    "2026-12-01",
                    now,
                    now,
                )
            )
        await keys.add_people(identity_rows)
        async with db.transaction() as tx:
            await tx.executemany(
                "INSERT INTO people (person_id, chat_enc, profile_enc, state, active,"
                " next_due_utc, next_due_date, created_at, updated_at)"
                " VALUES (?, ?, ?, '', 1, ?, ?, ?, ?)",
                people_rows,
            )
    finally:
        await db.close()
        await keys.close()


@dataclass
class Replica:
    db: Backend
    keys: KeyStore
    dispatcher: Dispatcher
    leadership: Leadership | None

    async def close(self) -> None:
        await self.dispatcher.close()
        await self.db.close()
        await self.keys.close()


@dataclass
class Deployment:
    data: str
    keys: str
    master: MasterKey
    clock: ManualClock
    sent: list[str]
    replicas: list[Replica]

    async def replica(self, *, lock: bool, slow: bool = False) -> Replica:
        keys = await KeyStore.open(self.keys, self.master)
        db = await open_data_database(self.data)
        people = PeopleService(PeopleStore(db), keys, await keys.pseudonym_key(), self.clock)

        async def send(claim: Claim) -> SendOutcome:
            self.sent.append(claim.person_id)
            await asyncio.sleep(0.001 if slow else 0)  # a real send yields to the other
            return Delivered(len(self.sent))

        leadership = db.leadership("dispatcher") if lock else None
        dispatcher = Dispatcher(
            people=people,
            store=DeliveryStore(db),
            prompts=PROMPTS,
            clock=self.clock,
            sender=send,
            leadership=leadership,
        )
        made = Replica(db, keys, dispatcher, leadership)
        self.replicas.append(made)
        return made


@pytest.fixture
async def deployment() -> AsyncIterator[Deployment]:
    async with fresh_schemas("data", "keys") as urls:
        found = Deployment(
            urls["data"], urls["keys"], MasterKey(os.urandom(32)), ManualClock(DUE), [], []
        )
        try:
            yield found
        finally:
            for replica in found.replicas:
                await replica.close()


async def statuses(url: str) -> dict[str, int]:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch("SELECT status, COUNT(*) AS n FROM deliveries GROUP BY status")
        return {str(r["status"]): int(r["n"]) for r in rows}
    finally:
        await conn.close()


async def until_quiet(*dispatchers: Dispatcher) -> list[list[PassReport]]:
    """Each replica runs pass after pass (as its ticks would) until nothing is due for it."""

    async def keep_ticking(dispatcher: Dispatcher) -> list[PassReport]:
        reports = []
        while True:
            reports.append(await dispatcher.run_once())
            if reports[-1].due == 0:
                return reports

    return list(await asyncio.gather(*(keep_ticking(d) for d in dispatchers)))


async def test_two_dispatchers_claiming_at_once_message_nobody_twice(
    deployment: Deployment,
) -> None:
    """No lock at all: the claim alone (one transaction whose read takes its rows FOR
    UPDATE SKIP LOCKED and records their deliveries) keeps 5,000 due people to one prompt
    each, and the two dispatchers' batches are disjoint: no row is read by both."""
    await seed(deployment.data, deployment.keys, deployment.master, 5000)
    one = await deployment.replica(lock=False)
    two = await deployment.replica(lock=False)
    reports = await until_quiet(one.dispatcher, two.dispatcher)
    assert len(deployment.sent) == 5000
    assert len(set(deployment.sent)) == 5000, "someone got two prompts"
    assert await statuses(deployment.data) == {"sent": 5000}
    # Both really claimed (the race was real), each passing over the rows the other held:
    # every row was read once, and none was read, decrypted and then given up.
    by_replica = [sum(r.sent for r in mine) for mine in reports]
    assert all(n > 0 for n in by_replica), by_replica
    assert sum(r.conflicts for mine in reports for r in mine) == 0
    assert sum(r.due for mine in reports for r in mine) == 5000


async def test_only_the_lock_holder_claims(deployment: Deployment) -> None:
    await seed(deployment.data, deployment.keys, deployment.master, 1200)
    leader = await deployment.replica(lock=True)
    standby = await deployment.replica(lock=True)
    first, second = await asyncio.gather(
        leader.dispatcher.run_once(), standby.dispatcher.run_once()
    )
    reports = sorted([first, second], key=lambda r: r.standby)
    assert [r.standby for r in reports] == [False, True]
    assert reports[0].sent == 1200 and reports[1].due == 0
    assert len(set(deployment.sent)) == len(deployment.sent) == 1200


async def kill_lock_holder(url: str) -> int:
    """What kill -9 of the leader does to PostgreSQL: its session ends, its lock is free.
    Only this deployment's dispatcher lock: other tests' bots share the database, and
    advisory locks are the database's (pg_locks shows a bigint key as two 32-bit halves)."""
    key = lock_key("dispatcher:0", lock_space(url))
    admin = await asyncpg.connect(url)
    try:
        rows = await admin.fetch(
            # With a timeout the call returns once the backend has exited and its advisory
            # lock is gone (PostgreSQL 14+): without one it only signals, and the standby's
            # next try could still find the lock held on a loaded machine.
            "SELECT pg_terminate_backend(pid, 60000) FROM pg_locks"
            " WHERE locktype = 'advisory' AND granted AND classid = $1 AND objid = $2"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            key >> 32,
            key & 0xFFFFFFFF,
        )
        return sum(1 for row in rows if row[0])  # terminated, not only signalled
    finally:
        await admin.close()


async def test_killing_the_leader_hands_over_with_nothing_sent_twice(
    deployment: Deployment,
) -> None:
    await seed(deployment.data, deployment.keys, deployment.master, 1200)
    leader = await deployment.replica(lock=True)
    standby = await deployment.replica(lock=True)
    assert leader.leadership is not None and await leader.leadership.hold()
    assert (await standby.dispatcher.run_once()).standby

    # The leader claims a batch and dies before sending any of it.
    claimed = await leader.dispatcher.claim()
    assert len(claimed) == 500
    assert await kill_lock_holder(deployment.data) == 1

    report = await standby.dispatcher.run_once()
    assert not report.standby, "the standby did not take over"
    assert report.sent == 700  # everyone but the dead leader's claimed batch
    assert len(deployment.sent) == len(set(deployment.sent)) == 700
    assert not set(deployment.sent) & {c.person_id for c in claimed}, "a claim was re-sent"
    # At most once: what the dead leader claimed stays claimed, never sent twice.
    assert await statuses(deployment.data) == {"sent": 700, "claimed": 500}
    assert (await standby.dispatcher.run_once()).due == 0
