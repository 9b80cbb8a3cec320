"""The key store on disk: wrong master key at start-up, rotation, crypto-shredding."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.crypto import CryptoError, MasterKey, PersonCipher, pseudonym, random_key
from bot.storage.keystore import KeyStore, WrongMasterKeyError


async def test_wrong_master_key_is_detected_at_open(tmp_path: Path) -> None:
    path = tmp_path / "keys.sqlite3"
    store = await KeyStore.open(path, MasterKey(random_key()))
    await store.close()
    with pytest.raises(WrongMasterKeyError):
        await KeyStore.open(path, MasterKey(random_key()))


async def test_rotation_rewraps_and_old_rows_still_open(tmp_path: Path) -> None:
    path = tmp_path / "keys.sqlite3"
    old, new = MasterKey(random_key()), MasterKey(random_key())
    store = await KeyStore.open(path, old)
    pseudo_before = await store.pseudonym_key()
    key = await store.create_data_key("p1")
    sealed = PersonCipher("p1", key).seal_text("profile", "kept across rotation")
    assert await store.rotate(new) == 1
    await store.close()

    with pytest.raises(WrongMasterKeyError):
        await KeyStore.open(path, old)  # the old key is no longer needed, nor accepted
    store = await KeyStore.open(path, new)
    assert await store.pseudonym_key() == pseudo_before  # pseudonyms do not change
    key_after = await store.data_key("p1")
    assert key_after is not None
    assert PersonCipher("p1", key_after).open_text("profile", sealed) == "kept across rotation"
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
