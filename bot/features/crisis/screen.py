"""The crisis model off the event loop: one worker thread per process, each chat in turn
and the most worrying message first, a time budget per message.

The encoder's work happens in C through ctypes, which lets go of the GIL, so a thread is
enough: the event loop keeps serving while a message is read (a process would add its own
copy of the model's memory). One worker, because the bot shares its cores with the event
loop and the rules.

Under load more messages arrive than the encoder can read (at 500 a second it reads a few
dozen). So messages wait in a priority queue ordered by how worrying the cheap n-gram view
finds them (tens of microseconds on the event loop, once per message: polling takes it
as the message is fetched, `glance`, and hands it to `assess`): "he's coming up the stairs"
is read next, a message about dinner waits. A message whose budget ran out while it waited is
left to the rules, and so, while the queue is long, is one the n-gram view finds plainly
calm (`SHED_BELOW`), rather than read late.

Loading happens once per process, in the worker itself: the lifecycle starts it once the
first getUpdates is on its way (bot/runtime.py), not before, because numpy, the encoder and
the head were about half a second of the first poll (issue 25). A message that comes
before the model is ready waits for the loading (at most LOAD_WAIT) and then has its whole
budget: on a loaded machine the loading alone can take longer than the budget, and the
first messages after a start would otherwise be left to the rules unread, the bot quietly
doing less because the machine is slow. If the package or the head cannot load, one log
line says so and the bot runs on the rules. No text is ever logged here, at any level.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import heapq
import itertools
import logging
import math
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bot.matching.crisis import CrisisMatch
from bot.matching.model_gate import SECOND_OPINION_WAIT

if TYPE_CHECKING:  # numpy and the encoder load after the first poll: `load_model` below
    from bot.matching.crisis_model import CrisisModel, Detect

log = logging.getLogger(__name__)

# How long a message may wait for the model, queue included. Under bench/bench_crisis.py's
# load the reply follows well within this (docs/performance.md); past it the message is left
# to the rules rather than answered late.
BUDGET = 2.0
# How long a message that came before the model was ready waits for its loading, before
# its budget starts. Loading takes 0.5-2 s (docs/performance.md); this bounds a loader that
# hangs, not a slow one.
LOAD_WAIT = 60.0
# While more than BACKLOG messages wait, those whose n-gram logit is below SHED_BELOW are
# left to the rules unread (the n-gram view alone calls them calm by a wide margin).
BACKLOG = 16
SHED_BELOW = -4.0
# An n-gram logit above WORRY_ABOVE starts the model's reading as the message is fetched,
# ahead of the ordinary backlog. On the development sets D1-D3: 96.5% of crisis messages
# and 14.5% of the (mostly hard) calm ones; the encoder then reads them first.
WORRY_ABOVE = -0.5


@dataclass(order=True)
class _Job:
    turn: int  # how many of its chat's messages were waiting when it came: fewest first
    priority: float  # minus the n-gram logit: the most worrying pops first
    order: int
    chat: Hashable = field(compare=False)
    text: str = field(compare=False)
    rules: CrisisMatch | None = field(compare=False)
    deadline: float = field(compare=False)
    loop: asyncio.AbstractEventLoop = field(compare=False)
    future: asyncio.Future[CrisisMatch | None] = field(compare=False)
    second: bool = field(compare=False, default=False)  # a second opinion on the rules'
    detect: Detect | None = field(compare=False, default=None)  # the rules, for `weigh`


class ModelScreen:
    """Reads messages with the model in a worker thread, within a budget. Given `load`
    instead of a model, the worker calls it first (`start`), and the model is None until
    then, or for good if it could not load."""

    def __init__(
        self,
        model: CrisisModel | None = None,
        budget: float = BUDGET,
        *,
        load: Callable[[], CrisisModel | None] | None = None,
    ) -> None:
        self.model = model
        self.budget = budget
        self.second_wait = SECOND_OPINION_WAIT  # how long a rules' reply waits for it
        self._load = load
        self._loaded = threading.Event()  # the model is here, or will never be
        if model is not None or load is None:
            self._loaded.set()
        self.skipped = 0  # messages left to the rules: over budget, shed, or the model failed
        self.read = 0  # messages the model read
        self.lowered = 0  # rules' replies the second opinion took one step down
        self._reading_since: float | None = None  # when the message in hand was taken up
        self._queue: list[_Job] = []
        self._ready = threading.Condition()
        self._order = itertools.count()
        self._waiting: dict[Hashable, int] = {}  # per chat, its messages in the queue
        # Messages waiting for the loading to end: woken on their own loops by the worker.
        self._load_waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._worker: threading.Thread | None = None

    def start(self) -> None:
        """The worker, loading the model first if it has to (once; later calls do nothing)."""
        with self._ready:
            if self._worker is not None:
                return
            self._worker = threading.Thread(target=self._work, name="crisis-model", daemon=True)
        self._worker.start()

    def state(self) -> str:
        """Counts only, never a message's words: for a test's failure report, when a reply
        that should have come did not."""
        since = self._reading_since
        worker = self._worker
        return (
            f"model {'loaded' if self.model is not None else 'absent'}, loading over "
            f"{self._loaded.is_set()}, worker alive {worker is not None and worker.is_alive()}, "
            f"{len(self._queue)} waiting, {self.read} read, {self.skipped} skipped, "
            f"budget {self.budget:.1f} s, reading for "
            f"{'-' if since is None else f'{time.monotonic() - since:.1f} s'}"
        )

    def glance(self, text: str) -> float | None:
        """The cheap n-gram view's logit for the text (`CrisisModel.quick`), None while the
        model is not loaded. Given back to `assess`, it is not computed again there."""
        model = self.model
        return None if model is None else model.quick(text)

    @staticmethod
    def worrying(logit: float) -> bool:
        """Whether a glance finds the text worrying enough to have it read as it is fetched."""
        return logit > WORRY_ABOVE

    @property
    def failed(self) -> bool:
        """The model could not load: every message is the rules' alone."""
        return self._loaded.is_set() and self.model is None

    @property
    def loading(self) -> bool:
        """The worker has started and is loading the model now."""
        return self._worker is not None and not self._loaded.is_set()

    def wait_loaded(self, timeout: float | None = None) -> bool:
        """Blocks (a thread, not the event loop) until loading is over: whether the model
        is there."""
        self._loaded.wait(timeout)
        return self.model is not None

    async def loaded(self) -> bool:
        """Whether the model loaded, once loading is over (starting it if need be)."""
        self.start()
        return await asyncio.to_thread(self.wait_loaded)

    def _work(self) -> None:
        if not self._loaded.is_set() and self._load is not None:
            try:
                self.model = self._load()
            except Exception as exc:  # shared_model logs its own; this is any other loader
                log.warning("crisis model not loaded (%s)", type(exc).__name__)
            self._loaded.set()
            with self._ready:
                waiters, self._load_waiters = self._load_waiters, []
            for loop, waiter in waiters:
                # RuntimeError: that event loop has closed (the bot stopped).
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(_wake, waiter)
        model = self.model
        while True:
            with self._ready:
                while not self._queue:
                    self._ready.wait()
                job = heapq.heappop(self._queue)
                backlog = len(self._queue)
                left = self._waiting.pop(job.chat, 1) - 1
                if left:
                    self._waiting[job.chat] = left
            # A second opinion not given leaves the rules' reply as it is, never none.
            result: CrisisMatch | None = job.rules if job.second else None
            error: Exception | None = None
            late = time.monotonic() > job.deadline
            shed = backlog > BACKLOG and -job.priority < SHED_BELOW
            if model is not None and not late and not shed:
                self._reading_since = time.monotonic()
                try:
                    if job.second and job.rules is not None:
                        result = model.weigh(job.text, job.rules, job.detect)
                    else:
                        result = model.assess(job.text, job.rules)
                except Exception as exc:  # reported on the loop, as a type name
                    error = exc
                finally:
                    self._reading_since = None
                    self.read += 1
            if model is None or late or shed or error is not None:
                self.skipped += 1
            # RuntimeError: that event loop has closed (the bot stopped); nobody waits for it.
            with contextlib.suppress(RuntimeError):
                job.loop.call_soon_threadsafe(_settle, job.future, result, error)

    async def assess(
        self,
        text: str,
        rules: CrisisMatch | None,
        chat: Hashable = None,
        *,
        logit: float | None = None,
    ) -> CrisisMatch | None:
        """The model's match beside the rules' (see CrisisModel.assess), or None when it
        adds nothing, ran over its budget, or failed. `logit`: the text's `glance`, if it
        was taken already (when the message was fetched); it orders the queue."""
        if not self._loaded.is_set() and not await self._until_loaded():
            self.skipped += 1
            return None  # loading hangs: the rules alone
        model = self.model
        if model is None:
            self.skipped += 1
            return None  # it could not load: the rules alone, at once
        loop = asyncio.get_running_loop()
        future: asyncio.Future[CrisisMatch | None] = loop.create_future()
        priority = -(model.quick(text) if logit is None else logit)
        deadline = time.monotonic() + self.budget
        with self._ready:
            turn = self._waiting.get(chat, 0)
            self._waiting[chat] = turn + 1
            job = _Job(turn, priority, next(self._order), chat, text, rules, deadline, loop, future)
            heapq.heappush(self._queue, job)
            self._ready.notify()
        self.start()
        try:
            return await asyncio.wait_for(asyncio.shield(future), self.budget)
        except TimeoutError:
            # Under load this is expected, many times a second: counted, not logged loudly.
            log.debug("crisis model over its budget; rules only for this message")
        except Exception as exc:
            log.warning("crisis model failed: %s", type(exc).__name__)
        return None

    async def second_opinion(
        self,
        text: str,
        rules: CrisisMatch,
        chat: Hashable = None,
        detect: Detect | None = None,
    ) -> CrisisMatch | None:
        """The rules' match as it should go out (CrisisModel.second_opinion): one step down
        where the model reads the text as calm with confidence, None being no reply at all;
        else as it is. It never waits for the loading (the rules' reply then goes out at
        once), and at most `second_wait` for the reading, first in the queue: a reply
        is waiting for it. Most crises are not held at all: the n-gram view, on the loop in
        tens of microseconds, finds them worrying."""
        model = self.model
        if model is None or not model.needs_second_opinion(text):
            return rules
        loop = asyncio.get_running_loop()
        future: asyncio.Future[CrisisMatch | None] = loop.create_future()
        deadline = time.monotonic() + self.second_wait
        with self._ready:
            self._waiting[chat] = self._waiting.get(chat, 0) + 1
            order = next(self._order)
            job = _Job(
                -1, -math.inf, order, chat, text, rules, deadline, loop, future, True, detect
            )
            heapq.heappush(self._queue, job)
            self._ready.notify()
        self.start()
        try:
            weighed = await asyncio.wait_for(asyncio.shield(future), self.second_wait)
        except TimeoutError:
            log.debug("crisis model's second opinion over its wait; the rules' reply stands")
            return rules
        except Exception as exc:
            log.warning("crisis model's second opinion failed: %s", type(exc).__name__)
            return rules
        if weighed is not rules:
            self.lowered += 1
        return weighed

    async def _until_loaded(self) -> bool:
        """Waits (on the event loop, no thread held) until the loading is over, starting it
        if need be; False if it is still going after LOAD_WAIT."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        with self._ready:
            if self._loaded.is_set():
                return True
            self._load_waiters.append((loop, waiter))
        self.start()
        try:
            await asyncio.wait_for(asyncio.shield(waiter), LOAD_WAIT)
        except TimeoutError:
            log.warning("crisis model still loading after %.0f s; rules only meanwhile", LOAD_WAIT)
            return False
        return True


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


def _settle(
    future: asyncio.Future[CrisisMatch | None], result: CrisisMatch | None, error: Exception | None
) -> None:
    if future.done():
        return  # the caller stopped waiting (its budget ran out)
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


_lock = threading.Lock()
_loaded: CrisisModel | None = None
_failed = False


def load_model(head: Path) -> CrisisModel:
    """The model from `head`, importing bot/matching/crisis_model.py (numpy, the encoder)
    here, on first use: the one import the bot defers on purpose for the crisis model
    (tests/unit/test_layering.py's LAZY_ALLOWED names it). Nothing before the first poll
    needs numpy; the worker's loading calls this after it (issue 25)."""
    from bot.matching.crisis_model import load_model as load_numpy_model  # noqa: PLC0415

    return load_numpy_model(head)


def shared_model(head: Path) -> CrisisModel | None:
    """The process's model (`head`: content's crisis_model/head.npz), loaded on first use;
    None (with one log line, once) if it cannot load. Tests and replicas in one process
    share it: it holds no state."""
    global _loaded, _failed  # noqa: PLW0603
    with _lock:
        if _loaded is None and not _failed:
            started = time.perf_counter()
            try:
                _loaded = load_model(head)
            except Exception as exc:
                _failed = True
                log.warning(
                    "crisis model not loaded (%s): the crisis rules run alone",
                    type(exc).__name__,
                )
            else:
                log.info(
                    "crisis model loaded (%s) in %.2f s",
                    _loaded.views,
                    time.perf_counter() - started,
                )
        return _loaded


_screen: ModelScreen | None = None


def shared_screen(head: Path) -> ModelScreen:
    """One worker per process over the shared model, which it loads when started (after
    the first poll: bot/runtime.py), or when the first message comes if earlier."""
    global _screen  # noqa: PLW0603
    with _lock:
        if _screen is None:
            _screen = ModelScreen(load=functools.partial(shared_model, head))
        return _screen
