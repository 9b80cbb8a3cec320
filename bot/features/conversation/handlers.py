"""A conversation with no dead ends: the words people use, the menu, and whatever is not
text (issue 12).

- Group 15 (after the crisis group, before free text by state): a whole message that is one
  of the words in content/texts/conversation.yaml (stop, pause, cancel, back, menu, hi,
  thanks, what can you do, in seven languages), or emoji alone, is answered here and goes
  no further: it is never a worksheet answer, a typed setting or a journal entry. A
  message that triggered the crisis reply is left alone (that reply has its own buttons).
- /stop, /cancel, /menu do what the words do.
- Group 99 (the fallback): photos, voice, files, stickers, locations, contacts, unknown
  commands. Service messages (auto-delete turned on, a pin, a chat background) are not
  answered at all. One kind reply each, saying nothing was kept, with buttons. A feature that
  does keep media in one of its states (the record) answers first, in its own group.
- A stored state this module does not know (another feature's: the record, the urge flow)
  is left to that feature's route, words and all: it knows what "cancel" means there.

Every reply names a next step: a button, or a command.
"""

from __future__ import annotations

from telegram import Message, Update
from telegram.ext import ApplicationHandlerStop, MessageHandler, filters

from bot.content.conversation import LEAVING, Intent, wordless
from bot.core.buttons import Rows
from bot.features.checkins.prefs import CheckinPrefs
from bot.features.conversation.callbacks import MenuButton, StopButton
from bot.features.conversation.views import carry_on_buttons, menu_view, stop_view
from bot.features.setup.state import ONBOARDING, SETUP_STEPS, SetupState
from bot.features.worksheets.prefs import WorksheetPrefs
from bot.features.worksheets.state import WorksheetState
from bot.framework.chat import current_person, remember, replace_or_say, say, tell
from bot.framework.context import Context
from bot.framework.hub import GROUP_FALLBACK, GROUP_WORDS, Commands, Hooks, Hub
from bot.framework.router import Router
from bot.people.service import Person


class ConversationFeature:
    # Given at install: the commands (the menu), the routes (what waits), the hooks.
    commands: Commands
    router: Router
    hooks: Hooks

    def install(self, hub: Hub) -> None:
        self.commands, self.router, self.hooks = hub.commands, hub.router, hub.hooks
        hub.command("menu", self.menu_command)
        # stop, cancel, menu, hi...: before free text goes to a step or the journal.
        hub.handle(
            GROUP_WORDS,
            MessageHandler(
                filters.UpdateType.MESSAGE & filters.TEXT & ~filters.COMMAND, self.on_words
            ),
        )
        hub.handle(
            GROUP_FALLBACK,
            MessageHandler(
                filters.UpdateType.MESSAGE & (filters.COMMAND | ~filters.TEXT), self.on_other
            ),
        )
        hub.command("stop", self.stop_command)
        hub.command("cancel", self.cancel_command)
        hub.router.on_callback(MenuButton, self.on_menu_button)
        hub.router.on_callback(StopButton, self.on_stop_button)

    # --- the words (group 15) -----------------------------------------------------------

    async def on_words(self, update: Update, context: Context) -> None:
        message = update.message
        if message is None or message.text is None or context.crisis is not None:
            return
        text = message.text
        intent = context.services.content.words.intent(text)
        if intent is None and not wordless(text):
            return
        if intent is None and _replies_to_bot(message):
            return  # an emoji sent as a reply to a check-in is the person's answer
        person = await current_person(update, context)
        if person is None:
            return  # not started: free text gets "send /start" from the text group
        state = self.router.decode_state(person.state)
        if person.state and not isinstance(state, WorksheetState | SetupState):
            return  # another feature's state (the record, the urge flow, a panic word): its own
            # route decides
        if intent is None and isinstance(state, WorksheetState):
            return  # an emoji can be an answer to a worksheet question
        await remember(context.services, person, message)
        if not person.active:
            # They came back by writing rather than /start: sends may resume.
            await context.services.people.update_chat(person, message.chat_id)
            await self.hooks.schedule_changed(context, person)
        await self.answer(update, context, person, intent)
        raise ApplicationHandlerStop

    async def answer(
        self, update: Update, context: Context, person: Person, intent: Intent | None
    ) -> None:
        tx = context.tx
        if intent in LEAVING:
            await self._leave(update, context, person, intent)
            return
        lead = {
            Intent.HELLO: "conversation.hello",
            Intent.THANKS: "conversation.thanks",
            Intent.QUESTION: "conversation.question",
            None: "conversation.wordless",
        }.get(intent)
        full = intent in (Intent.MENU, Intent.QUESTION)
        await self.show_menu(context, person, lead=tx(lead) if lead else "", full=full)

    async def _leave(
        self, update: Update, context: Context, person: Person, intent: Intent | None
    ) -> None:
        """Leave what waits for typed text, keeping everything stored; "stop" and "pause"
        then offer to pause or end the check-ins."""
        tx = context.tx
        stopping = intent in (Intent.STOP, Intent.PAUSE)
        state = self.router.decode_state(person.state)
        lead = ""
        if isinstance(state, WorksheetState):
            await context.offers.worksheet_step.pause_step(context, person)
            lead = tx("conversation.left_worksheet")
        elif isinstance(state, SetupState):
            await context.services.people.set_state(person, "")
            if state.mode == ONBOARDING or not person.profile.onboarded:
                step = state.step if state.step in SETUP_STEPS else SETUP_STEPS[0]
                text = tx("conversation.left_onboarding")
                await tell(context, person, text, carry_on_buttons(tx, step))
                return
            await context.offers.onboarding.show_settings(
                update, context, person, lead=tx("conversation.left_settings")
            )
            if not stopping:
                return
        if stopping:
            await self._offer_stop(context, person, lead=lead)
        elif lead:
            await self.show_menu(context, person, lead=lead, full=False)
        else:
            await self.show_menu(context, person, lead=tx("conversation.nothing_to_leave"))

    async def show_menu(
        self, context: Context, person: Person, *, lead: str = "", full: bool = True
    ) -> None:
        text, rows = self.menu(context, person, lead=lead, full=full)
        await tell(context, person, text, rows)

    def menu(
        self, context: Context, person: Person, *, lead: str = "", full: bool = True
    ) -> tuple[str, Rows]:
        tx = context.tx
        state = self.router.decode_state(person.state)
        waiting_ws = (
            person.profile.part(WorksheetPrefs).active_worksheet
            in context.services.content.worksheets
        )
        waiting = ""
        if state is not None:
            waiting = tx("conversation.menu_waiting_step")
        elif waiting_ws:
            waiting = tx("conversation.menu_waiting_worksheet")
        names = set(self.commands.names())
        commands = [c for c in _menu_commands(context) if c in names]
        return menu_view(
            tx,
            commands,
            lead=lead,
            waiting=waiting,
            worksheet_waiting=waiting_ws and not isinstance(state, WorksheetState),
            full=full,
        )

    async def _offer_stop(self, context: Context, person: Person, *, lead: str) -> None:
        p = person.profile.part(CheckinPrefs)
        on = person.profile.onboarded and p.daily_enabled and p.daily_time is not None
        offer = stop_view(context.tx, lead=lead, on=on, paused=on and p.paused)
        if offer is None:
            lead = "\n\n".join(x for x in (lead, context.tx("conversation.stop_nothing")) if x)
            await self.show_menu(context, person, lead=lead, full=False)
            return
        await tell(context, person, *offer)

    # --- commands -----------------------------------------------------------------------

    async def _command(self, update: Update, context: Context, intent: Intent) -> None:
        chat = update.effective_chat
        if chat is None:
            return
        person = await current_person(update, context)
        if person is None:
            await say(context, chat.id, context.tx("start.not_started"))
            return
        await remember(context.services, person, update.effective_message)
        await self.answer(update, context, person, intent)

    async def menu_command(self, update: Update, context: Context) -> None:
        await self._command(update, context, Intent.MENU)

    async def stop_command(self, update: Update, context: Context) -> None:
        await self._command(update, context, Intent.STOP)

    async def cancel_command(self, update: Update, context: Context) -> None:
        await self._command(update, context, Intent.CANCEL)

    # --- buttons ------------------------------------------------------------------------

    async def on_menu_button(self, update: Update, context: Context, data: MenuButton) -> None:
        """A menu button runs its command, as if it had been sent."""
        for name, callback in self.commands:
            if name == data.value:
                await callback(update, context)
                return

    async def on_stop_button(self, update: Update, context: Context, data: StopButton) -> None:
        person = await current_person(update, context)
        if person is None:
            return
        tx = context.tx
        if data.value == "end":
            person.profile.part(CheckinPrefs).daily_enabled = False
            person.profile.part(CheckinPrefs).paused = False
            await context.services.people.save(person)
            await self.hooks.schedule_changed(context, person)
            await replace_or_say(context, update, tx("conversation.ended"), person=person)
        elif data.value == "keep":
            text, rows = self.menu(context, person, lead=tx("conversation.kept"), full=False)
            await replace_or_say(context, update, text, person=person, buttons=rows)
        else:
            step = data.value.removeprefix("carry") or SETUP_STEPS[0]
            if person.profile.onboarded or step not in SETUP_STEPS:
                await self.show_menu(context, person)
                return
            await say(context, person.chat_id, tx("start.resume_setup"), person=person)
            await context.offers.onboarding.ask(update, context, person, step, ONBOARDING)

    # --- not text (group 99) ------------------------------------------------------------

    async def on_other(self, update: Update, context: Context) -> None:
        """Media and unknown commands: nothing kept, a kind word and buttons onward."""
        message = update.message
        chat = update.effective_chat
        if message is None or chat is None or context.crisis is not None:
            return
        if is_service_message(message):
            return
        tx = context.tx
        person = await current_person(update, context)
        if message.text is not None and message.text.startswith("/"):
            lead = tx("conversation.unknown_command")
            full = True
        else:
            lead = tx(f"conversation.media_{_media_kind(message)}")
            full = False
        if person is None:
            await say(context, chat.id, f"{lead}\n\n{tx('start.not_started')}")
            return
        await remember(context.services, person, message)
        await self.show_menu(context, person, lead=lead, full=full)


def is_service_message(message: Message) -> bool:
    """Telegram's notes about the chat itself (an auto-delete timer set, a message pinned,
    a background chosen...) carry no text, caption or attachment. Nobody wrote anything, so
    nothing is answered: turning on auto-delete is a step this bot's people may well take,
    and a reply to it would undo part of what they meant."""
    return message.text is None and message.caption is None and message.effective_attachment is None


def _replies_to_bot(message: Message) -> bool:
    quoted = message.reply_to_message
    return quoted is not None and quoted.from_user is not None and quoted.from_user.is_bot


def _menu_commands(context: Context) -> list[str]:
    names: list[str] = context.services.content.texts.data.get("menu_commands", [])
    return names


def _media_kind(message: Message) -> str:
    if message.photo:
        return "photo"
    if message.video is not None or message.animation is not None:
        return "video"
    if message.voice is not None or message.audio is not None or message.video_note is not None:
        return "voice"
    if message.sticker is not None:
        return "sticker"
    if message.document is not None:
        return "document"
    if message.location is not None or message.venue is not None:
        return "location"
    if message.contact is not None:
        return "contact"
    return "other"
