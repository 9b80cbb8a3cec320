"""People: pseudonymous identity, sealed settings and chat id, and crypto-shredding."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bot.core.clock import Clock
from bot.core.errors import SteadyError
from bot.crypto import CryptoError, PersonCipher, pseudonym
from bot.people.profile import Profile, Record, check_record
from bot.storage.keystore import KeyStore
from bot.storage.people import PeopleStore, PersonRow

log = logging.getLogger(__name__)

# Kinds of change notice between replicas (bot/storage/people.py announces them).
SAVED = "saved"
FORGOT = "forgot"

PROFILE_SLOT = "profile"
CHAT_SLOT = "chat_id"
# Unwrapped data keys kept in memory; enough for a busy hour without holding everyone's.
_CIPHER_CACHE_SIZE = 20_000
# Telegram user id -> handle, for the senders of the latest updates: one update asks for
# its sender's handle about six times (the panic screen, the guard, the load, the
# country...), each an HMAC. Emptied whole when full and at every /forget.
_HANDLES_KEPT = 4096


def _digest(sealed: bytes) -> bytes:
    return hashlib.blake2b(sealed, digest_size=16).digest()


def open_profile(
    cipher: PersonCipher,
    profile_enc: bytes,
    chat_enc: bytes,
    *,
    reading: Iterable[type[Record]] = (),
) -> tuple[Profile, int]:
    """A person's sealed settings and chat id, opened (the one place that decodes them).
    `reading`: the records the caller will use, decoded now, so that one which does not
    decode fails here, where an unreadable row is handled, and not at its first use."""
    profile = Profile.from_json(cipher.open_text(PROFILE_SLOT, profile_enc))
    for kind in reading:
        profile.part(kind)
    return profile, int(cipher.open_text(CHAT_SLOT, chat_enc))


@dataclass
class Person:
    person_id: str
    chat_id: int
    profile: Profile
    state: str
    active: bool
    cipher: PersonCipher = field(repr=False)
    next_due_utc: int | None = None
    next_due_date: str | None = None


class PersonListener(Protocol):
    """Told when a person is read or written (their crisis-relevant settings and their
    state: what typed text answers) and when they are forgotten: the crisis cache and the
    message ledger keep nothing of them then."""

    def seen(self, person_id: str, profile: Profile, state: str) -> None: ...

    def forgotten(self, person_id: str) -> None: ...


class UnreadableDataError(SteadyError):
    """A person's row or data key no longer opens (corruption, tampering, a rolled-back
    copy). They can still erase everything: deletion never needs decryption."""

    def __init__(self, person_id: str) -> None:
        super().__init__("a person's data could not be opened")
        self.person_id = person_id


class RolledBackError(UnreadableDataError):
    """The person's row is older than the newest one written: put back from a copy."""


class PeopleService:
    def __init__(
        self,
        store: PeopleStore,
        keys: KeyStore,
        pseudonym_key: bytes,
        clock: Clock,
        *,
        listeners: Sequence[PersonListener] = (),
    ) -> None:
        self.store = store
        self.keys = keys
        self._pseudonym_key = pseudonym_key
        self._clock = clock
        self._ciphers: OrderedDict[str, PersonCipher] = OrderedDict()
        self._handles: dict[int, str] = {}
        # Person id -> digest of the sealed profile this process last wrote or opened with
        # every record decoded: the same bytes again open to the same records, so a load
        # decodes only those asked for (issue 25: every ordinary update loads and saves the
        # profile; decoding and re-encoding all eight records was a tenth of the load and
        # save). Any other bytes (another replica's save, a copy put back) are read whole.
        self._whole: OrderedDict[str, bytes] = OrderedDict()
        self._listeners = tuple(listeners)
        # This process, in change notices to other replicas (so it ignores its own).
        self.origin = secrets.token_hex(4)
        self._refreshing: set[asyncio.Task[None]] = set()
        # Told of a person reloaded after another replica's change notice, for memory that
        # needs more than the listeners' settings (the panic words:
        # bot/features/discretion/service.py).
        self.refreshed: list[Callable[[Person], None]] = []
        # The features' profile records (bot/people/profile.py): a save writes each of them
        # in the records' layout, also those still flat and not read this time.
        self.records: tuple[type[Record], ...] = ()

    def know_records(self, kinds: Sequence[type[Record]]) -> None:
        """The records the features registered (bot/wiring.py, after they installed)."""
        for kind in kinds:
            check_record(kind, self.records)
            if kind not in self.records:  # an application built again on one foundation
                self.records = (*self.records, kind)
                self._whole.clear()  # a new record: every row is read whole again

    def _handle(self, user_id: int) -> str:
        handle = self._handles.get(user_id)
        if handle is None:
            if len(self._handles) >= _HANDLES_KEPT:
                self._handles.clear()
            handle = self._handles[user_id] = pseudonym(self._pseudonym_key, user_id)
        return handle

    def person_id(self, user_id: int) -> str:
        """The person's random row id; for someone unknown, their handle, which is never a
        row id (another shape), so it finds nothing."""
        handle = self._handle(user_id)
        return self.keys.row_id(handle) or handle

    async def resolve(self, user_id: int) -> None:
        """Meet the person before their update is handled: their identity into memory (one
        indexed read when not met lately), so `person_id` is right for every handler."""
        await self.keys.find(self._handle(user_id))

    def _now(self) -> int:
        return int(self._clock().timestamp())

    async def cipher(self, person_id: str, *, create: bool = False) -> PersonCipher | None:
        cached = self._ciphers.get(person_id)
        if cached is not None:
            self._ciphers.move_to_end(person_id)
            return cached
        owner = (await self.keys.owners([person_id])).get(person_id)
        if owner is None:
            return None
        key = await self.keys.data_key(owner)
        if key is None:
            if not create:
                return None
            key = await self.keys.create_data_key(owner)
        return self._remember(person_id, PersonCipher(owner, key))

    def _remember(self, person_id: str, cipher: PersonCipher) -> PersonCipher:
        self._ciphers[person_id] = cipher
        self._ciphers.move_to_end(person_id)
        while len(self._ciphers) > _CIPHER_CACHE_SIZE:
            self._ciphers.popitem(last=False)
        return cipher

    async def ciphers(self, person_ids: list[str]) -> dict[str, PersonCipher]:
        missing = [p for p in person_ids if p not in self._ciphers]
        if missing:
            # The identity and its key in one query (the check-in batch: hundreds at once).
            for person_id, (owner, key) in (await self.keys.owners_and_keys(missing)).items():
                self._remember(person_id, PersonCipher(owner, key))
        return {p: self._ciphers[p] for p in person_ids if p in self._ciphers}

    def open_row(self, row: PersonRow, cipher: PersonCipher) -> Person:
        # Every record decoded here: one that does not decode makes the row unreadable
        # (offered erasure) rather than failing a handler later; not again for the bytes
        # this process wrote or read whole last (`_whole`).
        digest = _digest(row.profile_enc)
        whole = self._whole.get(row.person_id) == digest
        profile, chat_id = open_profile(
            cipher, row.profile_enc, row.chat_enc, reading=() if whole else self.records
        )
        anchored = self.keys.anchored_version(row.person_id)
        if profile.revision < anchored:
            log.warning(
                "refused a rolled-back person row (revision %d, newest written %d)",
                profile.revision,
                anchored,
            )
            raise RolledBackError(row.person_id)
        self._remember_whole(row.person_id, digest)
        self._cache_prefs(row.person_id, profile, row.state)
        return Person(
            person_id=row.person_id,
            chat_id=chat_id,
            profile=profile,
            state=row.state,
            active=row.active,
            cipher=cipher,
            next_due_utc=row.next_due_utc,
            next_due_date=row.next_due_date,
        )

    def _remember_whole(self, person_id: str, digest: bytes) -> None:
        self._whole[person_id] = digest
        self._whole.move_to_end(person_id)
        while len(self._whole) > _CIPHER_CACHE_SIZE:
            self._whole.popitem(last=False)

    async def load(self, user_id: int) -> Person | None:
        # Asks the key store on a miss: on PostgreSQL another replica may have met them.
        person_id = await self.keys.find(self._handle(user_id))
        return None if person_id is None else await self.load_by_id(person_id)

    async def load_by_id(self, person_id: str) -> Person | None:
        """Raises UnreadableDataError if the row or the key is there but does not open."""
        row = await self.store.get(person_id)
        if row is None:
            return None
        try:
            cipher = await self.cipher(person_id)
            if cipher is None:
                # A row without a key is a /forget that stopped half-way (the key goes
                # first): finish it, so the person can start afresh instead of being locked out.
                await self.store.delete(person_id)
                return None
            return self.open_row(row, cipher)
        except (CryptoError, ValueError, TypeError) as exc:  # bad seal, bad JSON, bad fields
            raise UnreadableDataError(person_id) from exc

    async def create(self, user_id: int, chat_id: int, state: str) -> Person:
        person_id = await self.keys.identity(self._handle(user_id))
        if await self.store.get(person_id) is not None and await self.cipher(person_id) is None:
            await self.store.delete(person_id)  # leftovers of a half-finished /forget
        cipher = await self.cipher(person_id, create=True)
        if cipher is None:  # create=True always makes one; this keeps `python -O` honest
            raise RuntimeError("no data key after creating one")
        profile = Profile()
        sealed = cipher.seal_text(PROFILE_SLOT, profile.to_json(self.records))
        await self.store.insert(
            person_id, cipher.seal_text(CHAT_SLOT, str(chat_id)), sealed, state, self._now()
        )
        self._remember_whole(person_id, _digest(sealed))
        self._cache_prefs(person_id, profile, state)
        return Person(person_id, chat_id, profile, state, True, cipher)

    async def save(self, person: Person) -> None:
        """Write profile, state and active flag (one statement, so never half-saved), then
        anchor the new revision (a crash between leaves the row newer: it still opens)."""
        person.profile.revision = (
            max(person.profile.revision, self.keys.anchored_version(person.person_id)) + 1
        )
        sealed = person.cipher.seal_text(PROFILE_SLOT, person.profile.to_json(self.records))
        await self.store.update(
            person.person_id,
            now=self._now(),
            profile_enc=sealed,
            state=person.state,
            active=person.active,
        )
        # Written from the records themselves: they decode (a row this process wrote).
        self._remember_whole(person.person_id, _digest(sealed))
        self._cache_prefs(person.person_id, person.profile, person.state)
        await self.keys.anchor_version(person.person_id, person.profile.revision)
        await self._announce(SAVED, person.person_id)

    async def _announce(self, kind: str, person_id: str) -> None:
        try:
            await self.store.announce(f"{kind}:{person_id}", self.origin)
        except Exception as exc:  # the others' caches expire soon anyway
            log.warning("change notice not sent: %s", type(exc).__name__)

    def heard(self, notice: str) -> None:
        """Another replica saved or forgot someone: reload what this one keeps in memory
        (the crisis cache: the right helplines), or drop it."""
        origin, _, rest = notice.partition(":")
        kind, _, person_id = rest.partition(":")
        if origin == self.origin or not person_id:
            return
        if kind == FORGOT:
            self._handles.clear()  # whose handle it was is not known here: all go
            self._whole.pop(person_id, None)
            self._ciphers.pop(person_id, None)
            self.keys.drop_cached(person_id)
            for listener in self._listeners:
                listener.forgotten(person_id)
            return
        task = asyncio.get_running_loop().create_task(self._refresh(person_id))
        self._refreshing.add(task)
        task.add_done_callback(self._refreshing.discard)

    async def _refresh(self, person_id: str) -> None:
        try:
            person = await self.load_by_id(person_id)  # fills the listeners' caches
        except Exception as exc:
            log.warning("could not reload a changed person: %s", type(exc).__name__)
            return
        if person is not None:
            for callback in self.refreshed:
                callback(person)

    def _cache_prefs(self, person_id: str, profile: Profile, state: str) -> None:
        for listener in self._listeners:
            listener.seen(person_id, profile, state)

    async def set_state(self, person: Person, state: str) -> None:
        person.state = state
        await self.store.update(person.person_id, now=self._now(), state=state)
        self._cache_prefs(person.person_id, person.profile, state)

    async def set_active(self, person_id: str, active: bool) -> None:
        await self.store.update(person_id, now=self._now(), active=active)

    async def forget(self, person_id: str) -> None:
        """Destroy the key first: if deleting rows then fails, they are already unreadable
        (and marked, so the next start finishes the deletion)."""
        await self.store.mark_forgetting(person_id)
        # The memo links Telegram ids to handles: nothing of a forgotten person is kept.
        self._handles.clear()
        try:
            await self.keys.destroy_identity(person_id)
        finally:
            # Even if scrubbing the key store's WAL failed, the key is gone: never seal
            # anything more with the cached copy.
            self._ciphers.pop(person_id, None)
            self._whole.pop(person_id, None)
            for listener in self._listeners:
                listener.forgotten(person_id)
        await self.store.delete(person_id)
        await self._announce(FORGOT, person_id)

    async def update_chat(self, person: Person, chat_id: int) -> None:
        """They came back (after blocking us, or from a new chat): sends may resume."""
        person.active = True
        person.chat_id = chat_id
        await self.store.update(
            person.person_id,
            now=self._now(),
            chat_enc=person.cipher.seal_text(CHAT_SLOT, str(chat_id)),
            active=True,
        )
