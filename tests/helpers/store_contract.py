"""The stores' shared fixtures: a fixed now, a person row."""

from __future__ import annotations

from bot.storage.backend import Backend
from bot.storage.people import PeopleStore

NOW = 1_764_500_000  # past 2038's 32-bit limit would be 2_147_483_648; test that too below


async def person(db: Backend, pid: str = "r1", now: int = NOW) -> str:
    await PeopleStore(db).insert(pid, b"\x01chat", b"\x01profile", "", now)
    return pid
