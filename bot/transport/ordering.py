"""How updates are scheduled: crisis messages first, other chats side by side, each chat in
order.

- PTB's default handles one update at a time, so a crisis message could wait behind
  hundreds of other people's answers. We run updates from different chats concurrently.
- Full concurrency would let two quick messages from one person race (the second part of
  an answer overtaking the first), so each chat has a lock: arrival order within a
  conversation, no head-of-line blocking across people.
- PTB takes every fetched update off its queue at once and parks it on a concurrency
  semaphore, so under load that semaphore's queue is where updates wait. PTB's own
  semaphore (in its final `process_update`) is therefore left wide open. A crisis message
  (the same cheap check the crisis handler makes) gets its reply sent here, before any
  lock or limit; the rest of it (a worksheet answer, say) then waits for its chat's turn
  like any message. A modest limit keeps the event loop responsive.
- The early path runs as soon as an update is seen: polling calls `screen_raw` on each
  fetched update before the batch is parsed (bot/transport/intake.py), the webhook route on its one
  update. Only updates that may be urgent (a crisis or panic word, /sos, /help, or a long
  text not read yet) get a task; the rest cost a few dictionary reads. So a backlog of
  ordinary updates waiting for slots (overload) never stands in front of a crisis reply
  (issue 25).
- Polling admits fetched updates to the handlers as slots free, per chat in arrival order,
  chats in turn (bot/transport/admission.py): under overload the backlog waits there, raw,
  not as tasks on a semaphore, so the event loop's turns stay short and the next getUpdates
  (and the crisis message it may bring) is never stalled behind handling. Past the
  queue's bounds an ordinary update is shed and its chat told to send it again (`shed`).
- Per chat, early crisis replies run one at a time (a lane), so one chat's flood holds at
  most one of the crisis bot's connections, and its 429 pauses only it (the crisis bot's
  send policy pauses per chat). Past `MAX_EARLY_PER_CHAT` replies in flight or waiting,
  that chat's further crisis words coalesce: the reply on its way answers them (issue 27,
  finding 2). Long texts are read off the loop, each chat in turn
  (bot/matching/crisis_screen.py).
- While updates wait for slots or run, the loop's lag is sampled (a timer every `LAG_PROBE`,
  how late it fires) and the slots follow it (admission.py's `TurnGovernor`): a crisis
  message waits for whole turns of the loop (the poll bringing it, its early path's task,
  its send), and each admitted handler lengthens them. Under overload fewer ordinary
  updates run at once and the rest wait as data; the crisis reply keeps its pace.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Hashable
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor

from bot.matching.crisis import CrisisMatch
from bot.matching.crisis_screen import CrisisScreen
from bot.transport.admission import Admission, Admitted, Offer, TurnGovernor

log = logging.getLogger(__name__)

MAX_CONCURRENT_UPDATES = 32
# Early crisis replies of one chat in flight or waiting; past it, its crisis words coalesce.
MAX_EARLY_PER_CHAT = 2
# PTB's semaphore must never be the one updates queue on (see above).
_UNBOUNDED = 1_000_000
_CRISIS_COMMANDS = ("/sos", "/help")
SHED_LOGGED_EVERY = 1000
LAG_PROBE = 0.005  # seconds between samples of the loop's lag, only while updates wait or run

# (update, its match or None for /sos and /help, send): send=False coalesces
EarlyReply = Callable[[Update, CrisisMatch | None, bool], Awaitable[None]]


def raw_private_text(raw: object) -> tuple[int, int, str] | None:
    """(chat id, sender id, text or caption) of a private message or edit in a raw update,
    read without parsing it; None for anything else, however malformed."""
    if not isinstance(raw, dict):
        return None
    message = raw.get("message") or raw.get("edited_message")
    if not isinstance(message, dict):
        return None
    chat, sender = message.get("chat"), message.get("from")
    if not isinstance(chat, dict) or chat.get("type") != "private":
        return None
    text = message.get("text") or message.get("caption")
    chat_id = chat.get("id")
    user_id = sender.get("id") if isinstance(sender, dict) else None
    if not isinstance(text, str) or not text or not isinstance(chat_id, int):
        return None
    return chat_id, user_id if isinstance(user_id, int) else 0, text


def raw_chat_key(raw: object) -> Hashable:
    """The chat a raw update belongs to (PTB's `effective_chat` for the updates we ask
    for), read without parsing it; the update itself when it names none (nothing to keep
    in order with)."""
    if isinstance(raw, dict):
        body = raw.get("message") or raw.get("edited_message")
        query = raw.get("callback_query")
        if body is None and isinstance(query, dict):
            body = query.get("message")
        chat = body.get("chat") if isinstance(body, dict) else None
        chat_id = chat.get("id") if isinstance(chat, dict) else None
        if isinstance(chat_id, int) and not isinstance(chat_id, bool):
            return chat_id
    return ("update", id(raw))


def private_text(update: object) -> tuple[int, int, str] | None:
    """The same for a parsed update. Never raises: an update can lack a chat or a sender
    (Bot API drift), and this runs outside any handler's error handling."""
    if not isinstance(update, Update):
        return None
    message = update.message or update.edited_message
    chat = getattr(message, "chat", None)
    if message is None or chat is None or chat.type != "private":
        return None
    text = message.text or message.caption
    if not text:
        return None
    user = message.from_user
    return chat.id, user.id if user is not None else 0, text


class Seen(Enum):
    """What `screen_raw` found in a fetched update: what to start before it waits."""

    ORDINARY = "ordinary"  # nothing: admitted raw, parsed when its slot frees
    WORRYING = "worrying"  # the crisis model's reading: parse it and `look_now`
    URGENT = "urgent"  # it may be urgent: parse it and `screen` it


@dataclass(frozen=True, slots=True)
class Early:
    panic: bool  # a panic or return word, done
    urgent: bool  # a crisis word, /sos or /help: its reply was attempted


_ORDINARY = Early(panic=False, urgent=False)


@dataclass(slots=True)
class _Lane:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    waiting: int = 0


class CrisisFirstUpdateProcessor(BaseUpdateProcessor):
    def __init__(
        self,
        screen: CrisisScreen,
        max_concurrent_updates: int = MAX_CONCURRENT_UPDATES,
    ) -> None:
        super().__init__(_UNBOUNDED)
        self._slots = asyncio.Semaphore(max_concurrent_updates)
        self._screen = screen
        # Per chat, the updates in arrival order; the first one runs.
        self._turns: dict[int, deque[asyncio.Future[None]]] = {}
        # Set by bot/wiring.py from the features' hooks: sends the crisis reply for an
        # urgent update, with its match, before anything waits (send=False: only notes the
        # match, the chat's reply on its way answers it).
        self.early_reply: EarlyReply | None = None
        # Set the same way: starts the crisis model's reading of a message (in its worker, off
        # the event loop) before the message waits for anything; its reply follows the rules'.
        self.early_look: Callable[[Update], None] | None = None
        # Whether the crisis model's cheap view finds a fetched update's text (by its id)
        # worrying: such a message has the model's reading started when it is fetched, not
        # when its turn comes, so an ordinary backlog cannot outlast its budget (issue 22: at
        # 200 updates/s the model missed 118 of 199 crises only it holds, waiting behind
        # 1,419 ordinary updates). What the view found is kept for that reading, by the id.
        self.model_worry: Callable[[int, str], bool] | None = None
        # Set the same way: the panic word's wipe and decoy, from memory; True if it was one.
        self.early_panic: Callable[[Update], Awaitable[bool]] | None = None
        # Set the same way: whether this sender's text may be their panic or return word
        # (memory only: a pseudonym and a dict lookup).
        self.might_panic: Callable[[int, str], bool] = lambda user_id, text: False
        # Set by app.py: the sender met before their update is handled (their identity
        # into memory: one indexed read for someone not met lately).
        self.meet: Callable[[int], Awaitable[None]] | None = None
        # Webhook mode on PostgreSQL: held around an update's handling, after the crisis
        # reply, so two replicas never change one person's state at once.
        self.chat_guard: Callable[[int], AbstractAsyncContextManager[None]] | None = None
        # Update id -> its early path, started when the update was first seen.
        self._early: dict[int, asyncio.Task[Early]] = {}
        self._lanes: dict[int, _Lane] = {}
        self._ordinary: set[int] = set()  # update ids screened when fetched: nothing urgent
        # Polling's overload queue: raw updates (parsed ones, for those that may be urgent)
        # waiting for a slot; `intake` says how one is parsed and handed to PTB.
        self._admission: Admission[object] = Admission(max_concurrent_updates)
        self._admitted: dict[int, Admitted[object]] = {}  # update id -> its place
        self._governor = TurnGovernor(max_concurrent_updates)
        self._probe: asyncio.TimerHandle | None = None
        self._parse: Callable[[object], Update | None] = lambda raw: None
        self._enqueue: Callable[[Update], None] | None = None
        self._idle = asyncio.Event()
        self._telling: set[asyncio.Task[None]] = set()
        self._shed = 0
        # Set by bot/wiring.py: tells a chat, kindly, that its update was shed (overload)
        # and should be sent again; at most once until the chat's queue drains.
        self.shed: Callable[[Update], Awaitable[None]] | None = None

    # --- the early path ----------------------------------------------------------------

    def _candidate(self, update_id: object, user_id: int, text: str) -> bool:
        if text.startswith(_CRISIS_COMMANDS) or self.might_panic(user_id, text):
            return True
        # A match, or False: a long text the worker has not read yet. Read once per update:
        # polling screens the raw update and then the parsed one.
        found = self._screen.noted(update_id) if isinstance(update_id, int) else False
        if found is False:
            found = self._screen.quick(text)
            if isinstance(update_id, int) and found is not False:
                self._screen.note(update_id, found if isinstance(found, CrisisMatch) else None)
        return found is not None

    def screen_raw(self, raw: object) -> Seen:
        """What a raw update needs started now (see `Seen`). An update not found urgent
        here is not screened again when its turn comes."""
        found = raw_private_text(raw)
        update_id = raw.get("update_id") if isinstance(raw, dict) else None
        if found is not None and self._candidate(update_id, found[1], found[2]):
            return Seen.URGENT
        if not isinstance(update_id, int):
            return Seen.ORDINARY
        self._ordinary.add(update_id)
        worry = self.model_worry
        if found is not None and worry is not None and worry(update_id, found[2]):
            return Seen.WORRYING
        return Seen.ORDINARY

    def look_now(self, update: Update) -> None:
        """Start the model's reading of an update before it waits: as it is fetched (a
        worrying one), or before its chat's turn (`_process`). Once: a second call finds
        it started."""
        if self.early_look is None:
            return
        try:
            self.early_look(update)
        except Exception as exc:  # the rules still answer
            log.warning("crisis model not started: %s", type(exc).__name__)

    def screen(self, update: Update) -> None:
        """Start the early path for this update now, once, if it may need one."""
        if update.update_id in self._early:
            return
        found = private_text(update)
        if found is None or not self._candidate(update.update_id, found[1], found[2]):
            return
        chat_id, _, text = found
        task = asyncio.get_running_loop().create_task(self._early_path(update, chat_id, text))
        self._early[update.update_id] = task

    async def settle_early(self, update_id: int) -> Early:
        """The early path's outcome for this update (awaited), forgotten after."""
        task = self._early.pop(update_id, None)
        return _ORDINARY if task is None else await task

    async def _early_path(self, update: Update, chat_id: int, text: str) -> Early:
        if self.early_panic is not None:
            # Before any lock or slot, like the crisis reply: the screen is being watched.
            try:
                if await self.early_panic(update):
                    return Early(panic=True, urgent=True)
            except Exception as exc:  # the panic group tries again in order
                log.warning("early panic path failed: %s", type(exc).__name__)
        # A panic word is never a crisis word (validated when chosen).
        command = text.startswith(_CRISIS_COMMANDS)
        match = None if command else await self._screen.match_for(update.update_id, text, chat_id)
        urgent = command or match is not None
        if not urgent or self.early_reply is None:
            return Early(panic=False, urgent=urgent)
        lane = self._lanes.setdefault(chat_id, _Lane())
        lane.waiting += 1
        try:
            # The reply goes out now, ahead of everything, even the person's own previous
            # update (which may be waiting out a 429). What the message means otherwise
            # (a worksheet answer, a journal entry) is handled later in the chat's order,
            # so it is filed against the question the person was looking at.
            if lane.waiting > MAX_EARLY_PER_CHAT:
                await self.early_reply(update, match, False)
            else:
                async with lane.lock:
                    await self.early_reply(update, match, True)
        except Exception as exc:  # the crisis group tries again in order
            log.warning("early crisis reply failed: %s", type(exc).__name__)
        finally:
            lane.waiting -= 1
            if not lane.waiting:
                del self._lanes[chat_id]  # idle chats leave no trace
        return Early(panic=False, urgent=True)

    # --- admission (polling) -----------------------------------------------------------

    def intake(
        self, parse: Callable[[object], Update | None], enqueue: Callable[[Update], None]
    ) -> None:
        """How an admitted raw update is parsed (None: it cannot be, skipped and logged) and
        handed to PTB's queue. Set by bot/transport/intake.py when polling."""
        self._parse, self._enqueue = parse, enqueue

    def admit(self, raw: object, update: Update | None) -> None:
        """A fetched update, in arrival order: `update` is given (parsed) when it may be
        urgent, and such an update is never shed. Call `pump` after a batch."""
        outcome = self._admission.offer(
            raw_chat_key(raw), raw if update is None else update, urgent=update is not None
        )
        if outcome is Offer.QUEUED:
            return
        self._shed += 1
        if isinstance(raw, dict) and isinstance(raw.get("update_id"), int):
            self._ordinary.discard(raw["update_id"])
        if self._shed == 1 or not self._shed % SHED_LOGGED_EVERY:  # a flood, not a line each
            # Counts only: never what it said.
            log.warning(
                "overloaded: an update was shed (%d waiting); %d so far",
                self._admission.waiting,
                self._shed,
            )
        if outcome is Offer.SHED_TELL and self.shed is not None:
            parsed = self._parse(raw)
            if parsed is not None:
                task = asyncio.get_running_loop().create_task(self._tell(parsed))
                self._telling.add(task)
                task.add_done_callback(self._telling.discard)

    async def _tell(self, update: Update) -> None:
        if self.shed is None:
            return
        try:
            await self.shed(update)
        except Exception as exc:  # the shed update's count is logged already
            log.warning("overload notice not sent: %s", type(exc).__name__)

    def pump(self) -> None:
        """Hand PTB what may start now."""
        enqueue = self._enqueue
        if enqueue is None:
            return
        while batch := self._admission.take():
            for admitted in batch:
                item = admitted.item
                update = item if isinstance(item, Update) else self._parse(item)
                if update is None:
                    if isinstance(item, dict) and isinstance(item.get("update_id"), int):
                        self._ordinary.discard(item["update_id"])
                    self._admission.done(admitted)
                    continue
                self._admitted[update.update_id] = admitted
                enqueue(update)
        # Slots come back only once nothing waits and nothing runs: a queue that empties
        # while a batch is still running is no sign the loop has caught up, and reopening
        # every slot then lets the next poll start a full burst ahead of a crisis reply.
        if self._admission.waiting or self._admitted:
            self._watch_lag()
            return
        self._admission.slots = self._governor.reset()
        self._idle.set()

    def _watch_lag(self) -> None:
        if self._probe is None:
            loop = asyncio.get_running_loop()
            due = loop.time() + LAG_PROBE
            self._probe = loop.call_at(due, self._sample_lag, loop, due)

    def _sample_lag(self, loop: asyncio.AbstractEventLoop, due: float) -> None:
        """How late this timer fired is how long anything that became ready meanwhile (a
        poll's answer, a crisis reply's task) waited for the loop."""
        self._probe = None
        if self._admission.waiting or self._admitted:
            self._admission.slots = self._governor.sample(loop.time() - due)
        self.pump()  # a slot may have come back; samples on while updates wait or run

    def _release(self, update: object) -> None:
        if not isinstance(update, Update):
            return
        admitted = self._admitted.pop(update.update_id, None)
        if admitted is not None:
            self._admission.done(admitted)
            self.pump()

    async def drain(self) -> None:
        """Return once every fetched update has been handled (or shed, and its chat told):
        polling has stopped, and nothing fetched may be dropped."""
        while self._admitted or self._admission.waiting:
            self._idle.clear()
            await self._idle.wait()
        if self._telling:
            await asyncio.gather(*self._telling, return_exceptions=True)

    @property
    def admission(self) -> Admission[object]:
        """The queue itself (its bounds may be set: a test, a deployment's tuning)."""
        return self._admission

    @property
    def governor(self) -> TurnGovernor:
        """The slots' governor (its count of overloaded samples, its current slots)."""
        return self._governor

    @property
    def shed_updates(self) -> int:
        """Ordinary updates shed under overload, since start."""
        return self._shed

    @property
    def current_concurrent_updates(self) -> int:
        """Updates being processed, and those fetched and waiting to be admitted (what
        "the bot has finished its updates" waits for). An admitted update counts from the
        moment it is handed to PTB, not only once PTB's task for it has started."""
        running = max(super().current_concurrent_updates, len(self._admitted))
        return running + self._admission.waiting

    # --- in order ------------------------------------------------------------------------

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        try:
            await self._process(update, coroutine)
        finally:
            self._release(update)

    async def _process(self, update: object, coroutine: Awaitable[Any]) -> None:
        try:
            chat = update.effective_chat if isinstance(update, Update) else None
        except Exception:  # a malformed update; PTB's handlers will ignore it too
            chat = None
        if chat is None or not isinstance(update, Update):
            if isinstance(update, Update):
                self._ordinary.discard(update.update_id)
                await self.settle_early(update.update_id)
            async with self._slots:
                await coroutine
            return
        # The place in the chat's queue is taken before the first await: PTB starts update
        # tasks in arrival order, so places follow arrival even if the reply below is slow.
        turn = self._take_turn(chat.id)
        try:
            if update.update_id in self._ordinary:
                self._ordinary.discard(update.update_id)
            else:
                self.screen(update)  # a no-op when it was screened when fetched
            early = await self.settle_early(update.update_id)
            if not early.panic:
                # After the rules' reply (sent, or none), before the chat's turn: the model
                # reads while the message waits, and never delays the rules.
                self.look_now(update)
            await turn
            guard = self.chat_guard(chat.id) if self.chat_guard is not None else nullcontext()
            # The chat's turn first, then a slot: a burst from one chat waits without
            # holding slots others need. A crisis message takes none: it must not queue.
            async with guard:
                if early.urgent:
                    await self._meet(update)
                    await coroutine
                else:
                    async with self._slots:
                        await self._meet(update)
                        await coroutine
        finally:
            self._end_turn(chat.id, turn)

    async def _meet(self, update: Update) -> None:
        user = update.effective_user
        if user is None or self.meet is None:
            return
        try:
            await self.meet(user.id)
        except Exception as exc:  # storage down: the handlers' own reads report it
            log.warning("sender not looked up: %s", type(exc).__name__)

    @property
    def waiting_for_slots(self) -> int:
        """Ordinary updates fetched and waiting for a slot (the backlog under overload):
        those not admitted yet, and any waiting on the slots themselves (webhook mode)."""
        waiters = getattr(self._slots, "_waiters", None)
        return self._admission.waiting + (len(waiters) if waiters else 0)

    def _take_turn(self, chat_id: int) -> asyncio.Future[None]:
        queue = self._turns.setdefault(chat_id, deque())
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue.append(turn)
        if len(queue) == 1:
            turn.set_result(None)
        return turn

    def _end_turn(self, chat_id: int, turn: asyncio.Future[None]) -> None:
        queue = self._turns[chat_id]
        was_first = queue[0] is turn
        queue.remove(turn)
        if not queue:
            del self._turns[chat_id]  # idle chats leave no trace
        elif was_first and not queue[0].done():
            # A cancelled waiter's future is done already; its own cleanup passes the turn on.
            queue[0].set_result(None)

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        if self._probe is not None:
            self._probe.cancel()
            self._probe = None
