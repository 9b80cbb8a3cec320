"""What one feature offers another: named as a protocol here, below every feature, and
held in one `Offers` object. The offering feature puts its implementation in when it
installs; the feature that uses it reads `context.offers` (or `hub.offers`) when it runs.
That is the one way for a feature to use another, so no feature imports another
feature's handlers and no feature is built with another feature in hand.

Besides the protocols, a feature offers the services others build on (the journal, the
worksheets' answers, the urge records, the panic-word service): built by the offering
feature in its own `build.py`, named here by type only."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from telegram import Message, Update

from bot.core.buttons import Button, Rows
from bot.people.service import Person

if TYPE_CHECKING:  # the context module holds the Offers: only the type is needed here
    from bot.features.checkins.journal import JournalService
    from bot.features.discretion.service import DiscretionService
    from bot.features.urge.service import UrgeService
    from bot.features.worksheets.flow import WorksheetFlow
    from bot.features.worksheets.service import WorksheetService
    from bot.framework.context import Context

T = TypeVar("T")


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


class CrisisReply(Protocol):
    """The crisis feature's reply, as other features build on it: rows added under it
    (keep this answer, this entry, this urge), the held-back check sent after all, a
    journal reply that triggered it, and the crisis group's answer itself (the cover lets
    a crisis word through)."""

    async def answer(self, update: Update, context: Context) -> None: ...

    async def ensure_reply(self, update: Update, context: Context) -> None: ...

    async def add_under_reply(
        self, context: Context, person: Person, rows: Sequence[list[Button]], fallback: str
    ) -> None: ...

    async def drop_from_reply(self, message: Message | None, prefix: str) -> None: ...

    def keep_row(self, context: Context, message_id: int, *, journal: bool) -> list[Button]: ...

    async def journal_reply(
        self, update: Update, context: Context, person: Person, prompt_id: str | None, text: str
    ) -> bool: ...


class Tidying(Protocol):
    """The tidy feature's: messages that leave the chat by themselves, and the buttons
    that take one out."""

    async def remove_soon(
        self, context: Context, person: Person, message: Message | None
    ) -> None: ...

    def remove_unrecorded_soon(
        self, context: Context, chat_id: int, message: Message | None
    ) -> None: ...

    async def remove_later(self, context: Context, person: Person, message: Message) -> None: ...

    def hide_row(self, context: Context) -> Rows: ...

    def export_buttons(self, context: Context, person: Person) -> Rows: ...

    def export_caption(self, context: Context, person: Person, caption: str) -> str: ...


class Exports(Protocol):
    """The export feature's: everything a person wrote, as a file."""

    async def send_export(self, context: Context, person: Person, *, pdf: bool) -> None: ...


class RecordExport(Protocol):
    """The record feature's: the record as its own file (False: nothing to export)."""

    async def send_record_export(self, context: Context, person: Person, *, pdf: bool) -> bool: ...


class Forgetting(Protocol):
    """The forget feature's: the one confirmation for deleting everything, and the offer
    to erase when a person's data no longer opens."""

    async def ask_to_forget(self, update: Update, context: Context, person: Person) -> None: ...

    async def offer_erasure(self, context: Context, chat_id: int) -> None: ...


class WorksheetStep(Protocol):
    """The worksheets feature's: leave the question on screen ("cancel", "stop")."""

    async def pause_step(self, context: Context, person: Person) -> None: ...


class _Offered(Generic[T]):
    """One offer: set once by the feature that makes it, read by the ones that use it."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    def __get__(self, offers: Offers | None, owner: type) -> T:
        if offers is None:
            raise AttributeError(self._name)
        found: T | None = offers._made.get(self._name)
        if found is None:
            raise LookupError(f"no installed feature offers {self._name!r}")
        return found

    def __set__(self, offers: Offers, value: T) -> None:
        if self._name in offers._made:
            raise ValueError(f"{self._name!r} offered twice")
        offers._made[self._name] = value


class Offers:
    """Every offer by name; each is set by exactly one feature's `install`."""

    onboarding: _Offered[Onboarding] = _Offered()
    crisis_reply: _Offered[CrisisReply] = _Offered()
    tidying: _Offered[Tidying] = _Offered()
    exports: _Offered[Exports] = _Offered()
    record_export: _Offered[RecordExport] = _Offered()
    forgetting: _Offered[Forgetting] = _Offered()
    worksheet_step: _Offered[WorksheetStep] = _Offered()
    # The services other features build on, each built by its own feature.
    worksheets: _Offered[WorksheetFlow] = _Offered()  # answering: held answers, damaged rows
    worksheet_answers: _Offered[WorksheetService] = _Offered()  # the stored answers
    journal: _Offered[JournalService] = _Offered()
    urges: _Offered[UrgeService] = _Offered()
    discretion: _Offered[DiscretionService] = _Offered()

    def __init__(self) -> None:
        self._made: dict[str, Any] = {}

    def names(self) -> list[str]:
        """What the installed features offer, in the order they offered it."""
        return list(self._made)
