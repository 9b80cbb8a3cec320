"""People: pseudonymous identity, sealed settings and chat id, and crypto-shredding."""

from __future__ import annotations

import json
import logging
from collections import OrderedDict
from dataclasses import asdict, dataclass, field, fields
from datetime import timedelta
from typing import Any

from bot.clock import Clock
from bot.crypto import CryptoError, PersonCipher, pseudonym
from bot.storage.keystore import KeyStore
from bot.storage.people import PeopleStore, PersonRow

log = logging.getLogger(__name__)

ALL_DAYS: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 6)
# Telegram lets a bot delete messages in a private chat for 48 hours; older ids are useless.
# Source: https://core.telegram.org/bots/api#deletemessage
DELETE_WINDOW = timedelta(hours=48)
PROFILE_SLOT = "profile"
CHAT_SLOT = "chat_id"
# Unwrapped data keys kept in memory; enough for a busy hour without holding everyone's.
_CIPHER_CACHE_SIZE = 20_000


@dataclass
class Profile:
    """Everything a person chose. Sealed as JSON, so adding a field needs no migration."""

    country: str | None = None
    timezone: str | None = None
    daily_time: str | None = None  # "HH:MM", local
    daily_days: tuple[int, ...] = ALL_DAYS  # 0 = Monday
    daily_enabled: bool = False
    paused: bool = False
    skip_date: str | None = None  # a local date whose prompt is skipped
    neutral_wording: bool = False
    silent: bool = False
    discreet: bool = False
    onboarded: bool = False
    shared_device: bool | None = None  # answer to "could someone else read this chat?"
    active_worksheet: str | None = None
    pending_worksheet: str | None = None  # opened by a deep link before onboarding ended
    # Counts saves; sealed with the rest and anchored in the key store, so an older copy of
    # the row put back is refused (0: written before revisions existed).
    revision: int = 0

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Profile:
        raw: dict[str, Any] = json.loads(text)
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in raw.items() if k in known}
        if "daily_days" in values:
            values["daily_days"] = tuple(int(d) for d in values["daily_days"])
        return cls(**values)


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


class UnreadableDataError(Exception):
    """A person's row or data key no longer opens (corruption, tampering, a rolled-back
    copy). They can still erase everything: deletion never needs decryption."""

    def __init__(self, person_id: str) -> None:
        super().__init__("a person's data could not be opened")
        self.person_id = person_id


class RolledBackError(UnreadableDataError):
    """The person's row is older than the newest one written: put back from a copy."""


class PeopleService:
    def __init__(
        self, store: PeopleStore, keys: KeyStore, pseudonym_key: bytes, clock: Clock
    ) -> None:
        self.store = store
        self.keys = keys
        self._pseudonym_key = pseudonym_key
        self._clock = clock
        self._ciphers: OrderedDict[str, PersonCipher] = OrderedDict()
        # Last known country per person, so the crisis reply never has to wait on storage.
        self.country_cache: dict[str, str | None] = {}
        # ... and whether they asked for silent messages (a crisis reply must not ring).
        self.silent_cache: dict[str, bool] = {}
        # Message ids for /clear, written in batches: one fsync per message would cost more
        # than the whole rest of handling it. A crash loses at most one interval of ids.
        self._pending_ids: list[tuple[str, int, int, str | None]] = []

    def note_message(
        self, person_id: str, message_id: int, sent_at: int, *, quotes: str | None = None
    ) -> None:
        """`quotes`: the worksheet whose answers the message shows, if any."""
        self._pending_ids.append((person_id, message_id, sent_at, quotes))

    def _window_start(self) -> int:
        return int((self._clock() - DELETE_WINDOW).timestamp())

    async def deletable_message_ids(
        self, person_id: str, *, quoting: str | None = None
    ) -> list[int]:
        """Ids of the person's chat that Telegram still lets us delete (all of them, or only
        the bot's messages that showed answers of worksheet `quoting`); pending ids first."""
        await self.flush_message_ids()
        since = self._window_start()
        if quoting is not None:
            return await self.store.quoting_messages(person_id, quoting, since)
        return await self.store.recent_messages(person_id, since)

    async def prune_message_ids(self) -> None:
        """Past the delete window an id is useless, and a timeline of when someone wrote is
        metadata we should not hold."""
        await self.store.prune_messages(self._window_start())

    async def flush_message_ids(self) -> None:
        pending, self._pending_ids = self._pending_ids, []
        try:
            await self.store.remember_messages(pending)
        except BaseException:
            self._pending_ids[:0] = pending  # keep them for the next try
            raise

    def _handle(self, user_id: int) -> str:
        return pseudonym(self._pseudonym_key, user_id)

    def person_id(self, user_id: int) -> str:
        """The person's random row id; for someone unknown, their handle, which is never a
        row id (another shape), so it finds nothing."""
        handle = self._handle(user_id)
        return self.keys.row_id(handle) or handle

    def _now(self) -> int:
        return int(self._clock().timestamp())

    async def cipher(self, person_id: str, *, create: bool = False) -> PersonCipher | None:
        cached = self._ciphers.get(person_id)
        if cached is not None:
            self._ciphers.move_to_end(person_id)
            return cached
        owner = self.keys.owner_of(person_id)
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
        owners = {o: p for p in missing if (o := self.keys.owner_of(p)) is not None}
        if owners:
            for owner, key in (await self.keys.data_keys(list(owners))).items():
                self._remember(owners[owner], PersonCipher(owner, key))
        return {p: self._ciphers[p] for p in person_ids if p in self._ciphers}

    def open_row(self, row: PersonRow, cipher: PersonCipher) -> Person:
        profile = Profile.from_json(cipher.open_text(PROFILE_SLOT, row.profile_enc))
        anchored = self.keys.anchored_version(row.person_id)
        if profile.revision < anchored:
            log.warning(
                "refused a rolled-back person row (revision %d, newest written %d)",
                profile.revision,
                anchored,
            )
            raise RolledBackError(row.person_id)
        self._cache_prefs(row.person_id, profile)
        return Person(
            person_id=row.person_id,
            chat_id=int(cipher.open_text(CHAT_SLOT, row.chat_enc)),
            profile=profile,
            state=row.state,
            active=row.active,
            cipher=cipher,
            next_due_utc=row.next_due_utc,
            next_due_date=row.next_due_date,
        )

    async def load(self, user_id: int) -> Person | None:
        return await self.load_by_id(self.person_id(user_id))

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
        assert cipher is not None
        profile = Profile()
        await self.store.insert(
            person_id,
            cipher.seal_text(CHAT_SLOT, str(chat_id)),
            cipher.seal_text(PROFILE_SLOT, profile.to_json()),
            state,
            self._now(),
        )
        self._cache_prefs(person_id, profile)
        return Person(person_id, chat_id, profile, state, True, cipher)

    async def save(self, person: Person) -> None:
        """Write profile, state and active flag (one statement, so never half-saved), then
        anchor the new revision (a crash between leaves the row newer: it still opens)."""
        person.profile.revision = (
            max(person.profile.revision, self.keys.anchored_version(person.person_id)) + 1
        )
        await self.store.update(
            person.person_id,
            now=self._now(),
            profile_enc=person.cipher.seal_text(PROFILE_SLOT, person.profile.to_json()),
            state=person.state,
            active=person.active,
        )
        self._cache_prefs(person.person_id, person.profile)
        await self.keys.anchor_version(person.person_id, person.profile.revision)

    def _cache_prefs(self, person_id: str, profile: Profile) -> None:
        self.country_cache[person_id] = profile.country
        self.silent_cache[person_id] = profile.silent

    async def set_state(self, person: Person, state: str) -> None:
        person.state = state
        await self.store.update(person.person_id, now=self._now(), state=state)

    async def set_active(self, person_id: str, active: bool) -> None:
        await self.store.update(person_id, now=self._now(), active=active)

    async def forget(self, person_id: str) -> None:
        """Destroy the key first: if deleting rows then fails, they are already unreadable."""
        self._pending_ids = [e for e in self._pending_ids if e[0] != person_id]
        try:
            await self.keys.destroy_identity(person_id)
        finally:
            # Even if scrubbing the key store's WAL failed, the key is gone: never seal
            # anything more with the cached copy.
            self._ciphers.pop(person_id, None)
            self.country_cache.pop(person_id, None)
            self.silent_cache.pop(person_id, None)
        await self.store.delete(person_id)

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
