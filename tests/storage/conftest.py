"""Store tests run twice: on SQLite files and on a real PostgreSQL (tests/helpers/postgres.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.storage.backend import Backend
from bot.storage.engines import open_data_database
from tests.helpers.postgres import fresh_schemas
from tests.helpers.storage import (
    Targets,
)

ENGINES = ("sqlite", "postgres")


@pytest.fixture(params=ENGINES)
async def targets(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Targets]:
    if request.param == "sqlite":
        yield Targets("sqlite", tmp_path / "steady.sqlite3", tmp_path / "keys.sqlite3")
        return
    async with fresh_schemas("data", "keys") as urls:
        yield Targets("postgres", urls["data"], urls["keys"])


@pytest.fixture
async def db(targets: Targets) -> AsyncIterator[Backend]:
    database = await open_data_database(targets.data)
    try:
        yield database
    finally:
        await database.close()
