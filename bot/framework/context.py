"""What every handler can reach: the per-update context and the shared services."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from telegram import Message, Update
from telegram.ext import Application, CallbackContext, ExtBot

from bot.config import Settings
from bot.content.crisis_reply import Book
from bot.content.loader import Content
from bot.content.locales import Locale
from bot.content.texts import Tx
from bot.content.worksheet_model import Worksheet
from bot.core import local_format
from bot.core.clock import Clock
from bot.core.recent import Recent
from bot.features.crisis.memory import CrisisCache, CrisisCounter
from bot.features.crisis.screen import ModelScreen
from bot.features.discretion.service import CoverCache
from bot.features.progress.chart import ChartRenderer
from bot.framework.offers import Offers
from bot.matching.crisis import CrisisMatch
from bot.matching.crisis_screen import CrisisScreen
from bot.people.languages import LanguageCache
from bot.people.ledger import MessageLedger
from bot.people.service import PeopleService, Person
from bot.storage.backend import Backend
from bot.storage.keystore import KeyStore
from bot.transport.metrics import Metrics

SAVED_REMEMBERED = 1000  # only the latest matter: errors follow their update closely


@dataclass
class Services:
    """The shared services, built once by bot/wiring.py (the only place, with
    bot/runtime.py, that constructs these): what every handler may call, and what each
    feature builds its own services from in its `build.py` (a feature's services stay on
    the feature; what others use is offered, bot/framework/offers.py). `db` and `keys` are
    here for those builds, the lifecycle and tests; handlers go through the services."""

    settings: Settings
    content: Content
    db: Backend
    keys: KeyStore
    clock: Clock
    people: PeopleService
    ledger: MessageLedger
    languages: LanguageCache
    cover: CoverCache  # the panic words and who is in cover, in memory (never waits)
    # The crisis path's own, which the update processor's early path uses before any
    # feature's handler runs: the country and Silent setting in memory, the detector as
    # the early path runs it, the operator counts.
    crisis_cache: CrisisCache
    crisis_screen: CrisisScreen
    crisis_counter: CrisisCounter
    # The bot every other send goes through (throttled), and whether the application runs.
    main_bot: ExtBot[Any]
    running: Callable[[], bool]
    # A second Bot with its own connection pool and no throttle, for crisis replies only:
    # they must not queue behind daily prompts in the rate limiter or the HTTP pool.
    urgent_bot: ExtBot[Any]
    # Draws /progress off the event loop (a worker process the lifecycle starts and stops).
    chart: ChartRenderer
    # Counts and latencies for GET /metrics (webhook mode serves them); never a person.
    metrics: Metrics = field(default_factory=Metrics)
    # The learned second opinion beside the crisis rules, in its worker; None: rules only
    # (BOT_CRISIS_MODEL=0, or it could not load).
    crisis_model: ModelScreen | None = None

    def tx(self, key: str, **values: object) -> str:
        """The default-language translator, for code with no person (the command menu)."""
        return self.content.texts(key, **values)


class AppData:
    """The application's `bot_data` (PTB makes it from our ContextTypes): what every
    update's context reaches, typed, each memory of past updates bounded. Nothing else is
    kept in it; a feature's own memory of recent updates lives on the feature."""

    def __init__(self) -> None:
        self._services: Services | None = None
        self.offers = Offers()
        # Updates whose words are stored (PTB gives the error handler a fresh context).
        self.saved: Recent[int, None] = Recent(SAVED_REMEMBERED)

    @property
    def services(self) -> Services:
        if self._services is None:
            raise LookupError("the services are not built yet")
        return self._services

    @services.setter
    def services(self, services: Services) -> None:
        self._services = services


class Context(CallbackContext[ExtBot[Any], dict[Any, Any], dict[Any, Any], AppData]):
    """PTB builds one context per update and passes it to every handler group in turn, so
    what the crisis group matched is visible to the groups after it."""

    def __init__(
        self,
        application: Application[Any, Any, Any, Any, Any, Any],
        chat_id: int | None = None,
        user_id: int | None = None,
    ) -> None:
        super().__init__(application, chat_id=chat_id, user_id=user_id)
        self.crisis: CrisisMatch | None = None
        self.crisis_reply: Message | None = None
        # A tier-2 safety-plan answer: the check was held back for the quiet line
        # (bot/features/crisis/handlers/crisis.py, `ensure_reply`).
        self.crisis_quiet = False
        self.telegram_language: str | None = None  # the sender's `language_code`
        self._language: str | None = None  # bound by `bind` once the person is known
        self._country: str | None = None
        self._signals: tuple[str, frozenset[str]] | None = None

    @classmethod
    def from_update(
        cls, update: object, application: Application[Any, Any, Any, Any, Any, Any]
    ) -> Context:
        context = super().from_update(update, application)
        if not isinstance(context, Context):  # PTB builds it from our ContextTypes
            raise TypeError(type(context).__name__)
        if isinstance(update, Update) and update.effective_user is not None:
            context.telegram_language = update.effective_user.language_code
        return context

    def bind(self, person: Person) -> None:
        """The person behind this update is known: speak their stored choice from now on.
        (The in-memory `LanguageCache` already has it: PeopleService told it on load or
        save.)"""
        locales = self.services.content.locales
        self._language = locales.resolve(person.profile.language, self.telegram_language)
        self._country = person.profile.country

    @property
    def language(self) -> str:
        """This update's language: the person's stored choice; else Telegram's
        `language_code` if we serve it; else English."""
        if self._language is not None:
            return self._language
        services = self.services
        stored = None
        if self._user_id is not None:
            stored = services.languages.chosen(services.people.person_id(self._user_id))
        return services.content.locales.resolve(stored, self.telegram_language)

    def phrase_signals(self, text: str) -> frozenset[str]:
        """The phrase signals `text` carries (bot/content/phrases.py), read once for this
        update: the urge offer and the record's look-back both ask of the same words."""
        memo = self._signals
        if memo is not None and memo[0] == text:
            return memo[1]
        found = self.services.content.phrases.detect(text)
        self._signals = (text, found)
        return found

    def note_saved(self, update_id: int) -> None:
        """What the person wrote in this update is stored: if handling fails after this,
        the apology must not ask them to send it again. (PTB gives the error handler a
        fresh context, so this lives in the application's data, by update id.)"""
        self.bot_data.saved[update_id] = None

    def was_saved(self, update_id: int) -> bool:
        return update_id in self.bot_data.saved

    @property
    def book(self) -> Book:
        """The helplines with their hours and notes in this update's language."""
        return self.locale.book

    @property
    def formats(self) -> str:
        """The CLDR locale for dates, times and numbers: the language, narrowed by the
        person's country where CLDR knows the pair ("en_GB", "es_AR")."""
        return local_format.locale_for(self.language, self._country)

    @property
    def locale(self) -> Locale:
        """This update's language in the person's regional variant (European Portuguese in
        Portugal): the country they gave, else the one memory holds for the crisis path
        (never a storage read), else the region of Telegram's `language_code`."""
        services = self.services
        country = self._country
        if country is None and self._user_id is not None:
            country = services.crisis_cache.country(services.people.person_id(self._user_id))
        return services.content.locales.variant(self.language, country, self.telegram_language)

    @property
    def tx(self) -> Tx:
        """This update's translator: every UI text a handler or view shows comes through
        here, so a person's language is chosen in this one place (`language`)."""
        return self.locale.texts

    def local(self, worksheet: Worksheet) -> Worksheet:
        """The worksheet in this update's language: the same ids, sections and questions
        (a translation overlays only strings), so it stands in for the English one anywhere."""
        return self.locale.worksheets.get(worksheet.id, worksheet)

    @property
    def services(self) -> Services:
        return self.bot_data.services

    @property
    def offers(self) -> Offers:
        """What the installed features offer each other (bot/framework/offers.py)."""
        return self.bot_data.offers
