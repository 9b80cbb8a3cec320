"""The key store on disk: wrong master key at start-up, rotation, crypto-shredding."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.crypto import CryptoError, MasterKey, PersonCipher, pseudonym, random_key
from bot.storage.keystore import KeyStore, RotationError, WrongMasterKeyError


async def test_wrong_master_key_is_detected_at_open(tmp_path: Path) -> None:
    path = tmp_path / "keys.sqlite3"
    store = await KeyStore.open(path, MasterKey(random_key()))
    await store.close()
    with pytest.raises(WrongMasterKeyError):
        await KeyStore.open(path, MasterKey(random_key()))


async def test_staged_rotation_keeps_both_keys_until_retired(tmp_path: Path) -> None:
    path = tmp_path / "keys.sqlite3"
    old, new = MasterKey(random_key()), MasterKey(random_key())
    store = await KeyStore.open(path, old)
    pseudo_before = await store.pseudonym_key()
    key = await store.create_data_key("p1")
    sealed = PersonCipher("p1", key).seal_text("profile", "kept across rotation")
    assert len(await store.stage(new)) == 1
    with pytest.raises(RotationError):
        await store.retire_old_key()  # only with the new key
    await store.close()

    for master in (old, new):  # staged: either key opens everything
        store = await KeyStore.open(path, master)
        assert await store.pseudonym_key() == pseudo_before
        assert await store.data_key("p1") == key
        await store.close()
    store = await KeyStore.open(path, new)
    assert await store.retire_old_key() == 1
    await store.close()
    with pytest.raises(WrongMasterKeyError):
        await KeyStore.open(path, old)
    store = await KeyStore.open(path, new)
    key_after = await store.data_key("p1")
    assert key_after is not None
    assert PersonCipher("p1", key_after).open_text("profile", sealed) == "kept across rotation"
    await store.close()


async def test_retire_refuses_keys_added_under_the_old_key_after_staging(tmp_path: Path) -> None:
    path = tmp_path / "keys.sqlite3"
    old, new = MasterKey(random_key()), MasterKey(random_key())
    store = await KeyStore.open(path, old)
    await store.stage(new)
    late = await store.create_data_key("late")
    await store.close()
    store = await KeyStore.open(path, new)
    with pytest.raises(RotationError, match="1 data key"):
        await store.retire_old_key()
    with pytest.raises(RotationError):  # never "no key", which would read as a /forget
        await store.data_key("late")
    await store.close()
    store = await KeyStore.open(path, old)
    assert await store.data_key("late") == late  # the old key still has it
    await store.close()


async def test_destroyed_key_makes_old_ciphertexts_unreadable(tmp_path: Path) -> None:
    store = await KeyStore.open(tmp_path / "keys.sqlite3", MasterKey(random_key()))
    key = await store.create_data_key("p1")
    sealed = PersonCipher("p1", key).seal_text("s", "gone")
    await store.destroy_data_key("p1")
    assert await store.data_key("p1") is None
    # A fresh key for the same person cannot open what the old one sealed.
    fresh = await store.create_data_key("p1")
    with pytest.raises(CryptoError):
        PersonCipher("p1", fresh).open_text("s", sealed)
    await store.close()


async def test_create_data_key_is_idempotent(tmp_path: Path) -> None:
    store = await KeyStore.open(tmp_path / "keys.sqlite3", MasterKey(random_key()))
    assert await store.create_data_key("p") == await store.create_data_key("p")
    await store.close()


async def test_hmac_keying_of_people(tmp_path: Path) -> None:
    store = await KeyStore.open(tmp_path / "keys.sqlite3", MasterKey(random_key()))
    pk = await store.pseudonym_key()
    assert pseudonym(pk, 1001) == pseudonym(pk, 1001)
    other = await KeyStore.open(tmp_path / "other.sqlite3", MasterKey(random_key()))
    assert pseudonym(await other.pseudonym_key(), 1001) != pseudonym(pk, 1001)
    await store.close()
    await other.close()
