"""`BotApiEmulator`: a local Telegram Bot API for end-to-end tests and the sandbox.

The real python-telegram-bot `Application` talks to it over HTTP (set
``base_url=emulator.base_url``), while the test plays the people on the other side
(`user_sends`, `user_presses`, ...) and reads back what the bot did (`messages_to`,
`wait_for_message`, ...). Everything runs in the caller's event loop.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any, Self

from aiohttp import web

from bot.emulator.faults import FaultKind, FaultPlan
from bot.emulator.methods import BotApi
from bot.emulator.people import ActingAsPeople
from bot.emulator.render import BotProfile
from bot.emulator.server import ApiServer
from bot.emulator.state import (
    EmulatorState,
    MessageListener,
    MessagePredicate,
    SentMessage,
    WebhookConfig,
    commands_key,
)
from bot.emulator.webhook import WebhookPusher

# The default outer bound of every wait_* below: what the bot reports ends a wait, this
# only ends a hung one. On a loaded 2-core machine one reply can take seconds, so it is
# generous; a test that expects nothing to arrive asserts that after an event, not a time.
WAIT_SECONDS = 60.0


def _describe(message: SentMessage) -> str:
    if message.document is not None:
        body = f"[document {message.document.filename!r}]"
    else:
        text = message.text or ""
        body = repr(text if len(text) <= 80 else text[:77] + "...")
    keyboard = (message.reply_markup or {}).get("inline_keyboard")
    if keyboard:
        labels = " | ".join(str(button.get("text")) for row in keyboard for button in row)
        body += f" [buttons: {labels}]"
    flags = " (deleted)" if message.deleted else ""
    return f"  #{message.index} id={message.message_id}{flags}: {body}"


class BotApiEmulator(ActingAsPeople):
    """An in-process Telegram Bot API server.

    `clock` gives unix seconds; it dates messages and decides the 48-hour delete rule.
    `keep_per_chat` bounds the bot messages remembered per chat (older ones are forgotten,
    but `SentMessage.index` and `after` keep counting). `record_calls=False` stops `calls`
    growing during long benchmarks; `stats` always counts.
    """

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.time,
        keep_per_chat: int = 10_000,
        record_calls: bool = True,
        bot_first_name: str = "Steady (emulated)",
        bot_username: str = "steady_emulator_bot",
    ) -> None:
        if keep_per_chat < 1:
            raise ValueError("keep_per_chat must be at least 1")
        self._state = EmulatorState(clock, keep_per_chat, record_calls)
        self._profile = BotProfile(bot_first_name, bot_username)
        self._faults = FaultPlan()
        self._api = BotApi(self._state, self._profile)
        self._server = ApiServer(self._api, self._state, self._faults)
        self._runner: web.AppRunner | None = None
        self._pusher: WebhookPusher | None = None
        self.host = "127.0.0.1"
        self.port = 0
        self.base_url = ""

    # -- lifecycle ----------------------------------------------------------------------

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        if self._runner is not None:
            raise RuntimeError("the emulator is already running")
        self._api.stopping.clear()
        # access_log=None: aiohttp's access log would print the URL, and the URL holds the token.
        runner = web.AppRunner(self._server.application(), access_log=None, shutdown_timeout=2.0)
        await runner.setup()
        try:
            await web.TCPSite(runner, host, port).start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        self.host = host
        self.port = int(runner.addresses[0][1])
        self.base_url = f"http://{host}:{self.port}/bot"

    async def push_webhook(
        self,
        targets: Sequence[str] | None = None,
        *,
        reorder: bool = False,
        duplicate: bool = False,
        seed: int = 0,
    ) -> WebhookPusher:
        """Start posting queued updates as Telegram does once setWebhook was called: to its
        URL, or to `targets` in turn (the emulator as the load balancer too)."""
        config = self._state.webhook
        if config is None:
            raise RuntimeError("the bot has not called setWebhook")
        if self._pusher is not None:
            await self._pusher.stop()
        pusher = WebhookPusher(
            self._state.updates,
            config,
            targets=targets,
            reorder=reorder,
            duplicate=duplicate,
            seed=seed,
        )
        pusher.start()
        self._pusher = pusher
        return pusher

    def set_webhook(self, url: str, secret: str | None) -> None:
        """What a setWebhook call records, for tests that start pushing without the bot."""
        self._state.webhook = WebhookConfig(url, secret)

    @property
    def webhook(self) -> WebhookConfig | None:
        return self._state.webhook

    async def stop(self) -> None:
        if self._pusher is not None:
            await self._pusher.stop()
            self._pusher = None
        runner, self._runner = self._runner, None
        if runner is None:
            return
        self._api.stop_waiting()
        await runner.cleanup()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()

    # -- acting as people ---------------------------------------------------------------

    # -- reading what the bot did -------------------------------------------------------

    def messages_to(self, chat_id: int) -> list[SentMessage]:
        """The bot's messages to the chat, oldest first, deleted ones included (bounded by
        `keep_per_chat`)."""
        log = self._state.chats.get(chat_id)
        return list(log.bot_messages) if log is not None else []

    def sent_count(self, chat_id: int) -> int:
        """How many messages the bot ever sent to the chat: pass it as `after` to wait for
        the next one."""
        log = self._state.chats.get(chat_id)
        return log.sent_count if log is not None else 0

    def visible_ids(self, chat_id: int) -> list[int]:
        """Ids of the messages still in the chat, both directions, oldest first (bounded by
        `keep_per_chat`): what someone scrolling the chat would see."""
        log = self._state.chats.get(chat_id)
        if log is None:
            return []
        return [m.message_id for m in log.by_id.values() if not m.deleted]

    def deleted_ids(self, chat_id: int) -> set[int]:
        """Ids the bot deleted in the chat, its own messages and the person's."""
        log = self._state.chats.get(chat_id)
        return set(log.deleted_ids) if log is not None else set()

    async def wait_for_message(
        self,
        chat_id: int,
        *,
        predicate: MessagePredicate | None = None,
        # A plain argument rather than asyncio.timeout() around the call: the deadline is
        # part of the report this method raises.
        timeout: float = WAIT_SECONDS,  # noqa: ASYNC109
        after: int = 0,
    ) -> SentMessage:
        """The first bot message to the chat at index >= `after` that matches `predicate`,
        now or once it is sent or edited. Deleted messages count: they were sent."""
        watch = self._state.watch(chat_id, after, predicate)
        try:
            async with asyncio.timeout(timeout):
                return await watch.future
        except TimeoutError:
            raise TimeoutError(self._timeout_report(chat_id, timeout, after)) from None
        finally:
            self._state.unwatch(chat_id, watch)

    def add_listener(self, listener: MessageListener) -> Callable[[], None]:
        """Call `listener(message, event)` whenever the bot sends ("sent"), edits ("edited")
        or deletes ("deleted") a message, in any chat; returns a function that removes it.
        For the sandbox's live view; an exception it raises lands in `internal_errors`."""
        self._state.listeners.append(listener)

        def remove() -> None:
            if listener in self._state.listeners:
                self._state.listeners.remove(listener)

        return remove

    def _timeout_report(self, chat_id: int, timeout: float, after: int) -> str:
        sent = self.messages_to(chat_id)
        lines = [_describe(message) for message in sent[-10:]] or ["  (nothing)"]
        return (
            f"no bot message to chat {chat_id} at index >= {after} matched within {timeout}s;"
            f" {self.sent_count(chat_id)} sent, the last ones:\n" + "\n".join(lines)
        )

    async def wait_for_call(
        self,
        method: str,
        *,
        count: int = 1,
        # named in the report, like wait_for_message
        timeout: float = WAIT_SECONDS,  # noqa: ASYNC109
    ) -> None:
        """Return once `method` (as the client spells it) has been called `count` times in
        all, answered or not yet: e.g. to know a long poll has reached the server."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self._state.stats[method] < count:
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(
                    f"{method} called {self._state.stats[method]} times, not {count},"
                    f" within {timeout}s"
                )
            await self._state.calls_changed.wait(remaining)

    @property
    def callback_answers(self) -> list[dict[str, Any]]:
        """answerCallbackQuery calls: callback_query_id, text, show_alert, url, cache_time,
        and the chat_id, message_id and user_id of the press."""
        return self._state.callback_answers

    @property
    def commands(self) -> list[dict[str, Any]]:
        """The latest setMyCommands list, whatever its scope or language."""
        return self._state.commands

    def commands_for(
        self, scope: dict[str, Any] | None = None, language_code: str = ""
    ) -> list[dict[str, Any]]:
        """The commands set for exactly this scope (default: all private chats) and language,
        as getMyCommands would answer."""
        key = commands_key(scope, language_code)
        return list(self._state.commands_by_scope.get(key, []))

    def description(self, language_code: str = "") -> str | None:
        """What setMyDescription stored for exactly this language ("" = the default)."""
        return self._state.descriptions.get(language_code)

    def short_description(self, language_code: str = "") -> str | None:
        return self._state.short_descriptions.get(language_code)

    @property
    def calls(self) -> list[tuple[str, dict[str, Any]]]:
        """Every call as (method name as sent, decoded params); an upload appears as
        {"filename", "size"}. Faulted calls are included: they were made."""
        return self._state.calls

    @property
    def stats(self) -> Counter[str]:
        return self._state.stats

    @property
    def messages_total(self) -> int:
        """Bot messages sent since start, across chats; not reset by `clear_messages`."""
        return self._state.messages_total

    @property
    def internal_errors(self) -> list[BaseException]:
        """Bugs in the emulator itself (answered as 500); a test may assert it is empty."""
        return self._state.internal_errors

    def clear_messages(self) -> None:
        """Forget stored messages, calls and callback answers (for benchmarks); chats,
        people, counters and pending updates stay."""
        self._state.clear_messages()

    # -- updates ------------------------------------------------------------------------

    def pending_updates(self) -> int:
        """Updates queued and not yet confirmed by a getUpdates offset."""
        return len(self._state.updates)

    async def wait_until_consumed(self, timeout: float = WAIT_SECONDS) -> None:  # noqa: ASYNC109
        """Return once every queued update is confirmed, i.e. the bot has fetched it and
        asked for the ones after it. Its handler may still be running."""
        updates = self._state.updates
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while len(updates):
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(
                    f"updates {updates.pending_ids()} not consumed within {timeout}s;"
                    " is the bot polling?"
                )
            await updates.changed.wait(remaining)

    # -- faults -------------------------------------------------------------------------

    def inject_fault(
        self,
        method: str,
        kind: FaultKind,
        *,
        times: int = 1,
        chat_id: int | None = None,
        retry_after: int = 1,
        delay: float = 0.0,
    ) -> None:
        """Make the next `times` calls of `method` (only those to `chat_id`, if given) fail.

        "429" answers Too Many Requests with parameters.retry_after, "500" Internal Server
        Error, "403" bot blocked, "400" a generic Bad Request, "401" Unauthorized (a token
        Telegram refuses): none of these perform the
        call, so nothing is sent. "timeout" holds the answer back for `delay` seconds and
        then performs the call normally, so the message IS recorded even though the
        client gave up: Telegram may deliver a message whose answer never arrived.
        """
        if self._api.handler(method) is None:
            # A typo here would make a fault test pass without anything failing.
            raise ValueError(f"the emulator does not implement {method!r}")
        self._faults.add(
            method, kind, times=times, chat_id=chat_id, retry_after=retry_after, delay=delay
        )

    def clear_faults(self) -> None:
        self._faults.clear()

    def block(self, user_id: int) -> None:
        """Until `unblock`, every call aimed at this person's chat answers 403."""
        self._state.blocked.add(user_id)

    def unblock(self, user_id: int) -> None:
        self._state.blocked.discard(user_id)
