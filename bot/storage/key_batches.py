"""The key store's lookups for a batch of people (the daily-prompt claim): each person's
identity and data key read in one query, where `owners` then `data_keys` took two."""

from __future__ import annotations

from abc import abstractmethod

from bot.crypto import MasterKey
from bot.storage.backend import Backend, Row

CHUNK = 500  # placeholders in one IN (...) query


class KeyBatches:
    db: Backend
    _master: MasterKey
    _table: str  # where this master key's wraps are

    @abstractmethod
    def _ref(self, value: str) -> str: ...

    @abstractmethod
    def _met(self, row: Row) -> tuple[str, str] | None: ...

    @abstractmethod
    async def data_keys(self, person_ids: list[str]) -> dict[str, bytes]: ...

    async def owners_and_keys(self, row_ids: list[str]) -> dict[str, tuple[str, bytes]]:
        """`owners` then `data_keys`, the identity and its wrapped key in one query a chunk
        (a daily-prompt batch needs hundreds); a row id without either is left out."""
        found: dict[str, tuple[str, bytes]] = {}
        for start in range(0, len(row_ids), CHUNK):
            refs = [self._ref(r) for r in row_ids[start : start + CHUNK]]
            rows = await self.db.fetch_all(
                "SELECT i.handle, i.version, i.sealed, i.row_id AS row_ref, i.owner AS owner_ref,"  # noqa: S608 - constant table, placeholders
                f" k.wrapped FROM identities AS i LEFT JOIN {self._table} AS k"
                f" ON k.person_id = i.owner WHERE i.row_id IN ({','.join('?' * len(refs))})",
                refs,
            )
            for row in rows:
                if (met := self._met(row)) is None:
                    continue
                row_id, owner = met
                # The key's label is the owner's reference: most owners are their row id,
                # whose reference the query already took. The sealed owner wins if they differ.
                label = str(row["row_ref"]) if owner == row_id else self._ref(owner)
                if label != str(row["owner_ref"]):
                    key = (await self.data_keys([owner])).get(owner)
                elif row["wrapped"] is not None:
                    key = self._master.unwrap(bytes(row["wrapped"]), label)
                else:
                    key = None
                if key is not None:
                    found[row_id] = (owner, key)
        return found
