"""The key store's identities in memory: the people met lately, not everyone (issue 25).

Start-up reads no identity; each is read (one indexed query) when its person writes or a
job needs them, and kept here, the least recently used going first past `capacity`. A
person the cache must not lose while the process runs (a panic word armed: its check on
each message reads memory only) is kept aside when evicted, if `keep` says so.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

# People met lately, each a few hundred bytes: ample for everyone active in an hour on one
# replica, and a flat few MB however many people the store holds.
CAPACITY = 20_000


def new_row_id() -> str:
    """Random, so nothing about the person (not even an HMAC under a key we keep) is in it."""
    return "r" + secrets.token_hex(16)


@dataclass(slots=True)
class Known:
    handle: str
    owner: str  # the name of the row's data key and of its sealed texts' owner
    version: int  # newest settings revision ever written (a rollback is older)
    # Slot reference -> newest version of each edited or deleted row; None until read.
    slots: dict[str, int] | None = None
    # The row id's reference in the key store (an HMAC), once computed: every save of the
    # profile anchors its revision under it (issue 25).
    ref: str | None = None


class RecentIdentities:
    def __init__(self, capacity: int = CAPACITY) -> None:
        self.capacity = capacity
        self._by_row: OrderedDict[str, Known] = OrderedDict()
        self._kept: dict[str, Known] = {}  # evicted, but `keep` wanted them
        self._row_of: dict[str, str] = {}  # handle -> row id, for both of the above
        self.keep: Callable[[str], bool] = lambda row_id: False

    def __len__(self) -> int:
        return len(self._by_row) + len(self._kept)

    def row_id(self, handle: str) -> str | None:
        row_id = self._row_of.get(handle)
        if row_id is not None and row_id in self._by_row:
            self._by_row.move_to_end(row_id)
        return row_id

    def get(self, row_id: str) -> Known | None:
        known = self._by_row.get(row_id)
        if known is not None:
            self._by_row.move_to_end(row_id)
            return known
        return self._kept.get(row_id)

    def put(self, row_id: str, known: Known) -> Known:
        """Remember (or refresh) an identity; the newer of two versions wins."""
        old = self.get(row_id)
        if old is not None:
            if old.handle != known.handle:
                self._row_of.pop(old.handle, None)
            known.version = max(known.version, old.version)
            if known.slots is None:
                known.slots = old.slots
        if row_id in self._kept:
            self._kept[row_id] = known
        else:
            self._by_row[row_id] = known
            self._by_row.move_to_end(row_id)
        self._row_of[known.handle] = row_id
        self._evict()
        return known

    def drop(self, row_id: str) -> None:
        known = self._by_row.pop(row_id, None) or self._kept.pop(row_id, None)
        if known is not None and self._row_of.get(known.handle) == row_id:
            del self._row_of[known.handle]

    def entries(self) -> list[tuple[str, Known]]:
        return [*self._by_row.items(), *self._kept.items()]

    def clear(self) -> None:
        self._by_row.clear()
        self._kept.clear()
        self._row_of.clear()

    def _evict(self) -> None:
        while len(self._by_row) > self.capacity:
            row_id, known = self._by_row.popitem(last=False)
            if self.keep(row_id):
                self._kept[row_id] = known
            elif self._row_of.get(known.handle) == row_id:
                del self._row_of[known.handle]
