"""What one feature offers another, named as a protocol here, below every feature: the
feature that uses it names the protocol, app.py hands it the feature that implements it.
So no feature imports another feature's handlers to call it."""

from __future__ import annotations

from typing import Protocol

from telegram import Update

from bot.framework.context import Context
from bot.people.service import Person


class SettingsMenu(Protocol):
    """The /settings panel (the setup feature's): shown from a check-in or the record."""

    async def show_settings(
        self, update: Update, context: Context, person: Person, *, lead: str = ""
    ) -> None: ...


class Onboarding(SettingsMenu, Protocol):
    """Onboarding's steps (the setup feature's): started by /start, resumed, asked again."""

    async def begin(self, update: Update, context: Context, person: Person) -> None: ...

    async def resume(self, update: Update, context: Context, person: Person) -> None: ...

    async def ask(
        self, update: Update, context: Context, person: Person, step: str, mode: str
    ) -> None: ...
