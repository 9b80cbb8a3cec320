"""Forgetting a person and reading the database files' bytes."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.bot import USER, BotUnderTest


def file_bytes(db_path: Path) -> dict[str, bytes]:
    """The database file and its WAL, if any."""
    paths = [db_path, Path(f"{db_path}-wal")]
    return {p.name: p.read_bytes() for p in paths if p.exists()}


async def forget(bot: BotUnderTest, user: int = USER) -> None:
    await bot.send("/forget", user=user)
    confirm = await bot.next(user, containing="Delete everything")
    await bot.press(confirm, data="forget:yes", user=user)
    await bot.find("Everything is deleted", chat=user)
    await bot.settle()
