"""Fetched updates waiting for a slot: the overload queue (issue 25).

Polling fetches as fast as Telegram hands updates over; handling them is slower under
overload. What was fetched waits here, raw and unparsed, per chat in arrival order, and is
admitted to the handlers as slots free, chats taken in turn (one chat's burst does not hold
everyone else back). Nothing here waits or parses: the poll's turn of the event loop stays
a few dictionary operations long, so the next getUpdates is never stalled behind handling,
and a crisis message fetched behind a backlog has its reply started at once (its early
path, bot/transport/ordering.py, does not queue here).

Each chat has at most one update admitted at a time (its later ones wait their turn here,
not as tasks), so the number of live handling tasks is bounded by the slots and the few
urgent updates, whatever the backlog.

An update that may be urgent (a crisis or panic word, /sos, /help, a long text not read
yet) is always queued, past any bound, and admitted without a slot when its chat's turn
comes: its crisis reply went out when it was fetched; what it means otherwise (a worksheet
answer, say) runs in its chat's order. Ordinary updates past the bounds (too many waiting
in all, or in the one chat) are shed: the chat is told, once until its queue drains, to
send it again later (docs/performance.md, "Overload admission", says why this and not
answering everything late).

While updates wait or run, the number of slots follows the event loop's own lag (`TurnGovernor`):
every handler admitted adds its steps to the loop's turns, and a crisis message waits for
whole turns (the poll that fetches it, its early path's task, its send) before its reply
is out. Past a few milliseconds of lag, fewer ordinary updates are admitted, so the turns
shorten; while the loop keeps time, slots come back one at a time. Overload then shows as
a longer queue here, not as a slower crisis reply (docs/performance.md, "Crisis reply
under overload").
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")

# Ordinary updates waiting, in all and per chat. At about 2 KB a raw update (a long text up
# to 10 KB) the whole queue stays within tens of megabytes; at the few hundred updates a
# second one replica handles here, a full queue is answered within a minute or so.
MAX_WAITING = 10_000
MAX_WAITING_PER_CHAT = 50


# The loop's lag (how late a timer fires) above which slots are halved, below which one
# comes back; never fewer than LEAST_SLOTS, so the backlog still moves whatever the lag.
LAG_HIGH = 0.008
LAG_LOW = 0.003
LEAST_SLOTS = 2


class TurnGovernor:
    """How many slots the admission may fill, from samples of the event loop's lag: halved
    when a sample is above `high`, one more when below `low` (up to `most`)."""

    def __init__(
        self,
        most: int,
        *,
        least: int = LEAST_SLOTS,
        high: float = LAG_HIGH,
        low: float = LAG_LOW,
    ) -> None:
        self.most = most
        self.least = min(least, most)
        self.high = high
        self.low = low
        self.slots = most
        self.lowered = 0  # samples that halved the slots, since start (overload seen)

    def sample(self, lag: float) -> int:
        if lag > self.high and self.slots > self.least:
            self.slots = max(self.least, self.slots // 2)
            self.lowered += 1
        elif lag < self.low and self.slots < self.most:
            self.slots += 1
        return self.slots

    def reset(self) -> int:
        """Nothing waits and nothing runs: every slot is open again."""
        self.slots = self.most
        return self.slots


class Offer(enum.Enum):
    QUEUED = "queued"
    SHED_TELL = "shed, tell the chat"  # the first shed one of this chat since it drained
    SHED_QUIET = "shed, the chat was told"


@dataclass(frozen=True, slots=True)
class Admitted(Generic[T]):
    key: Hashable  # the chat (or the update itself, when it has none)
    item: T
    slot: bool  # holds one of the slots until `done`


class Admission(Generic[T]):
    def __init__(
        self,
        slots: int,
        *,
        bound: int = MAX_WAITING,
        per_chat: int = MAX_WAITING_PER_CHAT,
    ) -> None:
        self.slots = slots
        self.bound = bound
        self.per_chat = per_chat
        self._queues: dict[Hashable, deque[tuple[T, bool]]] = {}
        self._busy: set[Hashable] = set()  # chats with one update admitted
        # Chats with an update waiting and none admitted, in the order they became ready;
        # those whose next update is urgent take no slot, so they have their own line.
        self._ready: deque[Hashable] = deque()
        self._ready_urgent: deque[Hashable] = deque()
        self._told: set[Hashable] = set()
        self._waiting = 0
        self._in_flight = 0  # admitted, holding a slot

    @property
    def waiting(self) -> int:
        """Updates queued here, not admitted yet."""
        return self._waiting

    @property
    def in_flight(self) -> int:
        """Admitted updates holding a slot."""
        return self._in_flight

    @property
    def admitted(self) -> int:
        """Chats with an update admitted and not done."""
        return len(self._busy)

    def offer(self, key: Hashable, item: T, *, urgent: bool) -> Offer:
        queue = self._queues.get(key)
        if not urgent and (
            self._waiting >= self.bound or (queue is not None and len(queue) >= self.per_chat)
        ):
            if key in self._told:
                return Offer.SHED_QUIET
            self._told.add(key)
            return Offer.SHED_TELL
        if queue is None:
            queue = self._queues[key] = deque()
        queue.append((item, urgent))
        self._waiting += 1
        if len(queue) == 1 and key not in self._busy:
            self._make_ready(key, urgent)
        return Offer.QUEUED

    def take(self) -> list[Admitted[T]]:
        """What may start now: every chat whose next update is urgent, then chats in turn
        while slots are free."""
        out: list[Admitted[T]] = []
        while self._ready_urgent:
            out.append(self._admit(self._ready_urgent.popleft()))
        while self._ready and self._in_flight < self.slots:
            out.append(self._admit(self._ready.popleft()))
        if self._told and self._waiting < self.bound // 2:
            self._told.clear()  # room again: a chat shed from now on is told again
        return out

    def done(self, admitted: Admitted[T]) -> None:
        """The admitted update has been handled (or dropped): its chat's next may go."""
        key = admitted.key
        self._busy.discard(key)
        if admitted.slot:
            self._in_flight -= 1
        queue = self._queues.get(key)
        if queue:
            self._make_ready(key, queue[0][1])
        else:
            self._queues.pop(key, None)
            self._told.discard(key)  # idle chats leave no trace

    def _make_ready(self, key: Hashable, urgent: bool) -> None:
        (self._ready_urgent if urgent else self._ready).append(key)

    def _admit(self, key: Hashable) -> Admitted[T]:
        queue = self._queues[key]
        item, urgent = queue.popleft()
        self._waiting -= 1
        self._busy.add(key)
        if not urgent:
            self._in_flight += 1
        return Admitted(key, item, slot=not urgent)
