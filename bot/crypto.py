"""Envelope encryption for everything a person writes.

- The master key (32 bytes, from BOT_MASTER_KEY or the key file) only wraps other keys.
- Each person has a random 256-bit data key, stored wrapped in the key store database.
- Every stored text is sealed with AES-256-GCM under the person's data key, a fresh 96-bit
  nonce, and associated data naming its owner and its slot, so a ciphertext copied to
  another row or another person fails to open.

Sealed layout: version (1 byte) | key id (4 bytes, big-endian) | nonce (12) | ciphertext+tag.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import struct
from dataclasses import dataclass
from functools import cached_property

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from bot.core.errors import SteadyError

FORMAT_VERSION = 1
KEY_BYTES = 32
NONCE_BYTES = 12
_HEADER = struct.Struct(">BI")
HEADER_BYTES = _HEADER.size + NONCE_BYTES
# Data keys do not rotate one by one (the master key does); their id is a generation number.
DATA_KEY_ID = 1
_CHECK_PLAINTEXT = b"steady master key check v1"
_AAD_PREFIX = b"steady|"


class CryptoError(SteadyError):
    """A ciphertext could not be opened: wrong key, wrong slot, or tampering."""


def random_key() -> bytes:
    return os.urandom(KEY_BYTES)


def associated_data(owner: str, slot: str) -> bytes:
    # The separator cannot occur in owners (hex) and slots are our own identifiers.
    return _AAD_PREFIX + owner.encode() + b"|" + slot.encode()


def versioned_slot(slot: str, version: int) -> str:
    """The slot of a rewritable row at `version`: an older copy put back opens only under
    its own, older version, which the key store's anchor refuses. Version 0 is the plain
    slot, so rows written before versions existed keep opening."""
    return slot if version == 0 else f"{slot}#{version}"


def seal(key: bytes, key_id: int, plaintext: bytes, aad: bytes) -> bytes:
    return seal_with(AESGCM(key), key_id, plaintext, aad)


def seal_with(aead: AESGCM, key_id: int, plaintext: bytes, aad: bytes) -> bytes:
    """`seal` with the key's cipher object already made (see `unseal_with`): every save
    of a profile seals it. A fresh random nonce each time, as `seal`."""
    nonce = os.urandom(NONCE_BYTES)
    return _HEADER.pack(FORMAT_VERSION, key_id) + nonce + aead.encrypt(nonce, plaintext, aad)


def key_id_of(blob: bytes) -> int:
    if len(blob) < HEADER_BYTES:
        raise CryptoError("ciphertext too short")
    version, key_id = _HEADER.unpack_from(blob)
    if version != FORMAT_VERSION:
        raise CryptoError(f"unknown ciphertext version {version}")
    return int(key_id)


def unseal(key: bytes, expected_key_id: int, blob: bytes, aad: bytes) -> bytes:
    return unseal_with(AESGCM(key), expected_key_id, blob, aad)


def unseal_with(aead: AESGCM, expected_key_id: int, blob: bytes, aad: bytes) -> bytes:
    """`unseal` with the key's cipher object already made: making one costs about as much
    as opening a short text with it, and a check-in opens four per person."""
    # key_id_of's checks inline: a check-in pass opens four of these a person.
    if len(blob) < HEADER_BYTES:
        raise CryptoError("ciphertext too short")
    version, key_id = _HEADER.unpack_from(blob)
    if version != FORMAT_VERSION:
        raise CryptoError(f"unknown ciphertext version {version}")
    if key_id != expected_key_id:
        raise CryptoError(f"ciphertext is for key id {key_id}, not {expected_key_id}")
    nonce = blob[_HEADER.size : HEADER_BYTES]
    try:
        return aead.decrypt(nonce, blob[HEADER_BYTES:], aad)
    except InvalidTag:
        raise CryptoError("ciphertext failed authentication") from None


@dataclass(frozen=True)
class MasterKey:
    """Wraps data keys and the pseudonym key; never encrypts user text directly."""

    secret: bytes

    def __post_init__(self) -> None:
        if len(self.secret) != KEY_BYTES:
            raise ValueError("a master key is 32 bytes")

    def __repr__(self) -> str:  # keep the secret out of tracebacks and debug output
        return f"MasterKey(id={self.key_id:#010x})"

    @cached_property  # an HMAC, asked for at every wrap and unwrap
    def key_id(self) -> int:
        digest = hmac.new(self.secret, b"steady key id", hashlib.sha256).digest()
        return int.from_bytes(digest[:4], "big")

    def wrap(self, key: bytes, label: str) -> bytes:
        return seal(self.secret, self.key_id, key, associated_data("wrap", label))

    def unwrap(self, blob: bytes, label: str) -> bytes:
        return unseal_with(self._aead, self.key_id, blob, associated_data("wrap", label))

    # Made once (a frozen dataclass still has a __dict__ for it): a batch unwraps hundreds
    # of data keys.
    @cached_property
    def _aead(self) -> AESGCM:
        return AESGCM(self.secret)

    def check_value(self) -> bytes:
        return seal(self.secret, self.key_id, _CHECK_PLAINTEXT, associated_data("check", "v1"))

    def matches(self, check_value: bytes) -> bool:
        try:
            opened = unseal(self.secret, self.key_id, check_value, associated_data("check", "v1"))
        except CryptoError:
            return False
        return hmac.compare_digest(opened, _CHECK_PLAINTEXT)


@dataclass(frozen=True)
class PersonCipher:
    """Seals and opens one person's texts with their data key."""

    owner: str
    data_key: bytes

    def __repr__(self) -> str:
        return f"PersonCipher(owner={self.owner[:8]}…)"

    def seal_text(self, slot: str, text: str) -> bytes:
        return self.seal_bytes(slot, text.encode())

    def open_text(self, slot: str, blob: bytes) -> str:
        return self.open_bytes(slot, blob).decode()

    @cached_property
    def _aead(self) -> AESGCM:
        return AESGCM(self.data_key)

    def seal_bytes(self, slot: str, data: bytes) -> bytes:
        """Bytes (a photo, a voice note) sealed exactly as texts are, under their own slot."""
        return seal_with(self._aead, DATA_KEY_ID, data, associated_data(self.owner, slot))

    def open_bytes(self, slot: str, blob: bytes) -> bytes:
        return unseal_with(self._aead, DATA_KEY_ID, blob, associated_data(self.owner, slot))


def pseudonym(pseudonym_key: bytes, telegram_user_id: int) -> str:
    """A stable, unlinkable row key for a Telegram user (HMAC-SHA256, hex)."""
    return hmac.new(pseudonym_key, str(telegram_user_id).encode(), hashlib.sha256).hexdigest()
