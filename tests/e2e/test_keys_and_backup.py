"""`keys rotate` and `backup` on a real data dir the bot has written to."""

from __future__ import annotations

import base64
import dataclasses
import re
import sqlite3
from pathlib import Path

import pytest

from bot.config import ConfigError
from bot.core.clock import ManualClock
from bot.crypto import MasterKey, random_key
from bot.emulator import BotApiEmulator
from bot.keys import deliver_new_key, pending_key_file, read_key_file, stage_rotation
from bot.storage.keystore import KeyStore, WrongMasterKeyError
from tests.helpers.bot import TOKEN, USER, BotUnderTest, make_settings
from tests.helpers.config import run_cli


def env_for(bot: BotUnderTest, key: bytes) -> dict[str, str]:
    return {
        "BOT_DATA_DIR": str(bot.settings.data_dir),
        "BOT_MASTER_KEY": base64.b64encode(key).decode(),
    }


async def test_rotate_then_retire_then_the_bot_reads_everything_with_the_new_key(
    bot: BotUnderTest, tmp_path: Path
) -> None:
    await bot.onboard(country="Ireland")
    await bot.stop()
    old = bot.settings.master_key
    assert old is not None
    new_file = tmp_path / "new.key"
    result = run_cli(
        env_for(bot, old), "keys", "rotate", "--new-key-file", str(new_file), cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    new_key = base64.b64decode(new_file.read_text())
    assert new_key != old and encode(new_key) not in result.stdout  # never only printed
    assert new_file.stat().st_mode & 0o777 == 0o600
    # Staged: both keys open everything; retiring with the old key is refused.
    for key in (old, new_key):
        assert (await loaded_country(bot, key)) == "IE"
    refused = run_cli(env_for(bot, old), "keys", "retire", cwd=tmp_path)
    assert refused.returncode == 1 and "new key" in refused.stderr
    retired = run_cli(env_for(bot, new_key), "keys", "retire", cwd=tmp_path)
    assert retired.returncode == 0, retired.stderr
    assert (await loaded_country(bot, new_key)) == "IE"
    gone = run_cli(env_for(bot, old), "stats", cwd=tmp_path)
    assert gone.returncode == 0  # the data database needs no key ...
    bot.settings = dataclasses.replace(bot.settings, master_key=old)
    with pytest.raises(WrongMasterKeyError):  # ... but the old key opens no key store now
        await bot.start()


async def test_rotation_with_stdout_closed_fails_and_the_old_key_still_works(
    bot: BotUnderTest, tmp_path: Path
) -> None:
    await bot.onboard(country="Ireland")
    await bot.stop()
    old = bot.settings.master_key
    assert old is not None
    new_file = tmp_path / "new.key"
    for extra in ([], ["--new-key-file", str(new_file)]):
        result = run_cli(env_for(bot, old), "keys", "rotate", *extra, cwd=tmp_path, stdout=None)
        assert result.returncode != 0, (extra, result.stderr)
        assert (await loaded_country(bot, old)) == "IE"


async def loaded_country(bot: BotUnderTest, key: bytes) -> str | None:
    bot.settings = dataclasses.replace(bot.settings, master_key=key)
    await bot.start()
    try:
        person = await bot.services.people.load(USER)
        return None if person is None else person.profile.country
    finally:
        await bot.stop()


def encode(key: bytes) -> str:
    return base64.b64encode(key).decode()


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
    await bot.send("I'm not ok")
    await bot.next(containing="Are you safe right now?")
    await bot.settle()
    assert bot.settings.master_key is not None
    result = run_cli(env_for(bot, bot.settings.master_key), "stats", "--days", "3650", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "people: 1" in result.stdout
    assert "general" in result.stdout and "danger" in result.stdout
    replies, checks = result.stdout.split("safety checks since")
    assert "danger" in replies
    assert "general" in checks.split("\n", 1)[1] and "check:" not in result.stdout
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


KEY_FILE_STEPS = ("new key file written", "staged", "key file renamed by retire")


@pytest.mark.parametrize("crash_after", KEY_FILE_STEPS)
async def test_key_file_rotation_recovers_from_a_crash_at_any_step(
    emulator: BotApiEmulator, clock: ManualClock, tmp_path: Path, crash_after: str
) -> None:
    settings = make_settings(tmp_path / "data", emulator.base_url, master_key=None)
    bot = BotUnderTest(emulator, settings, clock)
    await bot.start()
    await bot.onboard(country="Ireland")
    await bot.stop()
    old = read_key_file(settings.key_file)
    pending = pending_key_file(settings)
    # Run the rotation's steps up to the crash point, as `keys rotate` / `retire` do.
    new = deliver_new_key(settings, None).key
    if crash_after != KEY_FILE_STEPS[0]:
        await stage_rotation(settings, old, new)
    if crash_after == KEY_FILE_STEPS[2]:
        pending.replace(settings.key_file)
    env = {"BOT_DATA_DIR": str(settings.data_dir)}

    if pending.exists():
        with pytest.raises(ConfigError, match=re.escape(str(pending))):
            await bot.start()
        await bot.stop()  # releases the data dir, as `python -m bot` does on the way out
        serve_env = {**env, "TELEGRAM_BOT_TOKEN": TOKEN, "TELEGRAM_BOT_API_URL": emulator.base_url}
        result = run_cli(serve_env, "serve", cwd=tmp_path)
        assert result.returncode == 2 and str(pending) in result.stderr
        assert "keys rotate" in result.stderr and "keys retire" in result.stderr
        rotated = run_cli(env, "keys", "rotate", cwd=tmp_path)
        assert rotated.returncode == 0, rotated.stderr
    else:
        await bot.start()  # the new key file opens the staged store
        assert (await bot.services.people.load(USER)) is not None
        await bot.stop()
    retired = run_cli(env, "keys", "retire", cwd=tmp_path)
    assert retired.returncode == 0, retired.stderr
    assert not pending.exists()
    assert read_key_file(settings.key_file) == new != old
    await bot.start()
    person = await bot.services.people.load(USER)
    assert person is not None and person.profile.country == "IE"
    await bot.stop()


def restore(backup: Path, data: Path) -> None:
    for suffix in ("-wal", "-shm"):
        Path(f"{data}{suffix}").unlink(missing_ok=True)
    data.write_bytes(backup.read_bytes())


async def test_reanchor_after_restoring_an_older_data_backup(
    bot: BotUnderTest, tmp_path: Path
) -> None:
    await bot.onboard(country="Ireland")
    await bot.settle()
    key = bot.settings.master_key
    assert key is not None
    backup = tmp_path / "data-backup.sqlite3"
    made = run_cli(env_for(bot, key), "backup", str(backup), cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    person = await bot.services.people.load(USER)
    assert person is not None
    person.profile.silent = True  # changed after the backup: the key store anchors it
    await bot.services.people.save(person)
    await bot.stop()
    restore(backup, bot.settings.data_db)  # the operator puts the older data back
    await bot.start()
    await bot.send("hello")
    await bot.next(containing="can't be opened")  # locked out, as the README warns
    await bot.stop()

    unconfirmed = run_cli(env_for(bot, key), "keys", "reanchor", cwd=tmp_path)
    assert unconfirmed.returncode == 2 and "--confirm" in unconfirmed.stderr
    done = run_cli(env_for(bot, key), "keys", "reanchor", "--confirm", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "1 people" in done.stdout
    await bot.start()
    person = await bot.services.people.load(USER)
    assert person is not None and person.profile.country == "IE"
    assert not person.profile.silent  # the backup's settings, accepted as the newest


async def test_a_failed_rotation_removes_the_new_key_file_it_wrote(
    bot: BotUnderTest, tmp_path: Path
) -> None:
    """Issue 26: a key file left by a failed run opens nothing, and would pass for the new
    key. Here staging is refused: another new key is staged, and someone joined under it."""
    await bot.onboard(country="Ireland")
    await bot.stop()
    old = bot.settings.master_key
    assert old is not None
    staged = MasterKey(random_key())
    await stage_rotation(bot.settings, MasterKey(old), staged)
    joined = await KeyStore.open(bot.settings.key_db, staged)
    try:
        joiner = await joined.create_data_key("joiner")
    finally:
        await joined.close()
    new_file = tmp_path / "new.key"
    result = run_cli(
        env_for(bot, old), "keys", "rotate", "--new-key-file", str(new_file), cwd=tmp_path
    )
    assert result.returncode == 1 and "another new key is staged" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not new_file.exists() and not new_file.with_name("new.key.tmp").exists()
    assert (await loaded_country(bot, old)) == "IE"
    kept = await KeyStore.open(bot.settings.key_db, staged)
    try:
        assert await kept.data_key("joiner") == joiner
    finally:
        await kept.close()
