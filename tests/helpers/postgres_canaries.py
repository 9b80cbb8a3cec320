"""The PostgreSQL deployment as a fixture, and every stored value read back as bytes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.core.clock import ManualClock
from bot.emulator import BotApiEmulator
from bot.logs import pin_noisy_loggers
from bot.storage.backend import Backend
from tests.helpers.bot import BotUnderTest, make_settings
from tests.helpers.postgres import fresh_schemas
from tests.helpers.webhook import SECRET, free_port, set_webhook


@pytest.fixture
async def pg_bot(
    emulator: BotApiEmulator, tmp_path: Path, clock: ManualClock
) -> AsyncIterator[BotUnderTest]:
    pin_noisy_loggers()
    port = free_port()
    async with fresh_schemas("data", "keys") as urls:
        settings = make_settings(
            tmp_path / "data",
            emulator.base_url,
            database_url=urls["data"],
            keys_database_url=urls["keys"],
            webhook_url=f"http://127.0.0.1:{port}/tg/hook",
            webhook_listen=("127.0.0.1", port),
            webhook_secret=SECRET,
        )
        under_test = BotUnderTest(emulator, settings, clock)
        await under_test.start()
        try:
            await set_webhook(under_test)
            await emulator.push_webhook()
            yield under_test
        finally:
            await under_test.stop()
            assert not emulator.internal_errors, emulator.internal_errors


async def every_value(db: Backend) -> list[tuple[str, object]]:
    """(table, value) for every column of every row: what a dump of the database holds."""
    tables = await db.fetch_all(
        "SELECT table_name FROM information_schema.tables"
        " WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
    )
    found: list[tuple[str, object]] = []
    for table in tables:
        name = str(table["table_name"])
        for row in await db.fetch_all(f"SELECT * FROM {name}"):
            found += [(name, value) for value in row.values()]
    return found


def as_bytes(value: object) -> bytes:
    if isinstance(value, bytes):
        return value
    return str(value).encode()
