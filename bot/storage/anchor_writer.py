"""The settings rows' rollback anchors, written together (issue 25: cheaper ordinary updates).

Every save of a person's settings anchors its new revision in the key store
(`identities.version`): a second durable commit, on a second file, for each update that
changes anything, a third of what the people side of an ordinary update cost
(docs/performance.md, "Anchors written together"). Here the anchors of the saves made
within `ANCHOR_DELAY` go in one transaction.

Why a delay is safe: an anchor only ever follows the row it anchors (the row is written
first) and only moves forward, and a row newer than its anchor opens; a crash between the
two was always allowed (docs/architecture.md). So while an anchor waits, the one thing
that changes is that the row's previous revision would still open if an older copy of the
data file were put back in that instant: the rollback check lags by at most the delay
(plus a failed write's retries), never refuses a row it should open. This process's own
check reads memory, which has the new revision at once (`KeyStore.anchor_version`), and an
identity read back from the store is given what waits here (`waiting`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from bot.storage.backend import Backend

log = logging.getLogger(__name__)

ANCHOR_DELAY = 0.02  # seconds: at 500 updates/s about ten saves share one commit
# After a failed write (storage down), the next try waits longer, up to this.
RETRY_MOST = 1.0


class AnchorWriter:
    def __init__(self, db: Backend) -> None:
        self._db = db
        self._waiting: dict[str, tuple[str, int]] = {}  # row id -> (its reference, version)
        self._lock = asyncio.Lock()  # one write at a time: the timer's or a flush
        self._task: asyncio.Task[None] | None = None
        self._delay = ANCHOR_DELAY
        self._closed = False

    def put(self, row_id: str, ref: str, version: int) -> None:
        """Anchor `version` for the row (under its reference) within the delay."""
        if self._closed:
            # Nothing saves after the key store's close in Runtime.stop's order; should
            # something, its row still opens (as after a crash), and it is said.
            log.warning("a rollback anchor came after close and is not written")
            return
        if version > self.waiting(row_id):
            self._waiting[row_id] = (ref, version)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._later())

    def waiting(self, row_id: str) -> int:
        """The version waiting to be written for this row, 0 if none."""
        found = self._waiting.get(row_id)
        return 0 if found is None else found[1]

    def forget(self, row_id: str) -> None:
        """The identity is deleted: nothing of it is to be written."""
        self._waiting.pop(row_id, None)

    async def flush(self) -> None:
        """Write what waits now (after a write already on its way)."""
        async with self._lock:
            await self._write()

    async def close(self) -> None:
        """Write what waits and stop. If that write fails, those rows stay newer than their
        anchors (they open, as after a crash): said in the log."""
        self._closed = True
        try:
            await self.flush()
        except Exception:
            log.warning("rollback anchors not written at close (%d)", len(self._waiting))
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _later(self) -> None:
        try:
            await asyncio.sleep(self._delay)
            async with self._lock:
                await self._write()
            self._delay = ANCHOR_DELAY
        except asyncio.CancelledError:
            self._task = None  # the loop is ending: close() (or a crash) has the rest
            raise
        except Exception:  # logged by _write; tried again, later each time
            self._delay = min(self._delay * 2, RETRY_MOST)
        self._task = None
        if self._waiting and not self._closed:
            self._task = asyncio.get_running_loop().create_task(self._later())

    async def _write(self) -> None:
        batch = dict(self._waiting)
        if not batch:
            return
        try:
            async with self._db.transaction() as tx:
                # Only forward, on both engines (another replica may have anchored a newer
                # one); in the references' order, so two replicas' batches lock the rows
                # they share in the same order (no deadlock on PostgreSQL).
                await tx.executemany(
                    "UPDATE identities SET version = ? WHERE row_id = ? AND version < ?",
                    [(version, ref, version) for ref, version in sorted(batch.values())],
                )
        except Exception as exc:
            log.warning("rollback anchors not written (%d): %s", len(batch), type(exc).__name__)
            raise
        for row_id, (_, version) in batch.items():
            if self.waiting(row_id) == version:  # not moved on while this was written
                del self._waiting[row_id]
