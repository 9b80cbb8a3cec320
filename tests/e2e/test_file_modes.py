"""Data files are private whatever the umask; serving Telegram, the master key does not sit
beside the databases unless the operator says so."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from bot.core.clock import ManualClock
from bot.emulator import BotApiEmulator
from tests.conftest import TOKEN, BotUnderTest, make_settings
from tests.unit.test_config import run_cli


def modes(data_dir: Path) -> dict[str, int]:
    return {p.name: stat.S_IMODE(p.stat().st_mode) for p in data_dir.iterdir() if p.is_file()}


async def test_data_files_are_0600_whatever_the_umask(
    emulator: BotApiEmulator, clock: ManualClock, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    bot = BotUnderTest(emulator, make_settings(data, emulator.base_url, master_key=None), clock)
    previous = os.umask(0o022)
    try:
        await bot.start()
        await bot.onboard()
        found = modes(data)
        await bot.stop()
    finally:
        os.umask(previous)
    assert {"steady.sqlite3", "steady.sqlite3-wal", "keys.sqlite3", "master.key"} <= set(found)
    loose = {name: oct(mode) for name, mode in found.items() if mode & 0o077}
    assert not loose, loose


async def test_serving_telegram_refuses_a_key_file_beside_the_data(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {"BOT_DATA_DIR": str(data), "TELEGRAM_BOT_TOKEN": TOKEN}
    result = run_cli(env, "serve", cwd=tmp_path)
    assert result.returncode == 2 and "BOT_ALLOW_KEY_IN_DATA_DIR=1" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (data / "master.key").exists()
