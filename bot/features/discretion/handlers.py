"""Discretion under watch: the panic word, the cover, the neutral menu per chat, and the
buttons that take a message out of the chat (docs/discretion.md).

The panic word is checked in the update processor (`early`, before the update waits for
its chat's turn or a slot) and again in the first handler group (`guard`, -20, before the
crisis group's storage use), from memory only. On a match: the cover is entered in memory,
the panic message and everything else Telegram still lets us delete go, the decoy is sent
on the urgent bot, and only then, in the chat's order, is anything written.

In cover the guard answers everything with the decoy, except a crisis word, /sos or /help
(the crisis group answers them: safety outranks the cover) and the crisis reply's own
buttons. /start leaves cover only when no return word is set: with one, a watcher who
taps Start gets the decoy's welcome and learns nothing.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from telegram import BotCommand, BotCommandScopeChat, Message, Update
from telegram.error import TelegramError
from telegram.ext import ApplicationHandlerStop, TypeHandler

from bot.content.panic_word import (
    MAX_CHARS,
    MAX_WORDS,
    MIN_LETTERS,
    WordKind,
    WordProblem,
    could_be_word,
)
from bot.content.panic_word import check_word as check_panic_word
from bot.core.buttons import Rows
from bot.core.recent import Recent
from bot.features.crisis.callbacks import CrisisButton
from bot.features.discretion.build import build
from bot.features.discretion.callbacks import DiscretionButton
from bot.features.discretion.prefs import DiscretionPrefs
from bot.features.discretion.service import Cover, DiscretionService, decoy_language
from bot.features.discretion.state import DiscretionState, discretion_state
from bot.features.discretion.views import discretion_menu, menu_entries
from bot.framework.chat import (
    current_person,
    delete_all,
    delete_and_forget,
    delete_quietly,
    is_private,
    replace_or_say,
    say,
)
from bot.framework.context import Context, Services
from bot.framework.hub import GROUP_PANIC, AnyApplication, Commands, Hub
from bot.people.service import Person, UnreadableDataError

log = logging.getLogger(__name__)

# Seconds the decoy waits for a store that has not answered (not a budget: the read runs
# on and its ids are deleted after the decoy). Load alone never gets near it.
STORE_PATIENCE = 10.0
RETRIES, RETRY_FIRST, RETRY_MOST = 12, 1.0, 60.0  # deletions refused for now, after the decoy
HANDLED_REMEMBERED = 1024  # panic and return words done early, until the guard takes them
_CRISIS_COMMANDS = ("/sos", "/help")


@dataclass(frozen=True)
class Handled:
    kind: WordKind
    deleted: tuple[int, ...]
    stray: bool = False  # a return word typed outside cover: only deleted
    decoy: tuple[int, int] | None = None  # the decoy's id and time, noted again after erase


def _text_of(update: Update) -> tuple[Message, str] | None:
    message = update.message or update.edited_message
    if message is None or message.chat.type != "private":
        return None
    text = message.text or message.caption
    return (message, text) if text else None


def _command(text: str) -> str:
    return (
        text.split(maxsplit=1)[0].split("@", maxsplit=1)[0].lower() if text.startswith("/") else ""
    )


async def _send(context: Context, person_id: str, chat_id: int, text: str) -> Message:
    """Send on the urgent bot (it speaks in cover, outside the rate limiter), no buttons,
    the id noted so the next wipe or /clear takes it too."""
    services = context.services
    sent = await services.urgent_bot.send_message(
        chat_id, text, disable_notification=services.crisis_cache.silent(person_id)
    )
    services.ledger.note(person_id, sent.message_id, int(sent.date.timestamp()))
    return sent


def might_be_word(services: Services, user_id: int, text: str) -> bool:
    """For the update processor: whether a sender's text is their panic or return word,
    from memory (a pseudonym and a dict lookup)."""
    return services.cover.match(services.people.person_id(user_id), text) is not None


class DiscretionFeature:
    # Given at install: the menu it rewrites in neutral wording; the panic-word service.
    commands: Commands
    discretion: DiscretionService

    def __init__(self) -> None:
        # What the early path did for each recent update, for the guard to finish in order.
        self.handled: Recent[int, Handled] = Recent(HANDLED_REMEMBERED)
        self._finishing: set[asyncio.Task[None]] = set()  # wipes still retrying

    def install(self, hub: Hub) -> None:
        hub.profile_record(DiscretionPrefs)
        self.commands = hub.commands
        self.discretion = build(hub.services)
        hub.offers.discretion = self.discretion
        # Panic words and covers into memory before the first update is read.
        hub.on_start(self.discretion.load)
        hub.hooks.settings_rows.append(self.settings_rows)
        hub.router.on_callback(DiscretionButton, self.on_button)
        hub.router.on_state(DiscretionState, self.on_text)
        hub.on_wording_changed(self.apply_menu)
        hub.hooks.after_onboarding.append(self.after_onboarding)
        # A panic word, and everything while in cover, from memory (docs/discretion.md).
        hub.handle(GROUP_PANIC, TypeHandler(Update, self.guard))
        hub.on_early_panic(self.early, might_be_word)

    # --- the panic path ---------------------------------------------------------------

    async def early(self, update: Update, application: AnyApplication) -> bool:
        """The update processor's first look, before any lock or slot: True if this was a
        panic or return word (done here; `guard` finishes it in order)."""
        found = _text_of(update)
        user = update.effective_user
        if found is None or user is None:
            return False
        message, text = found
        services: Services = application.bot_data.services
        person_id = services.people.person_id(user.id)
        kind = services.cover.match(person_id, text)
        if kind is None:
            return False  # everyone without a word pays a pseudonym and a dict miss
        context = Context.from_update(update, application)
        chat_id = message.chat.id
        if kind is WordKind.PANIC:
            language = decoy_language(user.language_code)
            cover = self.discretion.enter_cover(person_id, chat_id, language)
            if cover is None:
                return False
            # Recorded only once the decoy is out: if this fails, the guard does it again.
            deleted, decoy = await self._wipe(context, person_id, cover, message)
            stamp = int(decoy.date.timestamp())
            handled = Handled(kind, deleted, decoy=(decoy.message_id, stamp))
            self.handled[update.update_id] = handled
            log.info("panic word: cover entered")
            return True
        # The return word: out of cover, or (outside cover) only taken out of the chat.
        stray = not services.cover.in_cover(person_id)
        self.handled[update.update_id] = Handled(kind, (message.message_id,), stray)
        services.cover.leave(person_id)
        await delete_quietly(context, chat_id, [message.message_id], bot=services.urgent_bot)
        if not stray:
            await _send(context, person_id, chat_id, context.tx("discretion.cover_ended"))
            log.info("return word: cover ended")
        return True

    async def _wipe(
        self, context: Context, person_id: str, cover: Cover, message: Message
    ) -> tuple[tuple[int, ...], Message]:
        """Everything known goes before the decoy (issue 26): no budget that drops work.
        The stored ids are awaited; only a store that has not answered in STORE_PATIENCE
        lets the decoy go first, and then the read runs on and its ids follow. Deletions
        Telegram could not take for now are retried while the cover holds."""
        services = context.services
        bot, chat_id = services.urgent_bot, cover.chat_id
        # The panic message first: it is on the screen now.
        later = await delete_all(context, chat_id, [message.message_id], bot=bot)
        ids = set(services.ledger.pending(person_id))
        stored = asyncio.ensure_future(self._stored_ids(context, person_id))
        try:
            ids.update(await asyncio.wait_for(asyncio.shield(stored), STORE_PATIENCE))
        except TimeoutError:
            log.warning("panic wipe: stored ids slow; the decoy goes first, the rest follows")
        except Exception as exc:
            log.warning("panic wipe: stored ids not read: %s", type(exc).__name__)
        ids.discard(message.message_id)
        later += await delete_all(context, chat_id, sorted(ids), bot=bot)
        sent = await _send(context, person_id, chat_id, self.discretion.cover_message(cover))
        if later or not stored.done():
            task = asyncio.get_running_loop().create_task(
                self._finish_wipe(context, person_id, chat_id, later, stored, sent.message_id)
            )
            self._finishing.add(task)
            task.add_done_callback(self._finishing.discard)
        return (message.message_id, *sorted(ids)), sent

    async def _finish_wipe(
        self,
        context: Context,
        person_id: str,
        chat_id: int,
        later: list[int],
        stored: asyncio.Future[list[int]],
        decoy_id: int,
    ) -> None:
        """After the decoy: the ids a slow store gave late, and deletions Telegram refused
        for now, retried with growing pauses while this chat stays in cover."""
        services = context.services
        try:
            # Ids from before the decoy only: a chat's message ids grow, and what came after
            # it (the decoy's answers in cover) belongs there.
            late = [i for i in await stored if i < decoy_id]
        except Exception as exc:
            log.warning("panic wipe: stored ids not read: %s", type(exc).__name__)
            late = []
        wanted = sorted({*later, *late})
        pause = RETRY_FIRST
        for _ in range(RETRIES):
            if not wanted or not services.cover.in_cover(person_id):
                return
            wanted = await delete_all(context, chat_id, wanted, bot=services.urgent_bot)
            if wanted:
                await asyncio.sleep(pause)  # Telegram unreachable: try again later
                pause = min(pause * 2, RETRY_MOST)
        if wanted:
            log.warning("panic wipe: %d messages could not be deleted", len(wanted))

    async def _stored_ids(self, context: Context, person_id: str) -> list[int]:
        services = context.services
        return [
            *(await services.ledger.stored(person_id)),
            *(await self.discretion.stored_ids(person_id)),
        ]

    async def guard(self, update: Update, context: Context) -> None:
        """Group -20: finish a panic or return word in the chat's order; in cover, be the
        decoy. Nothing here touches storage for people without a panic word."""
        user = update.effective_user
        if user is None or not is_private(update):
            return
        services = context.services
        person_id = services.people.person_id(user.id)
        handled = self.handled.pop(update.update_id)
        found = _text_of(update)
        if (
            handled is None
            and found is not None
            and services.cover.unsure(person_id)
            and could_be_word(found[1])
        ):
            # Memory cannot rule a word out (its index row lost, or the index unreadable):
            # before any handler can take this text as an answer, the profile decides.
            await self.discretion.recover(person_id)
        if (
            handled is None
            and found is not None
            and services.cover.match(person_id, found[1]) is not None
        ):
            # The processor's early look did not run or failed: do it now.
            await self.early(update, context.application)
            handled = self.handled.pop(update.update_id)
        if handled is not None:
            await self._settle(update, context, person_id, handled)
            raise ApplicationHandlerStop
        if services.cover.in_cover(person_id):
            await self._as_decoy(update, context, person_id)

    async def _settle(
        self, update: Update, context: Context, person_id: str, handled: Handled
    ) -> None:
        services = context.services
        user = update.effective_user
        try:
            person = await services.people.load_by_id(person_id)
        except UnreadableDataError:
            return
        if person is None or user is None:
            return
        await services.ledger.forget(person_id, list(handled.deleted))
        if handled.stray:
            return
        if handled.kind is WordKind.PANIC:
            person.state = ""  # what was on screen is gone; /resume still finds its place
            await self.discretion.store_cover(person)
            armed = services.cover.armed(person_id)
            if armed is not None and armed.erase:
                person = await self.discretion.erase_keeping_cover(person, user.id)
                if handled.decoy is not None:  # the fresh person's chat holds the decoy
                    services.ledger.note(person.person_id, *handled.decoy)
        else:
            await self.discretion.store_cover(person)
        await self.apply_menu(context, person)

    async def _as_decoy(self, update: Update, context: Context, person_id: str) -> None:
        services = context.services
        query = update.callback_query
        if query is not None:
            data = query.data or ""
            crisis = CrisisButton.decode(data.partition(":")[2])
            if data.startswith(f"{CrisisButton.PREFIX}:") and crisis and crisis.action != "plan":
                return  # the crisis reply's own buttons keep working
            try:
                await query.answer()
            except TelegramError as exc:
                log.debug("cover: callback not answered: %s", type(exc).__name__)
            raise ApplicationHandlerStop
        message = update.message
        if message is None:
            raise ApplicationHandlerStop  # edits and the rest: nothing happens
        text = message.text or message.caption or ""
        command = _command(text)
        if command in _CRISIS_COMMANDS:
            return  # the crisis group answers, then stops the update
        screen = services.crisis_screen
        # The match the processor computed for this message (read here if it did not).
        found = None
        if text and not command:
            found = await screen.match_for(update.update_id, text, message.chat.id)
        if found is not None:
            await context.offers.crisis_reply.answer(update, context)
            raise ApplicationHandlerStop
        cover = services.cover.cover(person_id)
        armed = services.cover.armed(person_id)
        if cover is None or armed is None:
            return
        stamp = int(message.date.timestamp())
        services.ledger.note(person_id, message.message_id, stamp)
        if command == "/start" and armed.words.back is None:
            services.cover.leave(person_id)
            await _send(context, person_id, message.chat.id, context.tx("discretion.cover_ended"))
            person = await services.people.load_by_id(person_id)
            if person is not None:
                await self.discretion.store_cover(person)
                await self.apply_menu(context, person)
            raise ApplicationHandlerStop
        if command == "/start":
            answer = self.discretion.welcome(cover)
        else:
            answer = self.discretion.reply(person_id) or self.discretion.welcome(cover)
        await _send(context, person_id, message.chat.id, answer)
        person = await services.people.load_by_id(person_id)
        if person is not None:
            await self.discretion.store_cover(person)
        raise ApplicationHandlerStop

    async def after_onboarding(self, update: Update, context: Context, person: Person) -> bool:
        """In discreet mode the welcome and the onboarding questions go once read: the
        latest message (what was just turned on) stays until the next one arrives."""
        if person.profile.discreet:
            ids = await context.services.ledger.deletable(person.person_id)
            await delete_and_forget(context, person, sorted(ids)[:-1])
        return False

    # --- the menu per chat ------------------------------------------------------------

    async def apply_menu(self, context: Context, person: Person) -> None:
        """Neutral wording (or cover): this chat's "/" menu says nothing a watcher would
        notice. A language chosen in /settings that Telegram would not show them: the menu
        in that language. Otherwise the chat's own menu is removed and the default shows
        (published per language code at start-up)."""
        services = context.services
        locales = services.content.locales
        scope = BotCommandScopeChat(person.chat_id)
        neutral = person.profile.neutral_wording or services.cover.in_cover(person.person_id)
        default = locales.resolve(None, context.telegram_language)
        try:
            if neutral or context.language != default:
                names = [*self.commands.names(), "sos", "help"]
                texts = locales[context.language].texts
                entries = menu_entries(texts, names, neutral=neutral)
                commands = [BotCommand(name, text) for name, text in entries]
                await context.bot.set_my_commands(commands, scope=scope)
            else:
                await context.bot.delete_my_commands(scope=scope)
        except TelegramError as exc:
            log.warning("chat menu not set: %s", type(exc).__name__)

    # --- /settings: choosing the words --------------------------------------------------

    async def settings_rows(self, context: Context, person: Person) -> Rows:
        return [[(context.tx("discretion.btn_settings"), DiscretionButton("menu").encode())]]

    async def show_menu(
        self, update: Update, context: Context, person: Person, note: str | None = None
    ) -> None:
        decoys = context.services.content.decoys
        themes = [(t, decoys.voice(t, "en").label) for t in decoys.theme_ids()]
        text, rows = discretion_menu(context.tx, person.profile, themes, note=note)
        await replace_or_say(context, update, text, person=person, buttons=rows)

    async def on_button(self, update: Update, context: Context, data: DiscretionButton) -> None:
        value = data.value
        person = await current_person(update, context)
        if person is None:
            return
        services = context.services
        tx = context.tx
        if value == "panic" or (
            value == "return" and person.profile.part(DiscretionPrefs).panic_digest
        ):
            word = "panic" if value == "panic" else "return"
            await services.people.set_state(person, DiscretionState(word).encode())
            await replace_or_say(
                context,
                update,
                tx(f"discretion.ask_{word}"),
                person=person,
                buttons=[[(tx("discretion.btn_cancel"), DiscretionButton("menu").encode())]],
            )
            return
        note = None
        if value == "noreturn":
            await self.discretion.set_return_word(person, None)
            note = tx("discretion.return_removed")
        elif value == "off":
            await self.discretion.remove(person)
            note = tx("discretion.removed")
        elif value.startswith("erase:"):
            await self.discretion.choose(person, erase=value == "erase:on")
        elif value.startswith("theme:"):
            await self.discretion.choose(person, theme=value.partition(":")[2])
        if discretion_state(person.state) is not None:
            await services.people.set_state(person, "")
        await self.show_menu(update, context, person, note)

    async def on_text(self, update: Update, context: Context, person: Person, text: str) -> None:
        """A typed panic or return word: out of the chat at once, checked, kept as a hash."""
        services = context.services
        message = update.effective_message
        if message is not None:
            await delete_and_forget(context, person, [message.message_id])
        state = discretion_state(person.state)
        if state is None:
            return
        names = [*self.commands.names(), "sos", "help"]
        problem = check_panic_word(
            text,
            crisis=services.content.detector,
            commands=names,
            common=services.content.common_words,
        )
        is_return = state.word == "return"
        if problem is None and is_return and self.discretion.same_as_panic(person, text):
            problem = WordProblem.SAME_AS_PANIC
        if problem is not None:
            explain = context.tx(
                problem.text_key, min=MIN_LETTERS, max_chars=MAX_CHARS, max_words=MAX_WORDS
            )
            back = [[(context.tx("discretion.btn_cancel"), DiscretionButton("menu").encode())]]
            await say(context, person.chat_id, explain, person=person, buttons=back)
            return
        person.state = ""
        if is_return:
            await self.discretion.set_return_word(person, text)
            note = context.tx("discretion.return_saved")
        else:
            await self.discretion.set_panic_word(person, text)
            note = context.tx("discretion.saved")
        await services.people.set_state(person, "")
        await self.show_menu(update, context, person, note)
