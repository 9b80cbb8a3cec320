"""The /clear message ledger: ids (never text) of the messages in each person's chat, kept
while Telegram still lets a bot delete them (48 hours), so /clear, /forget and worksheet
deletion can tidy the chat.

Ids are written in batches: one fsync per message would cost more than the whole rest of
handling it. A crash loses at most one interval of ids (runtime.py flushes every second).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from bot.core.clock import Clock
from bot.people.profile import Profile
from bot.storage.people import PeopleStore

# Telegram lets a bot delete messages in a private chat for 48 hours; older ids are useless.
# Source: https://core.telegram.org/bots/api#deletemessage
DELETE_WINDOW = timedelta(hours=48)


class MessageLedger:
    def __init__(self, store: PeopleStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock
        self._pending: list[tuple[str, int, int, str | None]] = []

    def note(
        self, person_id: str, message_id: int, sent_at: int, *, quotes: str | None = None
    ) -> None:
        """`quotes`: the worksheet whose answers the message shows, if any."""
        self._pending.append((person_id, message_id, sent_at, quotes))

    def _window_start(self) -> int:
        return int((self._clock() - DELETE_WINDOW).timestamp())

    async def deletable(self, person_id: str, *, quoting: str | None = None) -> list[int]:
        """Ids of the person's chat that Telegram still lets us delete (all of them, or only
        the bot's messages that showed answers of worksheet `quoting`); pending ids first."""
        await self.flush()
        since = self._window_start()
        if quoting is not None:
            return await self._store.quoting_messages(person_id, quoting, since)
        return await self._store.recent_messages(person_id, since)

    def pending(self, person_id: str) -> list[int]:
        """Ids noted in memory and not yet written: no storage involved."""
        return [e[1] for e in self._pending if e[0] == person_id]

    async def stored(self, person_id: str) -> list[int]:
        """Written ids still inside the delete window, without flushing first (a read only:
        the panic wipe must not wait on a write)."""
        return await self._store.recent_messages(person_id, self._window_start())

    async def forget(self, person_id: str, message_ids: Sequence[int]) -> None:
        """The messages are gone from the chat (or were asked to go): their ids go too."""
        await self._store.forget_messages(person_id, list(message_ids))

    async def prune(self) -> None:
        """Past the delete window an id is useless, and a timeline of when someone wrote is
        metadata we should not hold."""
        await self._store.prune_messages(self._window_start())

    async def flush(self) -> None:
        pending, self._pending = self._pending, []
        try:
            await self._store.remember_messages(pending)
        except BaseException:
            self._pending[:0] = pending  # keep them for the next try
            raise

    # PersonListener: a forgotten person's pending ids are never written.
    def seen(self, person_id: str, profile: Profile, state: str) -> None:
        return

    def forgotten(self, person_id: str) -> None:
        self._pending = [e for e in self._pending if e[0] != person_id]
