"""The Feature contract and the Hub a feature installs itself into.

A feature is one object, named in bot/app.py's list and built there with no arguments,
whose `install` adds everything it has to the Hub: its own services, built from the
shared ones (`hub.services`) in its package's one `build.py`; its PTB handlers in the
numbered groups below, commands, buttons and text routes (through the router, which gives
each callback and state prefix to one codec), repeating jobs, start and stop steps, the
update processor's early hooks, and what it offers other features (`hub.offers`,
bot/framework/offers.py). bot/wiring.py then hands the Hub to PTB and the processor, so
the wiring names no feature and no feature knows another's wiring.

What a feature needs from the Hub later, while it runs, it keeps at install as one of the
Hub's narrow parts (`hub.hooks`, `hub.commands`, `hub.router`), never the Hub itself.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from telegram import Update
from telegram.ext import Application, BaseHandler

from bot.content.texts import Tx
from bot.core.buttons import Rows
from bot.core.export_parts import ExportPart
from bot.framework.context import Context, Services
from bot.framework.offers import Offers
from bot.framework.router import Router
from bot.matching.crisis import CrisisMatch
from bot.people.profile import Record, check_record
from bot.people.service import Person

# Handler groups, lowest first. PTB runs at most one handler per group for each update.
GROUP_PANIC = -20
GROUP_CRISIS = -10
GROUP_PRIVATE_ONLY = -5
GROUP_COMMANDS = 0
GROUP_BUTTONS = 10
GROUP_WORDS = 15  # stop, cancel, menu, hi...: before free text goes to a step or the journal
GROUP_TEXT = 20
# After a text was handled: the record's look-back offer (never beside a crisis reply).
GROUP_AFTER_TEXT = 30
GROUP_FALLBACK = 99

AnyApplication = Application[Any, Any, Any, Any, Any, Any]
Handler = BaseHandler[Update, Context, Any]
# The update processor's early path (bot/transport/ordering.py), before any lock or slot:
# the crisis reply for a match the processor computed (None: /sos or /help; send=False:
# only note it, the chat's reply on its way answers it) ...
EarlyCrisis = Callable[[Update, AnyApplication, "CrisisMatch | None", bool], Awaitable[None]]
# ... the learned crisis model's reading, started off the loop (its reply follows the rules') ...
EarlyLook = Callable[[Update, AnyApplication], None]
# ... whether the model's cheap view finds a fetched update's text (by its id) worrying:
# then its reading starts at once, ahead of the ordinary backlog ...
ModelWorry = Callable[[Services, int, str], bool]
# ... the panic word's wipe and decoy (True if it was one) ...
EarlyPanic = Callable[[Update, AnyApplication], Awaitable[bool]]
# ... and, from memory only, whether a sender's text may be their panic or return word.
MightPanic = Callable[[Services, int, str], bool]
ErrorHook = Callable[[object, Context], Coroutine[Any, Any, None]]

Command = Callable[[Update, Context], Coroutine[Any, Any, None]]
ScheduleHook = Callable[[Context, Person], Awaitable[None]]
FinishHook = Callable[[Update, Context, Person], Awaitable[bool]]
RowsHook = Callable[[Context, Person], Awaitable[Rows]]
JobCallback = Callable[[Context], Coroutine[Any, Any, None]]
Lifecycle = Callable[[], Awaitable[object]]
# A feature's own sections of /export (bot/core/export_parts.py): what they hold for a person.
ExportSource = Callable[[Person, Tx], Awaitable[list[ExportPart]]]


@dataclass(frozen=True)
class RepeatingJob:
    name: str
    seconds: float
    callback: JobCallback


class Feature(Protocol):
    def install(self, hub: Hub) -> None:
        """Add everything this feature has (see the module docstring); called once, by
        bot/wiring.py."""


@dataclass
class EarlyHooks:
    """The update processor's hooks, each set by at most one feature."""

    crisis: EarlyCrisis | None = None
    look: EarlyLook | None = None
    worry: ModelWorry | None = None
    panic: EarlyPanic | None = None
    might_panic: MightPanic | None = None


class Commands:
    """The commands every feature registered, in menu order; the menu description is the
    text "commands.<name>"."""

    def __init__(self) -> None:
        self._commands: list[tuple[str, Command]] = []

    def add(self, name: str, callback: Command) -> None:
        if name in self.names():
            raise ValueError(f"command /{name} registered twice")
        self._commands.append((name, callback))

    def names(self) -> list[str]:
        return [name for name, _ in self._commands]

    def __iter__(self) -> Iterator[tuple[str, Command]]:
        return iter(list(self._commands))


class Hooks:
    """What one feature announces and others answer, while the bot runs."""

    def __init__(self) -> None:
        self._schedule_changed: list[ScheduleHook] = []
        self._wording_changed: list[ScheduleHook] = []
        # Run after onboarding ends (a deep-linked worksheet opens here); True = handled.
        self.after_onboarding: list[FinishHook] = []
        # Extra button rows for the /settings menu (daily prompts: skip today, snooze).
        self.settings_rows: list[RowsHook] = []
        # Sections of /export beside the worksheets and the journal (the urge flow's).
        self.export_parts: list[ExportSource] = []

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


class Hub:
    def __init__(self, offers: Offers | None = None, services: Services | None = None) -> None:
        self.offers = offers if offers is not None else Offers()
        self._services = services
        # (group, handler) in install order: within a group, the first to match runs.
        self.handlers: list[tuple[int, Handler]] = []
        self.early = EarlyHooks()
        self.error_handler: ErrorHook | None = None
        self.router = Router()
        self.commands = Commands()
        self.hooks = Hooks()
        self.jobs: list[RepeatingJob] = []
        # Run by the lifecycle (bot/runtime.py): after the application is initialised and
        # before the first update; and at the stop, in reverse order.
        self.starting: list[Lifecycle] = []
        self.stopping: list[Lifecycle] = []
        # The features' own records in the sealed profile (bot/people/profile.py).
        self.records: list[type[Record]] = []

    @property
    def services(self) -> Services:
        """The shared services (bot/wiring.py builds them): what a feature builds its own from."""
        if self._services is None:
            raise LookupError("this hub was made without the shared services")
        return self._services

    def profile_record(self, kind: type[Record]) -> None:
        """A record of the feature's own settings in the person's profile: each save then
        writes it in its part, moved out of the flat layout if it was still there."""
        check_record(kind, self.records)
        self.records.append(kind)

    def handle(self, group: int, handler: Handler) -> None:
        """A PTB handler in one of the groups above (commands go through `command`)."""
        self.handlers.append((group, handler))

    def on_early_crisis(self, hook: EarlyCrisis) -> None:
        if self.early.crisis is not None:
            raise ValueError("early crisis hook set twice")
        self.early.crisis = hook

    def on_early_look(self, hook: EarlyLook, worry: ModelWorry) -> None:
        if self.early.look is not None:
            raise ValueError("early look hook set twice")
        self.early.look, self.early.worry = hook, worry

    def on_early_panic(self, hook: EarlyPanic, might_panic: MightPanic) -> None:
        if self.early.panic is not None:
            raise ValueError("early panic hook set twice")
        self.early.panic, self.early.might_panic = hook, might_panic

    def on_error(self, hook: ErrorHook) -> None:
        if self.error_handler is not None:
            raise ValueError("error handler set twice")
        self.error_handler = hook

    def command(self, name: str, callback: Command) -> None:
        self.commands.add(name, callback)

    def every(self, name: str, seconds: float, callback: JobCallback) -> None:
        """A repeating job; bot/wiring.py schedules it (with a misfire grace, coalesced)."""
        if any(job.name == name for job in self.jobs):
            raise ValueError(f"job {name!r} registered twice")
        self.jobs.append(RepeatingJob(name, seconds, callback))

    def on_start(self, step: Lifecycle) -> None:
        """Something to load before the first update is read (panic words into memory)."""
        self.starting.append(step)

    def on_stop(self, step: Lifecycle) -> None:
        """Something to close when the bot stops (the check-ins' pass)."""
        self.stopping.append(step)

    def on_schedule_changed(self, hook: ScheduleHook) -> None:
        self.hooks.on_schedule_changed(hook)

    def on_wording_changed(self, hook: ScheduleHook) -> None:
        self.hooks.on_wording_changed(hook)
