"""Envelope encryption: round trips, tampering, moved ciphertexts, wrong keys, pseudonyms."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from hypothesis import given
from hypothesis import strategies as st

from bot import crypto
from bot.crypto import (
    HEADER_BYTES,
    CryptoError,
    MasterKey,
    PersonCipher,
    key_id_of,
    pseudonym,
    random_key,
)

OWNER_A = "a" * 64
OWNER_B = "b" * 64


@given(text=st.text(max_size=5000), slot=st.text(min_size=1, max_size=60))
def test_round_trip(text: str, slot: str) -> None:
    cipher = PersonCipher(OWNER_A, random_key())
    assert cipher.open_text(slot, cipher.seal_text(slot, text)) == text


def test_every_seal_uses_a_fresh_nonce() -> None:
    cipher = PersonCipher(OWNER_A, random_key())
    blobs = {cipher.seal_text("s", "same words") for _ in range(50)}
    assert len(blobs) == 50


def test_a_person_s_seals_make_their_cipher_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every save seals the profile (issue 25): the AES-GCM object is made once per person,
    as for opening, and what it seals opens with a cipher made afresh, each nonce new."""
    made: list[bytes] = []
    real = crypto.AESGCM

    def counting(key: bytes) -> AESGCM:
        made.append(key)
        return real(key)

    key = random_key()
    cipher = PersonCipher(OWNER_A, key)
    monkeypatch.setattr(crypto, "AESGCM", counting)
    blobs = [cipher.seal_text("profile", "the same words") for _ in range(5)]
    blobs.append(cipher.seal_bytes("photo", b"bytes"))
    assert made == [key]
    assert len(set(blobs)) == 6
    monkeypatch.setattr(crypto, "AESGCM", real)
    fresh = PersonCipher(OWNER_A, key)
    assert {fresh.open_text("profile", b) for b in blobs[:5]} == {"the same words"}
    assert fresh.open_bytes("photo", blobs[5]) == b"bytes"


def test_ciphertext_hides_the_plaintext() -> None:
    cipher = PersonCipher(OWNER_A, random_key())
    blob = cipher.seal_text("s", "CANARY-plaintext-123")
    assert b"CANARY" not in blob


@given(
    position=st.integers(min_value=0, max_value=200), flip=st.integers(min_value=1, max_value=255)
)
def test_any_tampered_byte_is_detected(position: int, flip: int) -> None:
    cipher = PersonCipher(OWNER_A, bytes(32))
    blob = bytearray(cipher.seal_text("answer:x:y:1", "a short answer, but not too short"))
    index = position % len(blob)
    blob[index] ^= flip
    with pytest.raises(CryptoError):
        cipher.open_text("answer:x:y:1", bytes(blob))


def test_ciphertext_moved_to_another_slot_fails() -> None:
    cipher = PersonCipher(OWNER_A, random_key())
    blob = cipher.seal_text("answer:ws:q1:10", "mine")
    with pytest.raises(CryptoError):
        cipher.open_text("answer:ws:q2:10", blob)


def test_ciphertext_moved_to_another_person_fails_even_with_the_same_key() -> None:
    key = random_key()
    blob = PersonCipher(OWNER_A, key).seal_text("profile", "{}")
    with pytest.raises(CryptoError):
        PersonCipher(OWNER_B, key).open_text("profile", blob)


def test_wrong_data_key_fails() -> None:
    blob = PersonCipher(OWNER_A, random_key()).seal_text("s", "x")
    with pytest.raises(CryptoError):
        PersonCipher(OWNER_A, random_key()).open_text("s", blob)


def test_header_carries_version_and_key_id() -> None:
    master = MasterKey(random_key())
    wrapped = master.wrap(random_key(), OWNER_A)
    assert wrapped[0] == 1
    assert key_id_of(wrapped) == master.key_id
    assert len(wrapped) == HEADER_BYTES + 32 + 16


def test_unknown_version_is_refused() -> None:
    cipher = PersonCipher(OWNER_A, random_key())
    blob = bytearray(cipher.seal_text("s", "x"))
    blob[0] = 9
    with pytest.raises(CryptoError, match="version"):
        cipher.open_text("s", bytes(blob))


def test_wrap_unwrap_and_wrong_master_key() -> None:
    master, other = MasterKey(random_key()), MasterKey(random_key())
    key = random_key()
    wrapped = master.wrap(key, OWNER_A)
    assert master.unwrap(wrapped, OWNER_A) == key
    with pytest.raises(CryptoError):
        other.unwrap(wrapped, OWNER_A)
    with pytest.raises(CryptoError):
        master.unwrap(wrapped, OWNER_B)  # a wrapped key moved to another person


def test_check_value_detects_the_wrong_master_key() -> None:
    master, other = MasterKey(random_key()), MasterKey(random_key())
    check = master.check_value()
    assert master.matches(check)
    assert not other.matches(check)


def test_secrets_stay_out_of_repr() -> None:
    secret = bytes(range(32))
    assert secret.hex() not in repr(MasterKey(secret))
    assert "data_key" not in repr(PersonCipher(OWNER_A, secret))


def test_pseudonym_is_stable_keyed_and_unlinkable() -> None:
    k1, k2 = random_key(), random_key()
    assert pseudonym(k1, 42) == pseudonym(k1, 42)
    assert pseudonym(k1, 42) != pseudonym(k1, 43)
    assert pseudonym(k1, 42) != pseudonym(k2, 42)
    assert len(pseudonym(k1, 42)) == 64
