"""The person's-eye DSL: the running bot under test, its settings, and the content loaded
once (the fixtures that build it are in tests/conftest.py)."""

from __future__ import annotations

import asyncio
import base64
import logging
import os
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypeVar

from bot.app import features
from bot.config import Settings
from bot.content.loader import Content, load_content
from bot.core.clock import ManualClock
from bot.emulator import WAIT_SECONDS, BotApiEmulator, SentMessage
from bot.features.checkins.delivery import Dispatcher
from bot.features.checkins.handlers import DailyFeature
from bot.features.record.handlers.record import RecordFeature
from bot.features.record.service import RecordService
from bot.framework.context import Services
from bot.framework.hub import Feature
from bot.framework.offers import Offers
from bot.runtime import Runtime

TOKEN = "123456:TEST-token-abcdefghijklmnopqrstuvw"

USER = 1001

START = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)  # a Monday

# A `python -m bot` process is ready when it first calls the Bot API (tests wait for that
# call); this only ends a start that hangs. Imports, content and migrations took 6.8-13.5 s
# on a loaded 2-core machine.
START_SECONDS = 300.0  # also a first chart: matplotlib imported, or its worker process started

# A test that makes Telegram answer too late gives its bot this HTTP timeout and holds the
# answer for TOO_LATE: the timeout is well above a loaded machine's slowest ordinary answer
# (a bot that gave up on those would retry and send twice), and the held answer well past it.
GIVE_UP = 2.0

TOO_LATE = 2.5 * GIVE_UP

_CONTENT: Content | None = None


def shared_content() -> Content:
    """Content is immutable; loading it once keeps the suite fast."""
    global _CONTENT  # noqa: PLW0603
    if _CONTENT is None:
        _CONTENT = load_content()
    return _CONTENT


def make_settings(data_dir: Path, api_url: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "token": TOKEN,
        "api_url": api_url,
        "data_dir": data_dir,
        "master_key": base64.b64decode(base64.b64encode(os.urandom(32))),
        "log_level": logging.DEBUG,
        # The production default: on a loaded machine an answer may take a second or two,
        # and a bot that gave up sooner would retry and send twice.
        "http_timeout": 10.0,
        # The learned crisis model reads every message; tests that pin what the rules do
        # (and every other feature's) run without it. tests/e2e/test_crisis_model.py and
        # test_crisis_languages.py turn it on.
        "crisis_model": False,
    }
    values.update(overrides)
    return Settings(**values)


def buttons_of(message: SentMessage) -> list[tuple[str, str]]:
    markup = message.reply_markup or {}
    return [
        (b["text"], b.get("callback_data", ""))
        for row in markup.get("inline_keyboard", [])
        for b in row
    ]


F = TypeVar("F")


class BotUnderTest:
    """The running bot plus a person's view of one chat."""

    def __init__(self, emu: BotApiEmulator, settings: Settings, clock: ManualClock) -> None:
        self.emu = emu
        self.settings = settings
        self.clock = clock
        self.runtime: Runtime | None = None
        self._cursor: dict[int, int] = {}
        self.content: Content | None = None  # a test may run edited content
        # One worker thread, started on the first /progress: no process spawned and no
        # matplotlib loaded for the many tests that never draw. A test may ask for the
        # production worker process.
        self.chart_mode: Literal["process", "thread"] = "thread"
        self.features: Callable[[], Sequence[Feature]] = features  # bot/app.py's, or a test's

    @property
    def services(self) -> Services:
        """The shared services (bot/wiring.py's)."""
        assert self.runtime is not None and self.runtime.services is not None
        return self.runtime.services

    @property
    def offers(self) -> Offers:
        """What the features offer each other: the journal, the urge records, ..."""
        assert self.runtime is not None and self.runtime.app is not None
        return self.runtime.app.bot_data.offers

    def feature(self, kind: type[F]) -> F:
        """The installed feature of this class (its own services are on it)."""
        assert self.runtime is not None
        (found,) = [f for f in self.runtime.features if isinstance(f, kind)]
        return found

    @property
    def dispatcher(self) -> Dispatcher:
        """The check-ins' pass (the daily feature's own)."""
        return self.feature(DailyFeature).dispatcher

    @property
    def record(self) -> RecordService:
        return self.feature(RecordFeature).record

    async def start(self) -> None:
        # A short first backoff: retries after injected 5xx/timeouts need not take seconds.
        self.runtime = Runtime(
            self.settings,
            clock=self.clock,
            content=self.content or shared_content(),
            backoff=0.02,
            chart_mode=self.chart_mode,
            features=self.features,
        )
        await self.runtime.start()

    async def stop(self) -> None:
        if self.runtime is not None:
            await self.runtime.stop()
            self.runtime = None

    async def restart(self) -> None:
        await self.settle()
        await self.stop()
        await self.start()

    # --- acting as a person -------------------------------------------------------------

    async def send(self, text: str | None = None, user: int = USER, **kwargs: Any) -> int:
        """Send a message; returns its message id."""
        update = self.emu.user_sends(user, text, **kwargs)
        return int(update["message"]["message_id"])

    async def edit(self, message_id: int, text: str, user: int = USER) -> None:
        self.emu.user_edits(user, message_id, text)

    async def press(
        self,
        message: SentMessage,
        label: str | None = None,
        *,
        data: str | None = None,
        user: int = USER,
    ) -> None:
        if data is None:
            matches = [d for text, d in buttons_of(message) if label is not None and label in text]
            if not matches:
                raise AssertionError(
                    f"no button {label!r} on {message.text!r}: {buttons_of(message)}"
                )
            data = matches[0]
        self.emu.user_presses(user, message.message_id, data)

    # --- reading what the bot did --------------------------------------------------------

    async def next(
        self,
        chat: int = USER,
        *,
        containing: str | None = None,
        predicate: Callable[[SentMessage], bool] | None = None,
        timeout: float = WAIT_SECONDS,
    ) -> SentMessage:
        """The next bot message in this chat after the last one a test read."""
        after = self._cursor.get(chat, 0)

        def wanted(m: SentMessage) -> bool:
            if containing is not None and containing not in (m.text or ""):
                return False
            return predicate is None or predicate(m)

        found = await self.emu.wait_for_message(
            chat, predicate=wanted, timeout=timeout, after=after
        )
        self._cursor[chat] = found.index + 1
        return found

    async def find(
        self, containing: str, chat: int = USER, timeout: float = WAIT_SECONDS
    ) -> SentMessage:
        """Any bot message in this chat, read or not, whose (possibly edited) text matches."""
        return await self.emu.wait_for_message(
            chat, predicate=lambda m: containing in (m.text or ""), timeout=timeout
        )

    def skip_all(self, chat: int = USER) -> None:
        """Mark everything sent so far as read."""
        messages = self.emu.messages_to(chat)
        if messages:
            self._cursor[chat] = messages[-1].index + 1

    async def settle(self, timeout: float = WAIT_SECONDS) -> None:
        """Wait until the bot has fetched and finished every queued update."""
        await self.emu.wait_until_consumed(timeout=timeout)
        runtime = self.runtime
        if runtime is None or runtime.app is None:
            return
        app = runtime.app
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while app.update_queue.qsize() or app.update_processor.current_concurrent_updates:
            if loop.time() > deadline:
                raise TimeoutError("the bot did not finish its updates")
            await asyncio.sleep(0.005)  # yield to the bot's tasks; bounded by the deadline

    async def until(
        self, condition: Callable[[], bool], what: str, timeout: float = WAIT_SECONDS
    ) -> None:
        """Return once `condition()` (about what the emulator holds: the chat, its calls)
        is true: for an outcome the bot may reach after the reply a test waited for, such
        as deletions that run on after a decoy. Only a hung bot reaches `timeout`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not condition():
            if loop.time() > deadline:
                raise TimeoutError(f"{what}: not within {timeout}s")
            await asyncio.sleep(0.01)  # the emulator's state changes as the bot calls it

    def unread(self, chat: int = USER) -> list[SentMessage]:
        after = self._cursor.get(chat, 0)
        return [m for m in self.emu.messages_to(chat) if m.index >= after]

    async def onboard(self, user: int = USER, country: str = "United Kingdom") -> None:
        """Finish /start with buttons: country, no daily prompt, nobody else reads the chat."""
        await self.send("/start", user=user)
        ask = await self.next(user, containing="Which country")
        await self.press(ask, data=f"cty:{_code(country)}", user=user)
        ask_time = await self.next(
            user,
            predicate=lambda m: any(
                q in (m.text or "") for q in ("check-in once a day", "Which time zone")
            ),
        )
        if "Which time zone" in (ask_time.text or ""):
            await self.press(ask_time, data=buttons_of(ask_time)[0][1], user=user)
            ask_time = await self.next(user, containing="check-in once a day")
        await self.press(ask_time, data="time:off", user=user)
        safety = await self.next(user, containing="Could someone else read")
        await self.press(safety, data="safe:no", user=user)
        await self.next(user, containing="All set")
        await self.settle()


def _code(country: str) -> str:
    codes = {
        "United Kingdom": "GB",
        "Germany": "DE",
        "United States": "US",
        "France": "FR",
        "Australia": "AU",
        "Ireland": "IE",
        "India": "IN",
    }
    return codes.get(country, country)
