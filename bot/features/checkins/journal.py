"""The journal: what a person writes back to their daily check-ins, sealed entry by entry.

Which text counts as a check-in reply (the handler only asks when no question is pending):

- a Telegram reply to a prompt message, however old, with that prompt's id;
- otherwise only the first free text within `REPLY_WINDOW` (12 h) of the latest prompt,
  confirmed with "Saved to your journal" and an Undo button that removes that entry. A day
  the person skipped catches nothing; more text after the first needs a Telegram reply.

Everything else stays out: a stray "hello" the next afternoon is not a journal entry. The
handlers keep out, before asking here, what is never meant for the journal whenever it is
sent: the words that steer the bot ("stop", "menu", "hi", "what can you do?"), emoji alone,
and a crisis word with nothing of the person's own (bot/content/conversation.py).
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass

from bot.core.clock import Clock
from bot.crypto import CryptoError, versioned_slot
from bot.features.checkins.policy import REPLY_WINDOW
from bot.features.checkins.prefs import CheckinPrefs
from bot.features.worksheets.state import worksheet_state
from bot.people.damaged import DamagedRows
from bot.people.row_versions import next_version, open_versioned
from bot.people.service import Person
from bot.storage.deliveries import DeliveryStore
from bot.storage.journal import JournalRow, JournalStore, journal_slot, new_entry_id
from bot.storage.keystore import KeyStore

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Entry:
    entry_id: str
    prompt_id: str | None
    text: str
    created_at: int


@dataclass(frozen=True, slots=True)
class Page:
    entries: list[Entry]
    offset: int
    total: int


class JournalService:
    def __init__(
        self,
        store: JournalStore,
        deliveries: DeliveryStore,
        clock: Clock,
        keys: KeyStore,
        *,
        window: dt.timedelta = REPLY_WINDOW,
    ) -> None:
        self.store = store
        self._deliveries = deliveries
        self._clock = clock
        self._keys = keys  # the anchors that refuse a rolled-back entry (row_versions.py)
        self._damaged = DamagedRows("journal")
        self._window = window

    def _now(self) -> int:
        return int(self._clock().timestamp())

    async def answers(self, person: Person, reply_to: int | None) -> str | None:
        """The check-in a text answers, wherever the person is: a Telegram reply to it,
        or the first free text in its window. While a step waits, free text belongs to the
        step, except when the check-in came after a worksheet question: then the check-in
        is the latest thing asked, and the worksheet answer waits for its question."""
        decoded = worksheet_state(person.state)
        if decoded is not None and decoded.question_message and reply_to is None:
            return await self.prompt_for(person, None, newer_than=decoded.question_message)
        return await self.prompt_for(person, reply_to, only_replies=bool(person.state))

    async def prompt_for(
        self,
        person: Person,
        reply_to: int | None,
        *,
        only_replies: bool = False,
        newer_than: int | None = None,
    ) -> str | None:
        """The id of the prompt this text answers, or None when it is not a reply.
        `only_replies`: count a Telegram reply to a prompt, not free text (a worksheet
        question is waiting for that)."""
        pid = person.person_id
        if reply_to is not None:
            record = await self._deliveries.by_message(pid, reply_to)
            if record is not None and record.prompt_id:
                return record.prompt_id
        if only_replies:
            return None
        latest = await self._deliveries.latest_delivered(pid, maybe=True)
        now = self._now()
        if latest is None or not latest.prompt_id:
            return None
        if newer_than is not None and (latest.message_id or 0) <= newer_than:
            return None  # the question came after the check-in: free text answers it
        if latest.local_date in (
            person.profile.part(CheckinPrefs).skip_date,
            person.profile.part(CheckinPrefs).journal_closed,
        ):
            return None
        newest = await self.store.page(pid, offset=0, limit=1)
        if newest and newest[0].created_at >= latest.claimed_at:
            return None  # answered already: more needs a Telegram reply to the check-in
        if now - latest.claimed_at > self._window.total_seconds():
            return None
        return latest.prompt_id

    async def add(self, person: Person, prompt_id: str | None, message_id: int, text: str) -> str:
        """Store an entry; the same message seen twice (an update re-read) is stored once."""
        existing = await self.store.by_message(person.person_id, message_id)
        if existing is not None:
            await self._replace(person, existing, text)
            return existing.entry_id
        entry_id = new_entry_id()
        sealed = person.cipher.seal_text(journal_slot(entry_id), text)
        await self.store.add(person.person_id, entry_id, prompt_id, message_id, sealed, self._now())
        return entry_id

    async def remove(self, person: Person, entry_id: str) -> bool:
        """Undo: the entry named, and nothing else; False when it is already gone."""
        version = await self.store.version(person.person_id, entry_id)
        removed = await self.store.delete(person.person_id, entry_id)
        if removed and version is not None:
            # Anchored one past its last version (after the delete, as for answer parts):
            # the entry put back from a data backup is refused.
            slot = journal_slot(entry_id)
            buried = next_version(self._keys, person, slot, version)
            await self._keys.anchor_slots(person.person_id, {slot: buried})
        latest = await self._deliveries.latest_delivered(person.person_id, maybe=True)
        if removed and latest is not None:
            # "That wasn't for the journal": the next free text is not either. The caller
            # saves the profile.
            person.profile.part(CheckinPrefs).journal_closed = latest.local_date
        return removed

    async def edit(self, person: Person, message_id: int, text: str) -> bool:
        """An edited reply replaces its entry; False when the message is not an entry."""
        existing = await self.store.by_message(person.person_id, message_id)
        if existing is None:
            return False
        await self._replace(person, existing, text)
        return True

    async def _replace(self, person: Person, row: JournalRow, text: str) -> None:
        version = next_version(self._keys, person, row.slot, row.version)
        sealed = person.cipher.seal_text(versioned_slot(row.slot, version), text)
        await self.store.replace_text(person.person_id, row.entry_id, sealed, self._now(), version)
        await self._keys.anchor_slots(person.person_id, {row.slot: version})

    def _open(self, person: Person, row: JournalRow) -> Entry:
        text = open_versioned(self._keys, person, row.slot, row.version, row.text_enc)
        return Entry(row.entry_id, row.prompt_id, text, row.created_at)

    def _opened(self, person: Person, rows: list[JournalRow]) -> list[Entry]:
        """The entries that open; one that does not (damaged) is left out and noted, for
        the offer to erase it. A rolled-back one raises (the whole file may be old)."""
        entries: list[Entry] = []
        for row in rows:
            try:
                entries.append(self._open(person, row))
            except (CryptoError, ValueError) as exc:
                self._damaged.note(person.person_id, row.entry_id, exc)
        return entries

    async def all(self, person: Person) -> list[Entry]:
        """Every entry that opens, oldest first (for export)."""
        return self._opened(person, await self.store.all(person.person_id))

    async def page(self, person: Person, offset: int, limit: int) -> Page:
        """Entries newest first, `limit` of them from `offset`."""
        rows = await self.store.page(person.person_id, offset=offset, limit=limit)
        total = await self.store.count(person.person_id)
        return Page(self._opened(person, rows), offset, total)

    def take_damaged(self, person: Person) -> list[str]:
        """Ids of the entries that did not open since last asked."""
        return self._damaged.take(person.person_id)

    async def erase_damaged(self, person: Person, entry_id: str) -> bool:
        """Erase one entry, only if it still does not open: True once it is not there.
        Anchored like any deletion."""
        row = await self.store.entry(person.person_id, entry_id)
        if row is None:
            return True  # gone already (an earlier tap, /forget)
        try:
            self._open(person, row)
        except (CryptoError, ValueError):
            pass
        else:
            return False
        await self.store.delete(person.person_id, entry_id)
        buried = next_version(self._keys, person, row.slot, row.version)
        await self._keys.anchor_slots(person.person_id, {row.slot: buried})
        return True
