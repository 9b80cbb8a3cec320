"""Fetching updates so that no single update can stop the bot.

PTB parses a whole getUpdates batch at once: one update it cannot parse (Bot API drift, a
field this PTB version requires and Telegram stopped sending) makes the batch fail, the
offset never moves, every later update (crisis messages included) waits behind it for
ever, and PTB logs the raw batch at CRITICAL on every retry. Here each update is parsed
on its own; one that fails is skipped, counted and logged by its id and type only, and the
next poll's offset moves past it. Connection errors back off in PTB's retry loop (1 s,
growing to 30 s); nothing here needs its own timer.

Before anything else in a batch is parsed, each raw update is screened (`early`, the
update processor's `screen_raw`: a crisis or panic word, /sos, /help, read from the JSON
without parsing it); those that may be urgent are parsed first and their early path is
started (its task exists before any of the batch's ordinary ones, so it runs first),
whatever backlog of ordinary updates is waiting for slots (issue 25).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from telegram import Update
from telegram._utils.defaultvalue import DEFAULT_NONE
from telegram._utils.types import JSONDict, ODVInput, TimePeriod
from telegram.error import NetworkError
from telegram.ext import ExtBot
from telegram.request import BaseRequest

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
    (a poison update is skipped, not fatal; a crisis word starts its reply at once)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._skip_below = 0  # the next poll's offset is at least this
        self._skipped = 0
        # Set by bot/wiring.py (the update processor): whether a raw update may be urgent, and
        # what starts its early path once parsed.
        self._may_be_urgent: Callable[[object], bool] = lambda raw: False
        self._start_early: Callable[[Update], None] = lambda update: None

    def screen_with(
        self, may_be_urgent: Callable[[object], bool], start_early: Callable[[Update], None]
    ) -> None:
        self._may_be_urgent, self._start_early = may_be_urgent, start_early

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
        # A skipped update at the end of a batch leaves PTB's offset on it; asking from
        # past it confirms it to Telegram, so it is never fetched again.
        if self._skip_below and (offset is None or 0 <= offset < self._skip_below):
            offset = self._skip_below
        return await super().get_updates(
            offset=offset,
            limit=limit,
            timeout=timeout,
            allowed_updates=allowed_updates,
            read_timeout=read_timeout,
            write_timeout=write_timeout,
            connect_timeout=connect_timeout,
            pool_timeout=pool_timeout,
            api_kwargs=api_kwargs,
        )

    async def _post(self, endpoint: str, data: JSONDict | None = None, **kwargs: Any) -> Any:
        result = await super()._post(endpoint, data, **kwargs)
        if endpoint != "getUpdates":
            return result
        if not isinstance(result, list):
            # A TelegramError, so PTB's polling loop backs off (1 s, growing to 30 s) instead
            # of logging the body and asking again at once.
            raise NetworkError("getUpdates returned something other than a list")
        # Their tasks are created now, so they run before any task of this batch's
        # ordinary updates (created later, by PTB, in arrival order); no yield here: under
        # overload one turn of the loop is long, and the next poll must not wait for it.
        return self._screen(result, self._urgent_first(result))

    def _urgent_first(self, batch: list[Any]) -> set[int]:
        """Parse and start the early path of every update in the batch that may be urgent;
        their indexes (they are parsed already)."""
        started: set[int] = set()
        for index, raw in enumerate(batch):
            try:
                if not self._may_be_urgent(raw):
                    continue
                update = Update.de_json(raw, self)
            except Exception:  # noqa: S112 - _screen logs it, by id and type only
                continue
            started.add(index)
            self._start_early(update)
        return started

    def _screen(self, batch: list[Any], parsed: set[int]) -> list[JSONDict]:
        kept: list[JSONDict] = []
        for index, raw in enumerate(batch):
            if index in parsed:
                kept.append(raw)
                continue
            update_id = update_id_of(raw)
            try:
                Update.de_json(raw if update_id is not None else {}, self)
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
                continue
            kept.append(raw)
        return kept


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
