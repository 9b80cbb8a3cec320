"""The panic word and the cover, as memory and storage hold them (docs/discretion.md).

`CoverCache` is what the per-message check reads: each armed person's `PanicWords` (the
derived key and the digests, never the word), their decoy theme and erase choice, and,
while they are in cover, the cover's state. It is filled at start-up from the index of
people with a panic word and kept current by `DiscretionService`, so the check on every
message costs a dict lookup and one HMAC and never waits on storage.

Entering cover happens in memory first (before any I/O): a check-in about to go out or an
update in flight for the same chat sees it at once. Storage follows, in the chat's order.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta

from bot.content.decoys import Decoys, start_sequence
from bot.content.panic_word import PanicWords, WordKind, derive_word_key, word_digest
from bot.core.clock import Clock
from bot.core.errors import SteadyError
from bot.core.languages import LANGUAGES
from bot.features.discretion.prefs import DiscretionPrefs
from bot.people.ledger import DELETE_WINDOW
from bot.people.profile import Profile
from bot.people.service import PeopleService, Person, UnreadableDataError
from bot.storage.discretion import DiscretionStore

log = logging.getLogger(__name__)

DEFAULT_THEME = "quote"
# Seconds an export stays in the chat in discreet mode unless the person taps Keep.
EXPORT_LIFETIME = 5 * 60
# Seconds a confirmation of /clear or a deletion stays before it removes itself.
CONFIRMATION_LIFETIME = 60
# An offer that waits for a choice ([Keep in my journal] / [Don't keep]) and the words it is
# about: long enough to decide, short enough that a phone picked up later shows neither.
OFFER_LIFETIME = 10 * 60


@dataclass(frozen=True, slots=True)
class Armed:
    """One person with a panic word, as memory holds them."""

    words: PanicWords
    theme: str
    erase: bool


@dataclass(frozen=True, slots=True)
class Cover:
    chat_id: int
    theme: str
    language: str
    sequence: int
    replies_today: int
    day: str  # the UTC date `replies_today` counts


def decoy_language(code: str | None) -> str:
    """Telegram's language code ("pt-br", "de") to a decoy language; English otherwise."""
    short = (code or "").split("-")[0].lower()
    return short if short in LANGUAGES else "en"


class CoverHolds(SteadyError):
    """Raised instead of sending an ordinary message to a chat in cover (an update that was
    in flight when the panic word came): nothing but the decoy may appear there."""


class CoverCache:
    def __init__(self) -> None:
        self._armed: dict[str, Armed] = {}
        self._covers: dict[str, Cover] = {}
        self._chats: set[int] = set()
        # People whose profile was read or written since start: memory knows whether they
        # set a panic word. Anyone else may have one the index lost (issue 27, finding 9).
        self._checked: set[str] = set()
        # Read with a panic word that memory had not armed: the index is missing their row.
        self._unindexed: set[str] = set()

    def checked(self, person_id: str) -> None:
        self._checked.add(person_id)

    def unsure(self, person_id: str) -> bool:
        """Whether memory cannot rule out a panic word for this person: their profile was
        not read since start (the index is only a list; a row deleted from it must not
        silence the word), or it was and holds a word memory does not have armed."""
        if person_id in self._armed:
            return False
        return person_id not in self._checked or person_id in self._unindexed

    def armed(self, person_id: str) -> Armed | None:
        return self._armed.get(person_id)

    def match(self, person_id: str, text: str) -> WordKind | None:
        armed = self._armed.get(person_id)
        return None if armed is None else armed.words.match(text)

    def arm(self, person_id: str, armed: Armed | None) -> None:
        if armed is None:
            self._armed.pop(person_id, None)
        else:
            self._armed[person_id] = armed
            self._unindexed.discard(person_id)

    def cover(self, person_id: str) -> Cover | None:
        return self._covers.get(person_id)

    def in_cover(self, person_id: str) -> bool:
        return person_id in self._covers

    def chat_in_cover(self, chat_id: int) -> bool:
        return chat_id in self._chats

    def enter(self, person_id: str, cover: Cover) -> None:
        old = self._covers.get(person_id)
        if old is not None:
            self._chats.discard(old.chat_id)
        self._covers[person_id] = cover
        self._chats.add(cover.chat_id)

    def leave(self, person_id: str) -> Cover | None:
        cover = self._covers.pop(person_id, None)
        if cover is not None:
            self._chats.discard(cover.chat_id)
        return cover

    def count(self) -> int:
        return len(self._armed)

    # PersonListener: a forgotten person leaves nothing in memory.
    def seen(self, person_id: str, profile: Profile, state: str) -> None:
        self._checked.add(person_id)
        if profile.part(DiscretionPrefs).panic_digest is not None and person_id not in self._armed:
            self._unindexed.add(person_id)
        else:
            self._unindexed.discard(person_id)

    def forgotten(self, person_id: str) -> None:
        self._armed.pop(person_id, None)
        self._checked.discard(person_id)
        self._unindexed.discard(person_id)
        self.leave(person_id)


def _armed_of(person: Person) -> Armed | None:
    p = person.profile.part(DiscretionPrefs)
    if p.panic_digest is None:
        return None
    key = bytes.fromhex(p.word_key) if p.word_key else derive_word_key(person.cipher.data_key)
    back = bytes.fromhex(p.return_digest) if p.return_digest else None
    words = PanicWords(key=key, panic=bytes.fromhex(p.panic_digest), back=back)
    return Armed(words, p.decoy_theme or DEFAULT_THEME, p.panic_erases)


class DiscretionService:
    def __init__(
        self,
        people: PeopleService,
        store: DiscretionStore,
        cache: CoverCache,
        decoys: Decoys,
        clock: Clock,
    ) -> None:
        self.people = people
        self.store = store
        self.cache = cache
        self.decoys = decoys
        self._clock = clock

    def _today(self) -> date:
        return self._clock().date()

    # --- start-up ---------------------------------------------------------------------

    async def load(self) -> int:
        """Fill memory from the index: each listed person's words and cover state. An index
        that cannot be read is no reason not to serve: memory then knows no one, and every
        text shaped like a word is checked against the writer's profile (`recover`)."""
        loaded = 0
        try:
            marked = await self.store.marked()
        except Exception as exc:
            log.warning("panic word index unreadable: %s; checking profiles", type(exc).__name__)
            return 0
        for person_id in marked:
            try:
                person = await self.people.load_by_id(person_id)
            except UnreadableDataError:
                continue  # offered erasure when they next write; no panic word meanwhile
            if person is None:
                continue
            self.remember(person)
            loaded += 1
        return loaded

    def remember(self, person: Person) -> None:
        """Memory follows what is stored for this person."""
        armed = _armed_of(person)
        self.cache.arm(person.person_id, armed)
        p = person.profile.part(DiscretionPrefs)
        if armed is not None and person.profile.cover:
            self.cache.enter(
                person.person_id,
                Cover(
                    chat_id=person.chat_id,
                    theme=armed.theme,
                    language=p.cover_language or "en",
                    sequence=p.cover_sequence,
                    replies_today=p.cover_replies,
                    day=p.cover_day or self._today().isoformat(),
                ),
            )
        else:
            self.cache.leave(person.person_id)

    async def recover(self, person_id: str) -> bool:
        """The fail-safe for a lost index row: read this person's profile (the truth, sealed
        and versioned, where the index is only a list) and, if it holds a panic word, arm
        it and put the row back. True if they have a word."""
        try:
            person = await self.people.load_by_id(person_id)
        except UnreadableDataError:
            return False
        if person is None:
            self.cache.checked(person_id)  # nobody stored: nothing to arm
            return False
        if person.profile.part(DiscretionPrefs).panic_digest is None:
            return False
        self.remember(person)
        try:
            await self.store.mark(person_id)
        except Exception as exc:  # armed in memory anyway; the next start tries again
            log.warning("panic word index not repaired: %s", type(exc).__name__)
        else:
            log.warning("panic word index was missing a row; repaired")
        return True

    # --- choosing the words -----------------------------------------------------------

    def same_as_panic(self, person: Person, text: str) -> bool:
        return self.cache.match(person.person_id, text) is WordKind.PANIC

    async def set_panic_word(self, person: Person, word: str) -> None:
        p = person.profile.part(DiscretionPrefs)
        key = bytes.fromhex(p.word_key) if p.word_key else derive_word_key(person.cipher.data_key)
        p.panic_digest = word_digest(key, word).hex()
        if p.return_digest is not None and p.return_digest == p.panic_digest:
            p.return_digest = None
        p.decoy_theme = p.decoy_theme or DEFAULT_THEME
        await self.people.save(person)
        await self.store.mark(person.person_id)
        self.remember(person)

    async def set_return_word(self, person: Person, word: str | None) -> None:
        p = person.profile.part(DiscretionPrefs)
        if p.panic_digest is None:
            return
        key = bytes.fromhex(p.word_key) if p.word_key else derive_word_key(person.cipher.data_key)
        p.return_digest = None if word is None else word_digest(key, word).hex()
        await self.people.save(person)
        self.remember(person)

    async def choose(
        self, person: Person, *, theme: str | None = None, erase: bool | None = None
    ) -> None:
        p = person.profile.part(DiscretionPrefs)
        if theme is not None and theme in self.decoys.theme_ids():
            p.decoy_theme = theme
        if erase is not None:
            p.panic_erases = erase
        await self.people.save(person)
        self.remember(person)

    async def remove(self, person: Person) -> None:
        p = person.profile.part(DiscretionPrefs)
        p.panic_digest = p.return_digest = p.word_key = None
        p.panic_erases = person.profile.cover = False
        await self.people.save(person)
        await self.store.unmark(person.person_id)
        self.remember(person)

    # --- the cover --------------------------------------------------------------------

    def enter_cover(self, person_id: str, chat_id: int, language: str) -> Cover | None:
        """Memory only, before any I/O. None when the person has no panic word."""
        armed = self.cache.armed(person_id)
        if armed is None:
            return None
        today = self._today()
        cover = Cover(chat_id, armed.theme, language, start_sequence(today), 0, today.isoformat())
        self.cache.enter(person_id, cover)
        return cover

    def cover_message(self, cover: Cover) -> str:
        return self.decoys.cover_message(cover.theme, cover.language, cover.sequence)

    def welcome(self, cover: Cover) -> str:
        return self.decoys.voice(cover.theme, cover.language).welcome

    def reply(self, person_id: str) -> str | None:
        """The decoy's answer to anything typed in cover; advances the cover in memory."""
        cover = self.cache.cover(person_id)
        if cover is None:
            return None
        today = self._today().isoformat()
        if cover.day != today:
            cover = replace(cover, replies_today=0, day=today)
        answer = self.decoys.reply(cover.theme, cover.language, cover.sequence, cover.replies_today)
        if answer.shows_entry:
            cover = replace(
                cover, sequence=cover.sequence + 1, replies_today=cover.replies_today + 1
            )
        self.cache.enter(person_id, cover)
        return answer.text

    async def store_cover(self, person: Person) -> None:
        """Write what memory holds about this person's cover (after the reply went out)."""
        cover = self.cache.cover(person.person_id)
        p = person.profile.part(DiscretionPrefs)
        person.profile.cover = cover is not None
        if cover is not None:
            p.cover_sequence, p.cover_replies = cover.sequence, cover.replies_today
            p.cover_day, p.cover_language = cover.day, cover.language
        await self.people.save(person)

    async def erase_keeping_cover(self, person: Person, user_id: int) -> Person:
        """Erase on panic: everything goes (as /forget), then a fresh person holds only the
        cover, the theme and the words' digests under the old word key (sealed under the
        new data key), so the cover still holds and the return word still works."""
        armed = self.cache.armed(person.person_id)
        cover = self.cache.cover(person.person_id)
        await self.people.forget(person.person_id)
        fresh = await self.people.create(user_id, person.chat_id, "")
        if armed is None:
            return fresh
        p = fresh.profile.part(DiscretionPrefs)
        p.word_key = armed.words.key.hex()
        p.panic_digest = armed.words.panic.hex()
        p.return_digest = None if armed.words.back is None else armed.words.back.hex()
        p.decoy_theme, p.panic_erases = armed.theme, armed.erase
        self.cache.arm(fresh.person_id, armed)
        if cover is not None:
            self.cache.enter(fresh.person_id, replace(cover, chat_id=fresh.chat_id))
        await self.store_cover(fresh)
        await self.store.mark(fresh.person_id)
        return fresh

    # --- what the wipe deletes ----------------------------------------------------------

    async def stored_ids(self, person_id: str) -> list[int]:
        since = int((self._clock() - DELETE_WINDOW).timestamp())
        return await self.store.check_in_ids(person_id, since)

    # --- messages that remove themselves ------------------------------------------------

    async def remove_later(self, person_id: str, message_id: int, seconds: int) -> None:
        due = self._clock() + timedelta(seconds=seconds)
        await self.store.remove_later(person_id, message_id, int(due.timestamp()))

    async def keep(self, person_id: str, message_id: int) -> None:
        await self.store.keep(person_id, message_id)

    async def due_removals(self) -> Sequence[tuple[str, int]]:
        return await self.store.due_removals(int(self._clock().timestamp()))
