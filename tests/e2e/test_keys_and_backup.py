"""`keys rotate` and `backup` on a real data dir the bot has written to."""

from __future__ import annotations

import base64
import dataclasses
import sqlite3
from pathlib import Path

from tests.conftest import USER, BotUnderTest
from tests.unit.test_config import run_cli


def env_for(bot: BotUnderTest, key: bytes) -> dict[str, str]:
    return {
        "BOT_DATA_DIR": str(bot.settings.data_dir),
        "BOT_MASTER_KEY": base64.b64encode(key).decode(),
    }


async def test_rotate_then_the_bot_reads_everything_with_the_new_key(
    bot: BotUnderTest, tmp_path: Path
) -> None:
    await bot.onboard(country="Ireland")
    await bot.stop()
    assert bot.settings.master_key is not None
    result = run_cli(env_for(bot, bot.settings.master_key), "keys", "rotate", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    new_key = base64.b64decode(result.stdout.strip().splitlines()[-1])
    assert new_key != bot.settings.master_key
    bot.settings = dataclasses.replace(bot.settings, master_key=new_key)
    await bot.start()
    person = await bot.services.people.load(USER)
    assert person is not None and person.profile.country == "IE"


async def test_backup_is_consistent_and_names_the_key_file(
    bot: BotUnderTest, tmp_path: Path
) -> None:
    await bot.onboard()
    target = tmp_path / "copy.sqlite3"
    assert bot.settings.master_key is not None
    result = run_cli(env_for(bot, bot.settings.master_key), "backup", str(target), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "keys.sqlite3" in result.stdout and "separately" in result.stdout
    with sqlite3.connect(target) as copy:
        assert copy.execute("SELECT COUNT(*) FROM people").fetchone()[0] == 1
        assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    again = run_cli(env_for(bot, bot.settings.master_key), "backup", str(target), cwd=tmp_path)
    assert again.returncode == 2 and "already exists" in again.stderr


async def test_rotate_refuses_while_the_bot_runs(bot: BotUnderTest, tmp_path: Path) -> None:
    await bot.onboard()
    assert bot.settings.master_key is not None
    result = run_cli(env_for(bot, bot.settings.master_key), "keys", "rotate", cwd=tmp_path)
    assert result.returncode == 2
    assert "stop it before rotating keys" in result.stderr
    person = await bot.services.people.load(USER)
    assert person is not None  # still readable with the key the bot holds


async def test_stats_show_crisis_counts_and_nothing_personal(
    bot: BotUnderTest, tmp_path: Path
) -> None:
    await bot.onboard()
    await bot.send("help")
    await bot.next(containing="999")
    await bot.send("he is outside")
    await bot.next(containing="999")
    await bot.settle()
    assert bot.settings.master_key is not None
    result = run_cli(env_for(bot, bot.settings.master_key), "stats", "--days", "3650", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "people: 1" in result.stdout
    assert "general" in result.stdout and "danger" in result.stdout
    assert "outside" not in result.stdout and str(USER) not in result.stdout


async def test_backup_of_the_key_store_opens_with_the_master_key(
    bot: BotUnderTest, tmp_path: Path
) -> None:
    from bot.crypto import MasterKey  # noqa: PLC0415
    from bot.storage.keystore import KeyStore  # noqa: PLC0415

    await bot.onboard()
    assert bot.settings.master_key is not None
    env = env_for(bot, bot.settings.master_key)
    data_copy, keys_copy = tmp_path / "data.sqlite3", tmp_path / "keys.sqlite3"
    result = run_cli(env, "backup", str(data_copy), "--keys", str(keys_copy), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "apart" in result.stdout
    with sqlite3.connect(keys_copy) as copy:
        assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert copy.execute("SELECT COUNT(*) FROM data_keys").fetchone()[0] == 1
    store = await KeyStore.open(keys_copy, MasterKey(bot.settings.master_key))
    await store.close()
    only_keys = tmp_path / "only-keys.sqlite3"
    alone = run_cli(env, "backup", "--keys", str(only_keys), cwd=tmp_path)
    assert alone.returncode == 0 and only_keys.exists(), alone.stderr
    neither = run_cli(env, "backup", cwd=tmp_path)
    assert neither.returncode == 2 and "--keys PATH" in neither.stderr
    same = run_cli(env, "backup", str(tmp_path / "x"), "--keys", str(tmp_path / "x"), cwd=tmp_path)
    assert same.returncode == 2 and "different file names" in same.stderr


async def test_health_follows_the_serving_process(bot: BotUnderTest, tmp_path: Path) -> None:
    await bot.onboard()
    assert bot.settings.master_key is not None
    env = env_for(bot, bot.settings.master_key)
    assert run_cli(env, "health", cwd=tmp_path).returncode == 0
    await bot.stop()
    stopped = run_cli(env, "health", cwd=tmp_path)
    assert stopped.returncode == 1 and "no Steady process" in stopped.stderr
