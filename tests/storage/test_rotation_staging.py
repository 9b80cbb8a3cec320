"""Rotation staging never deletes the only wrap of a data key (issue 27.1).

A person who joins while the bot serves with the staged key has a data key wrapped under
that key alone. Rotating again, or any clean-up after a failed step, must leave it.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.config import Settings
from bot.crypto import MasterKey, random_key
from bot.keys import stage_rotation
from bot.storage.keystore import KeyStore, RotationError
from tests.helpers.storage import Targets


def settings_for(targets: Targets, tmp_path: Path) -> Settings:
    keys_url = targets.keys if isinstance(targets.keys, str) else None
    data_dir = tmp_path if keys_url is not None else Path(targets.keys).parent
    return Settings(
        token=None,
        api_url=None,
        data_dir=data_dir,
        master_key=b"\0" * 32,
        log_level=logging.INFO,
        keys_database_url=keys_url,
    )


async def joins_under(target: Path | str, master: MasterKey, owner: str) -> bytes:
    store = await KeyStore.open(target, master)
    try:
        assert store.opened_with_next_key
        return await store.create_data_key(owner)
    finally:
        await store.close()


async def key_of(target: Path | str, master: MasterKey, owner: str) -> bytes | None:
    store = await KeyStore.open(target, master)
    try:
        return await store.data_key(owner)
    finally:
        await store.close()


async def test_rotating_again_after_serving_with_the_staged_key_keeps_the_joiner(
    targets: Targets, tmp_path: Path
) -> None:
    settings = settings_for(targets, tmp_path)
    old, new = MasterKey(random_key()), MasterKey(random_key())
    store = await KeyStore.open(targets.keys, old)
    early = await store.create_data_key("early")
    await store.close()
    assert await stage_rotation(settings, old, new) == 1
    joiner = await joins_under(targets.keys, new, "joiner")  # served with the staged key

    # The operator runs `keys rotate` again with the old key (same pending new key).
    await stage_rotation(settings, old, new)

    assert await key_of(targets.keys, new, "joiner") == joiner
    assert await key_of(targets.keys, new, "early") == early
    store = await KeyStore.open(targets.keys, new)
    try:
        assert await store.retire_old_key() == 2
    finally:
        await store.close()
    assert await key_of(targets.keys, new, "joiner") == joiner


async def test_a_failed_rotation_never_removes_a_key_only_the_staged_key_wraps(
    targets: Targets, tmp_path: Path
) -> None:
    settings = settings_for(targets, tmp_path)
    old, new, other = (MasterKey(random_key()) for _ in range(3))
    store = await KeyStore.open(targets.keys, old)
    await store.create_data_key("early")
    await store.close()
    await stage_rotation(settings, old, new)
    joiner = await joins_under(targets.keys, new, "joiner")

    # Another new key while the first is staged and holds a joiner's only wrap: refused,
    # and the clean-up leaves that wrap (and the staged key that opens it).
    with pytest.raises(RotationError):
        await stage_rotation(settings, old, other)
    assert await key_of(targets.keys, new, "joiner") == joiner

    # The clean-up itself, called directly: only wraps the current key also holds go.
    store = await KeyStore.open(targets.keys, old)
    try:
        await store.unstage()
    finally:
        await store.close()
    assert await key_of(targets.keys, new, "joiner") == joiner
    with pytest.raises(RotationError):  # the old key cannot open it, and never says "none"
        await key_of(targets.keys, old, "joiner")


async def test_unstage_with_nobody_only_under_the_staged_key_drops_it(
    targets: Targets, tmp_path: Path
) -> None:
    settings = settings_for(targets, tmp_path)
    old, new = MasterKey(random_key()), MasterKey(random_key())
    store = await KeyStore.open(targets.keys, old)
    await store.create_data_key("early")
    await store.close()
    await stage_rotation(settings, old, new)
    store = await KeyStore.open(targets.keys, old)
    try:
        await store.unstage()
        assert await store.staged_key_id() is None
    finally:
        await store.close()
