"""Data files are private whatever the umask; serving Telegram, the master key does not sit
beside the databases unless the operator says so."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from bot.core.clock import ManualClock
from bot.emulator import BotApiEmulator
from tests.helpers.bot import TOKEN, BotUnderTest, make_settings
from tests.helpers.config import run_cli


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


def every_mode(data_dir: Path) -> dict[str, int]:
    """Every file and folder under the data dir, at any depth, with its mode."""
    found: dict[str, int] = {}
    for folder, dirs, files in os.walk(data_dir):
        for name in [*dirs, *files]:
            path = Path(folder, name)
            found[str(path.relative_to(data_dir))] = stat.S_IMODE(path.stat().st_mode)
    return found


async def test_everything_in_the_data_dir_is_private_after_a_chart_and_an_export(
    emulator: BotApiEmulator, clock: ManualClock, tmp_path: Path
) -> None:
    """Issue 26: matplotlib wrote chart/fontlist-*.json 0644. And `backup` (issue 27.8)."""
    from tests.helpers.urge import log_urge, pause_due_job  # noqa: PLC0415

    data = tmp_path / "data"
    bot = BotUnderTest(emulator, make_settings(data, emulator.base_url, master_key=None), clock)
    bot.chart_mode = "process"  # as in production: the worker caches its font list here
    previous = os.umask(0o022)
    try:
        await bot.start()
        await bot.onboard()
        pause_due_job(bot)
        await log_urge(bot, "6", later="1")
        await bot.send("/progress")
        await bot.next(predicate=lambda m: m.photo is not None, timeout=60)
        await bot.send("/export")
        await bot.next(predicate=lambda m: m.document is not None, timeout=60)
        await bot.stop()
        backups = tmp_path / "backups"
        backups.mkdir()
        env = {"BOT_DATA_DIR": str(data)}
        result = run_cli(
            env,
            "backup",
            str(backups / "data.sqlite3"),
            "--keys",
            str(backups / "keys.sqlite3"),
            cwd=tmp_path,
        )
    finally:
        os.umask(previous)
    assert result.returncode == 0, result.stderr
    found = every_mode(data)
    assert any(name.startswith("chart/fontlist-") for name in found), sorted(found)
    loose = {name: oct(mode) for name, mode in found.items() if mode & 0o077}
    assert not loose, loose
    copies = modes(backups)
    assert set(copies) == {"data.sqlite3", "keys.sqlite3"}
    assert all(mode == 0o600 for mode in copies.values()), {n: oct(m) for n, m in copies.items()}
