"""The Feature contract and the Hub a feature installs itself into.

A feature is one object, built by bot/app.py with the services it needs, whose `install`
adds everything it offers to the Hub: commands, buttons and text routes (through the
router), repeating jobs, and hooks. app.py then wires the Hub into PTB's numbered groups,
so no feature knows about PTB's Application or about any other feature's wiring.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

from telegram import Update

from bot.core.buttons import Rows
from bot.framework.context import Context
from bot.framework.router import Router
from bot.people.service import Person

Command = Callable[[Update, Context], Coroutine[Any, Any, None]]
ScheduleHook = Callable[[Context, Person], Awaitable[None]]
FinishHook = Callable[[Update, Context, Person], Awaitable[bool]]
RowsHook = Callable[[Context, Person], Awaitable[Rows]]
JobCallback = Callable[[Context], Coroutine[Any, Any, None]]


@dataclass(frozen=True)
class RepeatingJob:
    name: str
    seconds: float
    callback: JobCallback


class Feature(Protocol):
    def install(self, hub: Hub) -> None:
        """Add this feature's commands, routes, jobs and hooks; called once, by app.py."""


class Hub:
    def __init__(self) -> None:
        self.router = Router()
        # (command, callback) in menu order; the menu description is texts "commands.<name>".
        self.commands: list[tuple[str, Command]] = []
        self.jobs: list[RepeatingJob] = []
        self._schedule_changed: list[ScheduleHook] = []
        # Run after onboarding ends (a deep-linked worksheet opens here); True = handled.
        self.after_onboarding: list[FinishHook] = []
        # Extra button rows for the /settings menu (daily prompts: skip today, snooze).
        self.settings_rows: list[RowsHook] = []
        self._wording_changed: list[ScheduleHook] = []

    def command(self, name: str, callback: Command) -> None:
        if any(existing == name for existing, _ in self.commands):
            raise ValueError(f"command /{name} registered twice")
        self.commands.append((name, callback))

    def every(self, name: str, seconds: float, callback: JobCallback) -> None:
        """A repeating job; app.py schedules it (with a misfire grace, coalesced)."""
        if any(job.name == name for job in self.jobs):
            raise ValueError(f"job {name!r} registered twice")
        self.jobs.append(RepeatingJob(name, seconds, callback))

    def on_schedule_changed(self, hook: ScheduleHook) -> None:
        self._schedule_changed.append(hook)

    def on_wording_changed(self, hook: ScheduleHook) -> None:
        self._wording_changed.append(hook)

    async def wording_changed(self, context: Context, person: Person) -> None:
        """Neutral wording turned on or off, or the language changed: the chat's command
        menu follows."""
        for hook in self._wording_changed:
            await hook(context, person)

    async def schedule_changed(self, context: Context, person: Person) -> None:
        """Time, time zone, days, pause or re-activation changed: the one place that says so."""
        for hook in self._schedule_changed:
            await hook(context, person)
