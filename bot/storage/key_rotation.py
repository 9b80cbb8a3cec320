"""Master-key rotation in the key store: stage the next key, undo a staging, retire the old.

A rotation first *stages* the next key (every data key and the pseudonym key wrapped under
it as well, in `data_keys_next` / `next_master`), so either key opens the store; only
`retire`, run with the next key, makes it the one key. Mixed into `KeyStore`.
"""

from __future__ import annotations

from abc import abstractmethod

from bot.core.errors import SteadyError
from bot.crypto import MasterKey
from bot.storage.backend import Backend, Tx

PSEUDONYM_LABEL = "pseudonym"
CURRENT = "data_keys"
NEXT = "data_keys_next"
# Creation times are not kept (they would match the person's row in a backup); the
# column stays, always this.
NO_TIME = 0
# Data keys with a wrap under the staged key and none under the current one.
ONLY_STAGED_COUNT = (
    f"SELECT COUNT(*) FROM {NEXT} WHERE person_id NOT IN (SELECT person_id FROM {CURRENT})"  # noqa: S608 - constant tables
)


class RotationError(SteadyError):
    """A rotation step cannot go ahead; nothing was changed by it."""


class KeyRotation:
    db: Backend
    _master: MasterKey
    _table: str  # where this master key's wraps are: CURRENT, or NEXT while staged

    @abstractmethod
    async def pseudonym_key(self) -> bytes: ...

    @abstractmethod
    async def scrub(self) -> None: ...

    @abstractmethod
    async def _unwrap(self, refs: list[str]) -> dict[str, bytes]: ...

    async def staged_key_id(self) -> int | None:
        row = await self.db.fetch_one("SELECT key_id FROM next_master")
        return None if row is None else int(row["key_id"])

    async def all_data_keys(self) -> dict[str, bytes]:
        """Every key this master key opens, by its stored reference."""
        rows = await self.db.fetch_all(f"SELECT person_id FROM {self._table}")  # noqa: S608 - constant table
        return await self._unwrap([str(r["person_id"]) for r in rows])

    async def stage(self, new_master: MasterKey) -> dict[str, bytes]:
        """Wrap every data key and the pseudonym key under `new_master` as well; the current
        wraps stay. Safe to repeat (a resumed rotation). Returns the keys it wrapped, by
        their stored reference."""
        if self._table != CURRENT:
            raise RotationError("the store was opened with the staged key; open it with the old")
        if new_master.key_id == self._master.key_id:
            raise RotationError("the new master key is the current one")
        pseudo = await self.pseudonym_key()
        async with self.db.transaction() as tx:
            staged = await tx.fetch_one("SELECT key_id FROM next_master")
            if staged is not None and int(staged["key_id"]) != new_master.key_id:
                # People who joined while the bot served with the staged key have a wrap
                # under it alone: replacing it would lose their keys for good.
                only = await scalar(tx, ONLY_STAGED_COUNT)
                if only:
                    raise RotationError(
                        f"another new key is staged and {only} data key(s) are wrapped only "
                        "under it; finish that rotation with it (`keys rotate` with "
                        "BOT_NEW_MASTER_KEY set to it, or `keys retire`)"
                    )
            # Read inside the transaction, so a key added meanwhile is wrapped too.
            rows = await tx.fetch_all(f"SELECT person_id, wrapped FROM {CURRENT}")  # noqa: S608 - constant table
            keys: dict[str, bytes] = {}
            for row in rows:
                pid = str(row["person_id"])
                keys[pid] = self._master.unwrap(bytes(row["wrapped"]), pid)
            await tx.execute("DELETE FROM next_master")
            await tx.execute(
                "INSERT INTO next_master (key_id, check_value, pseudonym_key) VALUES (?, ?, ?)",
                (
                    new_master.key_id,
                    new_master.check_value(),
                    new_master.wrap(pseudo, PSEUDONYM_LABEL),
                ),
            )
            await tx.executemany(
                f"INSERT INTO {NEXT} (person_id, wrapped, created_at) VALUES (?, ?, ?)"  # noqa: S608 - constant table
                " ON CONFLICT (person_id) DO UPDATE"
                " SET wrapped = excluded.wrapped, created_at = excluded.created_at",
                [(pid, new_master.wrap(key, pid), NO_TIME) for pid, key in keys.items()],
            )
        await self.scrub()
        return keys

    async def unstage(self) -> None:
        """Undo a staging that failed: only staged wraps whose key also has a wrap under the
        current master key go. A key wrapped under the staged key alone (someone joined
        while the bot served with it) is never deleted, and nor is the staged key's check
        value while such a key needs it to open."""
        async with self.db.transaction() as tx:
            await tx.execute(
                f"DELETE FROM {NEXT} WHERE person_id IN (SELECT person_id FROM {CURRENT})"  # noqa: S608 - constant tables
            )
            if not await scalar(tx, ONLY_STAGED_COUNT):
                await tx.execute("DELETE FROM next_master")
        await self.scrub()

    async def retire_old_key(self) -> int:
        """Make the staged key (the one this store was opened with) the only key: the old
        key's wraps are deleted. Refused if any data key lacks a wrap under the new key."""
        if self._table != NEXT:
            raise RotationError(
                "no rotation is staged for this master key (is BOT_MASTER_KEY the new key?)"
            )
        async with self.db.transaction() as tx:
            missing = await scalar(
                tx,
                "SELECT COUNT(*) FROM data_keys"
                " WHERE person_id NOT IN (SELECT person_id FROM data_keys_next)",
            )
            if missing:
                raise RotationError(
                    f"{missing} data key(s) were added under the old key after staging; "
                    "run `keys rotate` again with the old key, then retire"
                )
            staged = await tx.fetch_one("SELECT check_value, pseudonym_key FROM next_master")
            if staged is None:
                raise RotationError("no staged key: run `keys rotate` first")
            await tx.execute(f"DELETE FROM {CURRENT}")  # noqa: S608 - constant table
            await tx.execute(
                f"INSERT INTO {CURRENT} (person_id, wrapped, created_at)"  # noqa: S608 - constant tables
                f" SELECT person_id, wrapped, created_at FROM {NEXT}"
            )
            count = await scalar(tx, "SELECT COUNT(*) FROM data_keys")
            await tx.execute("UPDATE meta SET value = ? WHERE name = 'check'", (staged[0],))
            await tx.execute("UPDATE meta SET value = ? WHERE name = 'pseudonym_key'", (staged[1],))
            await tx.execute("DELETE FROM next_master")
            await tx.execute(f"DELETE FROM {NEXT}")  # noqa: S608 - constant table
        self._table = CURRENT
        await self.scrub()
        return count


async def scalar(tx: Tx, sql: str) -> int:
    row = await tx.fetch_one(sql)
    if row is None:  # an aggregate always returns a row
        raise RuntimeError("no row from an aggregate query")
    return int(row[0])
