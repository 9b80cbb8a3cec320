"""The crisis model off the event loop: one worker thread per process, a time budget per
message.

The encoder's work happens in C through ctypes, which lets go of the GIL, so a thread is
enough: the event loop keeps serving while a message is read (a process would add its own
copy of the model's memory). One worker, because the bot shares its cores with the event
loop and the rules; messages queue for it, and one whose budget ran out while it waited is
skipped rather than read late (the rules' reply, if any, went out already).

Loading happens once per process (bot/app.py asks for it at start-up); if the package or
the head cannot load, one log line says so and the bot runs on the rules. No text is ever
logged here, at any level.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bot.services.crisis import CrisisMatch
from bot.services.crisis_model import CrisisModel, load_model

log = logging.getLogger(__name__)

# How long a message may wait for the model, queue included. Under bench/bench_crisis.py's
# load the reply follows well within this (docs/performance.md); past it the message is left
# to the rules rather than answered late.
BUDGET = 2.0


class ModelScreen:
    """Reads messages with the model in a worker thread, within a budget."""

    def __init__(self, model: CrisisModel, budget: float = BUDGET) -> None:
        self.model = model
        self.budget = budget
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="crisis-model")
        self.skipped = 0  # messages left to the rules: over budget, or the model failed

    def _run(self, text: str, rules: CrisisMatch | None, deadline: float) -> CrisisMatch | None:
        if time.monotonic() > deadline:
            return None  # waited out its budget in the queue: the rules stand alone
        return self.model.assess(text, rules)

    async def assess(self, text: str, rules: CrisisMatch | None) -> CrisisMatch | None:
        """The model's match beside the rules' (see CrisisModel.assess), or None when it
        adds nothing, ran over its budget, or failed."""
        deadline = time.monotonic() + self.budget
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._pool, self._run, text, rules, deadline)
        try:
            return await asyncio.wait_for(future, self.budget)
        except TimeoutError:
            self.skipped += 1
            log.warning("crisis model over its budget; rules only for this message")
        except Exception as exc:
            self.skipped += 1
            log.warning("crisis model failed: %s", type(exc).__name__)
        return None

    def assess_now(self, text: str, rules: CrisisMatch | None) -> CrisisMatch | None:
        """The same, in the caller's thread (the evaluation command)."""
        return self.model.assess(text, rules)


_lock = threading.Lock()
_loaded: CrisisModel | None = None
_failed = False


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


def shared_screen(head: Path) -> ModelScreen | None:
    """One worker per process over the shared model."""
    global _screen  # noqa: PLW0603
    model = shared_model(head)
    if model is None:
        return None
    with _lock:
        if _screen is None:
            _screen = ModelScreen(model)
        return _screen
