"""Crisis keywords: the first handler group, on every private message, caption and edit.

The reply goes out before anything touches storage. The country comes from memory; on a
cache miss storage gets LOOKUP_BUDGET seconds, then the numbers of the countries the
person's Telegram language points to are used, with 112 and 911 for anywhere else. The
message is not consumed: a worksheet answer or journal reply that contains a crisis word
is still saved by the later groups, which see `context.crisis`.

Anyone, known or not, can say where they are from the reply (a short list, or a country's
name typed in any of seven languages): the reply comes again with the local lines, the
country is kept in memory at once and stored afterwards, like the onboarding country. After
the numbers, a grounding exercise goes one step at a time and ends with a way back.

Only a tier-1 (certain) match gets the emergency reply; a tier-2 one gets the "Are you safe
right now?" check of bot/features/crisis/handlers/safety_check.py, on the same path. One exception:
a tier-2
text typed while a safety-plan question waits (known from memory, or storage within the
same budget) is an answer that speaks of safety; the check stays back and the worksheet
saves it with a quiet line (bot/features/crisis/held.py). `context.crisis_quiet` says
so; whoever then does not give the quiet line sends the check after all
(`safety_check.ensure_reply`).

The learned model (bot/matching/crisis_model.py) reads every private text the rules did not
answer with certainty, in its worker thread (`look_early`, started before the message waits
for anything). What it finds goes out as soon as it is known, on the same path and with
the same replies, as a check, or as the emergency reply where it is confident and the
message urgent. The rules' reply is never held for it: the model starts after the early
path has answered. A polled message the model's cheap n-gram view finds worrying has its
reading started as it is fetched (`worrying`), ahead of the ordinary backlog; the view's
logit is kept by update id for the reading's place in the model's queue, so it is computed
once per message. The crisis group below waits for the finding up to IN_ORDER_WAIT, so
that the later groups treat the message as the crisis it is; past that the message goes on
and the model's reply, when it comes, follows on its own.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from telegram import Message, Update
from telegram.ext import ApplicationHandlerStop, CommandHandler, MessageHandler, filters

from bot.content.crisis_reply import compose_full_list
from bot.content.texts import guide_text
from bot.core.buttons import Button
from bot.core.recent import Recent
from bot.features.crisis.callbacks import CrisisButton
from bot.features.crisis.handlers import held, safety_check
from bot.features.crisis.handlers.country import (
    ask_country,
    country_chosen,
    maybe_typed_country,
    valid_place,
)
from bot.features.crisis.handlers.send import (
    KINDS,
    country_of,
    likely_countries,
    offer_safety_plan,
    send_crisis_reply,
    send_grounding,
    send_urgent,
)
from bot.features.crisis.held import SAFETY_PLAN
from bot.features.worksheets.prefs import WorksheetPrefs
from bot.features.worksheets.state import answering
from bot.framework.chat import current_person, delete_quietly, is_private
from bot.framework.context import Context, Services
from bot.framework.hub import GROUP_CRISIS, AnyApplication, Hub
from bot.matching.crisis import CrisisKind, CrisisMatch
from bot.matching.model_gate import reads, temper
from bot.people.service import Person
from bot.transport.admission import MAX_WAITING

log = logging.getLogger(__name__)


Early = tuple[CrisisMatch, Message | None, bool]  # the match, the reply, held back (quiet)
# Early replies not yet taken up by the crisis group: each is taken within its update.
EARLY_REMEMBERED = 4096
# The model's readings not yet collected (an update that stopped before the crisis group
# leaves its task here until newer ones push it out).
LOOKS_REMEMBERED = 4096
# How long the message's own handling, in its chat's order, waits for the model's finding.
IN_ORDER_WAIT = 0.5
# The n-gram view's logit of each recent text, taken when it was fetched, for its reading:
# as many as may wait for their turn in the admission queue (past it, computed again).
GLANCES_REMEMBERED = MAX_WAITING


class EarlyReplies:
    """What the update processor's early path did for each recent update, for the crisis
    group to take up in the chat's order (bounded: an update whose group never runs, a
    malformed one, leaves nothing for long)."""

    def __init__(self) -> None:
        self._by_update: Recent[int, Early] = Recent(EARLY_REMEMBERED)
        self._calmed: Recent[int, bool] = Recent(EARLY_REMEMBERED)

    def put(self, update_id: int, early: Early) -> None:
        self._by_update[update_id] = early

    def take(self, update_id: int) -> Early | None:
        return self._by_update.pop(update_id)

    def calmed(self, update_id: int) -> None:
        """The early path sent nothing: the model's second opinion read the rules' check
        as calm (the crisis group must not weigh it again)."""
        self._calmed[update_id] = True

    def was_calmed(self, update_id: int) -> bool:
        return self._calmed.pop(update_id) is not None


# The model's reading of each recent update, started on the early path, for the crisis group
# to collect in the chat's order.
ModelLooks = Recent[int, asyncio.Task[Early | None]]
# The n-gram view's logit of each recent update's text (ModelScreen.glance), by update id.
Glances = Recent[int, float]


def _read_by_model(text: str) -> bool:
    return not text.startswith("/") and reads(text)


def worrying(services: Services, update_id: int, text: str, glances: Glances) -> bool:
    """Whether the model's cheap view finds a fetched text worrying (its reading then starts
    at once); what it found is kept, by the update's id, for that reading's place in the
    model's queue, so the view is computed once per message."""
    screen = services.crisis_model
    if screen is None or not _read_by_model(text):
        return False  # never read: nothing to start, nothing to keep
    logit = screen.glance(text)
    if logit is None:
        return False  # not loaded yet
    glances[update_id] = logit
    return screen.worrying(logit)


def look_early(
    update: Update, application: AnyApplication, looks: ModelLooks, glance: float | None
) -> None:
    """Start the model's reading of a private text (called before the message waits for
    anything). Commands, and messages the rules answer with certainty, are not read.
    `glance`: the text's n-gram logit if it was taken when the message was fetched."""
    if not is_private(update):
        return
    services = Context.from_update(update, application).services
    screen = services.crisis_model
    message = update.effective_message
    if screen is None or message is None or update.update_id in looks:
        return  # started when it was fetched (a worrying message), or nothing to read
    text = message.text or message.caption or ""
    if not _read_by_model(text):
        return
    reply = _model_reply(update, application, text, glance)
    looks[update.update_id] = asyncio.get_running_loop().create_task(reply)


async def _model_reply(
    update: Update, application: AnyApplication, text: str, glance: float | None
) -> Early | None:
    """The model's finding, sent as soon as it is known: a check where the rules found
    nothing, the emergency reply where it is confident and the rules only asked."""
    context = Context.from_update(update, application)
    services = context.services
    screen = services.crisis_model
    if screen is None:
        return None
    chat = update.effective_chat
    # The rules' answer as the early path had it (a long text was read once, off the loop).
    rules = await services.crisis_screen.detect(text, chat.id if chat else None)
    if rules is not None and rules.certain:
        return None
    match = await screen.assess(text, rules, chat.id if chat else None, logit=glance)
    match = temper(match, text, services.content.detector.tempered)
    if match is None:
        return None
    message = update.effective_message
    try:
        sent = await respond(update, context, match, message)
    except Exception as exc:
        log.warning("crisis model reply not sent: %s", type(exc).__name__)
        sent = None
    log.info(
        "crisis model found kind=%s tier=%s update=%s",
        match.kind.value,
        match.tier,
        update.update_id,
    )
    return match, sent, context.crisis_quiet


async def _collect_look(update: Update, looks: ModelLooks) -> Early | None:
    """The model's finding if it comes within IN_ORDER_WAIT: the later groups then treat
    the message as the crisis it is. Past that the message goes on without it (its reply
    still follows when the model has read it): an ordinary message never waits long."""
    task = looks.pop(update.update_id)
    if task is None:
        return None
    try:
        return await asyncio.wait_for(asyncio.shield(task), IN_ORDER_WAIT)
    except TimeoutError:
        return None
    except Exception as exc:
        log.warning("crisis model reading failed: %s", type(exc).__name__)
        return None


async def reply_early(
    update: Update,
    application: AnyApplication,
    match: CrisisMatch | None,
    send: bool,
    replies: EarlyReplies,
) -> None:
    """Called by the update processor for a crisis message before it waits for anything,
    with the match it computed (None: /sos or /help); the crisis group below then finds the
    reply sent (by update id). `send=False`: this chat already has replies on their way (a
    flood of crisis words); only the match is noted, for the later groups, and no further
    reply is sent."""
    if not is_private(update):
        return
    context = Context.from_update(update, application)
    message = update.effective_message
    text = (message.text or message.caption or "") if message is not None else ""
    command = text.split(maxsplit=1)[0].split("@")[0] if text.startswith("/") else ""
    if command in ("/sos", "/help"):
        if send:
            await _sos(update, context, guide=command == "/help")
        general = CrisisMatch(CrisisKind.GENERAL, frozenset())
        replies.put(update.update_id, (general, None, False))
        return
    if match is None or command:
        return
    if not send:
        replies.put(update.update_id, (match, None, False))
        return
    weighed = await _weighed(context, text, match, update)
    if weighed is None:
        replies.calmed(update.update_id)  # the crisis group below sends nothing either
        return
    sent = await respond(update, context, weighed, message)
    replies.put(update.update_id, (match, sent, context.crisis_quiet))


async def on_message(
    update: Update, context: Context, replies: EarlyReplies, looks: ModelLooks
) -> None:
    message = update.effective_message
    if message is None or not is_private(update):
        return
    early = replies.take(update.update_id)
    # What the model found (it read the message while it waited for its turn); it only
    # adds to the rules: a crisis they missed, or the emergency reply where they asked.
    looked = await _collect_look(update, looks)
    if looked is not None:
        early = looked if early is None or looked[0].tier < early[0].tier else early
    if early is not None:
        context.crisis, context.crisis_reply, context.crisis_quiet = early
        if context.crisis_quiet and not await _in_safety_plan(update, context):
            # The early path ran before this chat's earlier updates (a Pause, say): now, in
            # order, the person is somewhere else, so the check goes out after all.
            await safety_check.ensure_reply(update, context)
        return
    text = message.text or message.caption
    if not text or text.startswith("/"):
        return  # commands have their own handlers (/sos and /help show the same lines)
    chat = update.effective_chat
    screen = context.services.crisis_screen
    # Computed once per message: the processor's screen (or the cover's check) noted it.
    match = None
    if not replies.was_calmed(update.update_id):
        match = await screen.match_for(update.update_id, text, chat.id if chat else None)
        match = None if match is None else await _weighed(context, text, match, update)
    if match is None:
        await maybe_typed_country(update, context, text)
        return
    context.crisis = match
    try:
        context.crisis_reply = await respond(update, context, match, message)
    except Exception as exc:
        # Whatever Telegram said, what they wrote must still be saved by the later groups.
        log.warning("crisis reply not sent: %s", type(exc).__name__)


async def _weighed(
    context: Context, text: str, match: CrisisMatch, update: Update
) -> CrisisMatch | None:
    """The rules' match with the model's second opinion (ModelScreen.second_opinion): one
    step down where the model reads the text as calm with confidence (a check instead of
    the emergency reply, no check instead of a check); as it is otherwise, or with no model."""
    screen = context.services.crisis_model
    if screen is None:
        return match
    chat = update.effective_chat
    detect = context.services.content.detector.detect
    weighed = await screen.second_opinion(text, match, chat.id if chat else None, detect)
    if weighed is not match:
        log.info(
            "crisis second opinion: tier %s now %s, update=%s",
            match.tier,
            "-" if weighed is None else weighed.tier,
            update.update_id,
        )
    return weighed


async def respond(
    update: Update, context: Context, match: CrisisMatch, trigger: Message | None
) -> Message | None:
    """The emergency reply when the match is certain, the safety check when it is not
    (unless it is a safety-plan answer: then nothing, and `context.crisis_quiet`)."""
    if match.certain:
        hint = match.kind == CrisisKind.GENERAL
        return await send_crisis_reply(
            update, context, match.kind, trigger, guide_hint=hint, also=match.kinds
        )
    typed = update.message is not None and update.message.text is not None
    if typed and await _in_safety_plan(update, context):
        context.crisis_quiet = True
        return None
    return await safety_check.send_check(update, context, match, trigger)


async def _in_safety_plan(update: Update, context: Context) -> bool:
    """Whether a safety-plan question waits for this person's text, from memory (storage
    gets the crisis path's budget on a miss, as for the country)."""
    user = update.effective_user
    if user is None:
        return False
    person_id = context.services.people.person_id(user.id)
    cache = context.services.crisis_cache
    if not cache.knows(person_id):
        await country_of(context, user.id)  # a load fills the cache, or fails quietly
    return answering(cache.state(person_id)) == SAFETY_PLAN


async def _sos(update: Update, context: Context, *, guide: bool) -> None:
    await send_crisis_reply(update, context, CrisisKind.GENERAL, update.effective_message)
    if guide:
        await send_urgent(update, context, guide_text(context.tx))


async def on_crisis_command(
    update: Update, context: Context, replies: EarlyReplies, *, guide: bool
) -> None:
    if not is_private(update):
        return
    if replies.take(update.update_id) is None:
        await _sos(update, context, guide=guide)
    raise ApplicationHandlerStop


async def on_button(update: Update, context: Context, data: CrisisButton) -> None:
    query = update.callback_query
    chat = update.effective_chat
    user = update.effective_user
    if query is None or chat is None or user is None:
        return
    action, rest = data.action, data.arg
    tx = context.tx
    if action == "more":
        country = await country_of(context, user.id)
        likely = likely_countries(context, user.language_code) if country is None else []
        text = compose_full_list(context.book, country, tx, likely)
        await send_urgent(
            update,
            context,
            text,
            buttons=[[(tx("crisis_help.btn_ground"), CrisisButton("ground", "1").encode())]],
        )
    elif action == "clear":
        ids = [query.message.message_id] if query.message is not None else []
        if data.message_id is not None:
            ids.append(data.message_id)
        await delete_quietly(context, chat.id, ids)
    elif action == "ground":
        await send_grounding(update, context, rest)
    elif action == "where" and rest in KINDS:
        await ask_country(update, context, KINDS[rest])
    elif action == "cty":
        k, _, code = rest.partition(":")
        if k in KINDS and valid_place(context, code):
            await country_chosen(update, context, KINDS[k], code, typed=False)
    elif action == "back":
        person = await current_person(update, context)
        waiting = (
            person is not None and person.profile.part(WorksheetPrefs).active_worksheet is not None
        )
        key = "crisis_help.back_worksheet" if waiting else "crisis_help.back_idle"
        await send_urgent(update, context, tx(key))
    elif action == "plan":
        await offer_safety_plan(update, context)


class CrisisFeature:
    """Crisis words, /sos and /help in the crisis group (-10), before anything can wait on
    storage or a conversation, and `reply_early` in the update processor; the reply's
    buttons; and the reply as other features build on it (`CrisisReply`)."""

    def __init__(self) -> None:
        self.early = EarlyReplies()
        self.looks: ModelLooks = Recent(LOOKS_REMEMBERED)
        self.glances: Glances = Recent(GLANCES_REMEMBERED)

    def install(self, hub: Hub) -> None:
        hub.handle(GROUP_CRISIS, CommandHandler("sos", self.on_sos))
        hub.handle(GROUP_CRISIS, CommandHandler("help", self.on_help))
        hub.handle(GROUP_CRISIS, MessageHandler(filters.UpdateType.MESSAGES, self.answer))
        hub.on_early_crisis(self.reply_early)
        hub.on_early_look(self.look_early, self.worrying)
        hub.router.on_callback(CrisisButton, on_button)
        safety_check.install(hub)
        hub.offers.crisis_reply = self

    async def reply_early(
        self, update: Update, application: AnyApplication, match: CrisisMatch | None, send: bool
    ) -> None:
        await reply_early(update, application, match, send, self.early)

    def look_early(self, update: Update, application: AnyApplication) -> None:
        look_early(update, application, self.looks, self.glances.pop(update.update_id))

    def worrying(self, services: Services, update_id: int, text: str) -> bool:
        return worrying(services, update_id, text, self.glances)

    async def on_sos(self, update: Update, context: Context) -> None:
        await on_crisis_command(update, context, self.early, guide=False)

    async def on_help(self, update: Update, context: Context) -> None:
        await on_crisis_command(update, context, self.early, guide=True)

    # --- CrisisReply (bot/framework/offers.py) ------------------------------------------

    async def answer(self, update: Update, context: Context) -> None:
        await on_message(update, context, self.early, self.looks)

    async def ensure_reply(self, update: Update, context: Context) -> None:
        await safety_check.ensure_reply(update, context)

    async def add_under_reply(
        self, context: Context, person: Person, rows: Sequence[list[Button]], fallback: str
    ) -> None:
        await held.add_under_reply(context, person, rows, fallback)

    async def drop_from_reply(self, message: Message | None, prefix: str) -> None:
        await held.drop_from_reply(message, prefix)

    def keep_row(self, context: Context, message_id: int, *, journal: bool) -> list[Button]:
        return held.keep_row(context, message_id, journal=journal)

    async def journal_reply(
        self, update: Update, context: Context, person: Person, prompt_id: str | None, text: str
    ) -> bool:
        return await held.journal_reply(update, context, person, prompt_id, text)
