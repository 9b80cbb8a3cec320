"""Dispatch by prefix: button presses by their callback data, free text by stored state.

Features register their routes when they install; the update router
(bot/features/start/handlers/routing.py) is the entry point in the numbered groups. Callback
data is untrusted input (a client can send any bytes): an unknown prefix gets a kind "that
button has expired", data that does not decode (the feature's codec) does nothing. Each
prefix, of a button or of a stored state, is claimed by one codec: a second claim fails at
start-up (bot/core/prefixes.py).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from telegram import Update

from bot.core.callbacks import CallbackData
from bot.core.prefixes import PrefixRegistry
from bot.core.state import StoredState
from bot.framework.context import Context
from bot.people.service import Person

log = logging.getLogger(__name__)

D = TypeVar("D", bound=CallbackData)
CallbackRoute = Callable[[Update, Context, str], Awaitable[None]]
TextRoute = Callable[[Update, Context, Person, str], Awaitable[None]]
IdleRoute = Callable[[Update, Context, Person, str], Awaitable[bool]]
PayloadRoute = Callable[[Update, Context, Person, str], Awaitable[None]]
EditRoute = Callable[[Update, Context, Person, str], Awaitable[bool]]


class Router:
    def __init__(self) -> None:
        self.codecs: PrefixRegistry[type[CallbackData]] = PrefixRegistry("callback prefix")
        self.callbacks: dict[str, CallbackRoute] = {}
        self.state_kinds: PrefixRegistry[type[StoredState]] = PrefixRegistry("state prefix")
        self.states: dict[str, TextRoute] = {}
        # States whose text is the person's own writing (an answer): kept even when it also
        # triggered the crisis reply. Other states (a typed setting) skip crisis messages.
        self.own_words: set[str] = set()
        # Tried in order for a person with no pending question; the first returning True wins.
        self.idle: list[IdleRoute] = []
        # /start payloads by prefix (deep links such as ws_<id>).
        self.payloads: dict[str, PayloadRoute] = {}
        # Edited messages: each route says whether the edit was one of its stored texts.
        self.edits: list[EditRoute] = []

    def on_start_payload(self, prefix: str, route: PayloadRoute) -> None:
        self.payloads[prefix] = route

    def start_payload(self, payload: str) -> PayloadRoute | None:
        for prefix, route in self.payloads.items():
            if payload.startswith(prefix):
                return route
        return None

    def on_edit(self, route: EditRoute) -> None:
        self.edits.append(route)

    def on_callback(
        self, kind: type[D], route: Callable[[Update, Context, D], Awaitable[None]]
    ) -> None:
        """Buttons whose data is a `kind`; the route gets it decoded, or is not called."""
        self.codecs.add(kind)

        async def run(update: Update, context: Context, rest: str) -> None:
            data = kind.decode(rest)
            if data is not None:
                await route(update, context, data)

        self.callbacks[kind.PREFIX] = run

    def on_state(
        self, kind: type[StoredState], route: TextRoute, *, own_words: bool = False
    ) -> None:
        """Typed text while a person's stored state is a `kind`."""
        self.state_kinds.add(kind)
        self.states[kind.PREFIX] = route
        if own_words:
            self.own_words.add(kind.PREFIX)

    def decode_state(self, state: str) -> StoredState | None:
        """A stored state of any installed feature's kind (None: nothing pending)."""
        kind = self.state_kinds.get(state.partition(":")[0])
        return kind.read(state) if kind is not None else None

    def on_idle_text(self, route: IdleRoute) -> None:
        self.idle.append(route)

    def callback_route(self, data: str) -> tuple[CallbackRoute, str] | None:
        prefix, sep, rest = data.partition(":")
        route = self.callbacks.get(prefix)
        if route is None or not sep:
            return None
        return route, rest

    def state_route(self, state: str, *, crisis: bool = False) -> TextRoute | None:
        prefix = state.partition(":")[0]
        if crisis and prefix not in self.own_words:
            return None
        return self.states.get(prefix)
