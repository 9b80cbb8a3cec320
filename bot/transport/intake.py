"""Fetching updates so that no single update can stop the bot.

PTB parses a whole getUpdates batch at once: one update it cannot parse (Bot API drift, a
field this PTB version requires and Telegram stopped sending) makes the batch fail, the
offset never moves, every later update (crisis messages included) waits behind it for
ever, and PTB logs the raw batch at CRITICAL on every retry. Here each update is parsed
on its own; one that fails is skipped, counted and logged by its id and type only, and the
next poll's offset moves past it. Connection errors back off in PTB's retry loop (1 s,
growing to 30 s); nothing here needs its own timer.

Each raw update is screened as it is fetched (the update processor's `screen_raw`: a
crisis or panic word, /sos, /help, read from the JSON without parsing it); those that may
be urgent are parsed at once and their early path is started, whatever backlog of
ordinary updates is waiting for slots (issue 25). Every update then goes, raw, to the
processor's admission (bot/transport/admission.py): an ordinary one is parsed only when a
slot frees for it, so the poll never waits for handling and nothing is parsed twice.

The next getUpdates goes out as soon as a batch has been taken, from the task that took
it (`_poll`), instead of when PTB's polling loop comes round to ask: under overload
that loop's round trip (its tasks, its wait, the request's write) is several turns of a
busy event loop, and a crisis message arriving meanwhile waited at Telegram for all of
them (docs/performance.md, "Crisis reply under overload"). PTB's next call then awaits the
poll already on its way; one poll is in flight at a time, as before.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import Any

from telegram import Update
from telegram._utils.defaultvalue import DEFAULT_NONE
from telegram._utils.types import JSONDict, ODVInput, TimePeriod
from telegram.error import NetworkError
from telegram.ext import ExtBot
from telegram.request import BaseRequest

from bot.transport.lean_update import parse_update
from bot.transport.ordering import CrisisFirstUpdateProcessor, Seen

log = logging.getLogger(__name__)

# Only what the features' handlers handle: anything else is one more thing to parse (and to
# fail parsing) for nothing. Keep in step with the handlers when adding one.
ALLOWED_UPDATES: tuple[str, ...] = (
    Update.MESSAGE,
    Update.EDITED_MESSAGE,
    Update.CALLBACK_QUERY,
)


def update_kind(raw: object) -> str:
    """The update's type (its one key besides update_id), never anything inside it."""
    if not isinstance(raw, dict):
        return "not-an-object"
    kinds = [k for k in raw if k != "update_id" and isinstance(k, str)]
    if len(kinds) != 1 or not kinds[0].replace("_", "").isalpha() or len(kinds[0]) > 40:
        return "unknown"
    return kinds[0]


def update_id_of(raw: object) -> int | None:
    if isinstance(raw, dict):
        value = raw.get("update_id")
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


class MainBot(ExtBot[Any]):
    """The Application's bot: every send but the crisis replies (those go on the urgent
    bot, `Services.urgent_bot`) and every poll, with getUpdates screened update by update
    (a poison update is skipped, not fatal; a crisis word starts its reply at once) and
    handed to the update processor's admission (bot/transport/admission.py), not to PTB:
    PTB gets each update when a slot frees, parsed then, once."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._skip_below = 0  # the next poll's offset is at least this
        self._skipped = 0
        self._processor: CrisisFirstUpdateProcessor | None = None
        self._closing = False
        # PTB's last getUpdates arguments, and the next poll sent ahead with them.
        self._poll_args: dict[str, Any] | None = None
        self._ahead: asyncio.Task[tuple[Update, ...]] | None = None
        self._polls_ahead = 0  # polls sent ahead and awaited by PTB's next call

    def feed(
        self, processor: CrisisFirstUpdateProcessor, enqueue: Callable[[Update], None]
    ) -> None:
        """Fetched updates go to `processor` (screened, then admitted as slots free), and
        from it to `enqueue` (PTB's update queue). Set by bot/wiring.py."""
        self._processor = processor
        processor.intake(self.parse, enqueue)

    def stop_fetching(self) -> None:
        """Polling is stopping: whatever a last getUpdates returns is left unconfirmed at
        Telegram (fetched again at the next start), never half taken in."""
        self._closing = True
        ahead, self._ahead = self._ahead, None
        if ahead is not None:
            ahead.cancel()

    async def shutdown(self) -> None:
        self.stop_fetching()
        await super().shutdown()

    @property
    def polls_ahead(self) -> int:
        """getUpdates calls PTB found already on their way, since start."""
        return self._polls_ahead

    @property
    def skipped_updates(self) -> int:
        """Updates that could not be parsed and were passed over, since start."""
        return self._skipped

    async def get_updates(
        self,
        offset: int | None = None,
        limit: int | None = None,
        timeout: TimePeriod | None = None,  # noqa: ASYNC109 - PTB's signature
        allowed_updates: Sequence[str] | None = None,
        *,
        read_timeout: ODVInput[float] = DEFAULT_NONE,
        write_timeout: ODVInput[float] = DEFAULT_NONE,
        connect_timeout: ODVInput[float] = DEFAULT_NONE,
        pool_timeout: ODVInput[float] = DEFAULT_NONE,
        api_kwargs: JSONDict | None = None,
    ) -> tuple[Update, ...]:
        # The processor took the last batch (PTB saw none of it, so its own offset stays
        # behind): asking from past it confirms it to Telegram, so it is never fetched again.
        # The same for a poison update that was skipped.
        if self._skip_below and (offset is None or 0 <= offset < self._skip_below):
            offset = self._skip_below
        ahead, self._ahead = self._ahead, None
        if ahead is not None:
            # Asked from past the last batch already (its offset confirms it). Cancelling
            # this call (PTB stopping) cancels that poll too.
            self._polls_ahead += 1
            return await ahead
        self._poll_args = {
            "limit": limit,
            "timeout": timeout,
            "allowed_updates": allowed_updates,
            "read_timeout": read_timeout,
            "write_timeout": write_timeout,
            "connect_timeout": connect_timeout,
            "pool_timeout": pool_timeout,
            "api_kwargs": api_kwargs,
        }
        return await super().get_updates(offset=offset, **self._poll_args)

    async def _poll(self, args: dict[str, Any]) -> tuple[Update, ...]:
        return await super().get_updates(offset=self._skip_below, **args)

    async def _post(self, endpoint: str, data: JSONDict | None = None, **kwargs: Any) -> Any:
        result = await super()._post(endpoint, data, **kwargs)
        if endpoint != "getUpdates":
            return result
        if not isinstance(result, list):
            # A TelegramError, so PTB's polling loop backs off (1 s, growing to 30 s) instead
            # of logging the body and asking again at once.
            raise NetworkError("getUpdates returned something other than a list")
        processor = self._processor
        if processor is None:  # not fed (a bare bot): PTB parses the batch, one by one
            return [raw for raw in result if self.parse(raw) is not None]
        if self._closing:
            return []
        self._take(result, processor)
        args = self._poll_args
        if self._ahead is None and args is not None and not self._closing:
            self._ahead = asyncio.get_running_loop().create_task(self._poll(args))
        return []  # PTB gets them from the processor, as slots free

    def _take(self, batch: list[Any], processor: CrisisFirstUpdateProcessor) -> None:
        """Screen each update, in order; parse those that may be urgent and start their
        early path, and those the crisis model finds worrying and start its reading (their
        tasks exist before any ordinary update of the batch is even parsed, so they run
        first); hand every one to the processor's admission. No yield and no parse of
        ordinary updates here: under overload this turn of the loop must stay short, and the
        next poll must not wait for handling."""
        for raw in batch:
            update_id = update_id_of(raw)
            if update_id is not None:
                self._skip_below = max(self._skip_below, update_id + 1)
            try:
                seen = processor.screen_raw(raw)
            except Exception as exc:  # the screen must never drop an update
                log.warning("update not screened: %s", type(exc).__name__)
                seen = Seen.ORDINARY
            update = None
            if seen is not Seen.ORDINARY:
                update = self.parse(raw)
                if update is None:
                    continue
                if seen is Seen.URGENT:
                    processor.screen(update)
                else:
                    processor.look_now(update)
            elif update_id is None:
                self.parse(raw)  # logged and counted as skipped
                continue
            processor.admit(raw, update)
        processor.pump()

    def parse(self, raw: object) -> Update | None:
        """One raw update, parsed; None (logged by id and type, counted) if it cannot be."""
        update_id = update_id_of(raw)
        try:
            # The common shape without PTB's general parser (the same objects); without an
            # id it is no update: {} fails as such (PTB requires update_id).
            update = parse_update(raw, self)
            self.insert_callback_data(update)
        except Exception as exc:
            self._skipped += 1
            if update_id is not None:
                self._skip_below = max(self._skip_below, update_id + 1)
            # Id, type and the exception's class only: its message may quote the payload.
            log.warning(
                "skipped an update that could not be parsed: id %s, type %s (%s); %d so far",
                update_id,
                update_kind(raw),
                type(exc).__name__,
                self._skipped,
            )
            return None
        return update


def build_main_bot(
    token: str,
    *,
    base_url: str | None,
    request: BaseRequest,
    get_updates_request: BaseRequest,
    rate_limiter: Any,
) -> MainBot:
    return MainBot(
        token,
        base_url=base_url or "https://api.telegram.org/bot",
        base_file_url=file_url(base_url),
        request=request,
        get_updates_request=get_updates_request,
        rate_limiter=rate_limiter,
    )


def file_url(base_url: str | None) -> str:
    """Where files are downloaded from: Telegram's /file/bot, or the same beside a local
    Bot API (the emulator, a self-hosted server) whose URL ends in /bot."""
    if base_url and base_url.endswith("/bot"):
        return base_url.removesuffix("/bot") + "/file/bot"
    return "https://api.telegram.org/file/bot"
