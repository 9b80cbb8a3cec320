"""Crisis keywords: the first handler group, on every private message, caption and edit.

The reply goes out before anything touches storage. The country comes from memory; on a
cache miss storage gets LOOKUP_BUDGET seconds, then the main regions' emergency numbers are
used. The message is not consumed: a worksheet answer or journal reply that contains a
crisis word is still saved by the later groups, which see `context.crisis`.

Anyone, known or not, can say where they are from the reply (a short list, or a country's
name typed in any of seven languages): the reply comes again with the local lines, the
country is kept in memory at once and stored afterwards, like the onboarding country. After
the numbers, a grounding exercise goes one step at a time and ends with a way back.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

from telegram import Message, Update
from telegram.ext import ApplicationHandlerStop

from bot.context import Context
from bot.core.callbacks import CrisisButton, WorksheetButton
from bot.core.hub import Hub
from bot.handlers.common import Button, current_person, delete_quietly, is_private, say
from bot.services.crisis import CrisisKind, CrisisMatch
from bot.services.crisis_reply import (
    compose_full_list,
    compose_reply,
    grounding_steps,
    needs_nation,
)
from bot.services.helplines import parts_of
from bot.services.places import name_in

log = logging.getLogger(__name__)

LOOKUP_BUDGET = 0.3  # seconds the reply may wait for a country not yet in memory
STORE_BUDGET = 5.0  # seconds to store a chosen country, after the reply has gone out
AWAIT_SECONDS = 600  # how long a typed country is expected after "Set my country"
SHORTLIST_SIZE = 9  # three rows of three; typing a name covers every other country
SAFETY_PLAN = "safety_plan"
# Short codes for the kind in callback data (64 bytes at most).
_KIND_CODES = {
    CrisisKind.DANGER: "d",
    CrisisKind.SELF_HARM: "s",
    CrisisKind.SEXUAL_VIOLENCE: "v",
    CrisisKind.GENERAL: "g",
}
_KINDS = {code: kind for kind, code in _KIND_CODES.items()}
AWAIT_KEY = "steady.crisis.awaiting_country"


async def country_of(context: Context, user_id: int) -> str | None:
    people, cache = context.services.people, context.services.crisis_cache
    person_id = people.person_id(user_id)
    if cache.knows(person_id):
        return cache.country(person_id)
    try:
        person = await asyncio.wait_for(people.load_by_id(person_id), LOOKUP_BUDGET)
    except Exception as exc:  # storage down or slow: the reply must still go out
        log.warning("crisis country lookup failed: %s", type(exc).__name__)
        return None
    if person is None:
        return None
    context.bind(person)
    return person.profile.country


def crisis_buttons(
    context: Context,
    country: str | None,
    trigger_id: int | None,
    kind: CrisisKind = CrisisKind.GENERAL,
) -> list[list[Button]]:
    tx = context.tx
    k = _KIND_CODES[kind]
    rows: list[list[Button]] = [[(tx("crisis_help.btn_lines"), CrisisButton("more", k).encode())]]
    if trigger_id is not None:
        rows.append(
            [(tx("crisis_help.btn_clear"), CrisisButton("clear", str(trigger_id)).encode())]
        )
    book = context.services.content.crisis_book
    if country is None:
        rows.append([(tx("crisis_help.btn_country"), CrisisButton("where", k).encode())])
    elif needs_nation(book, country):
        parts: list[Button] = [
            (part.name, CrisisButton("cty", f"{k}:{part.code}").encode())
            for part in parts_of(book.helplines, country)
        ]
        rows += [parts[i : i + 2] for i in range(0, len(parts), 2)]
    rows.append([(tx("crisis_help.btn_ground"), CrisisButton("ground", "1").encode())])
    return rows


async def send_urgent(
    update: Update,
    context: Context,
    text: str,
    *,
    buttons: list[list[Button]] | None = None,
    trigger: Message | None = None,
) -> Message | None:
    """Send on the crisis path: own connection pool, no throttle, no storage before it.
    Respects the person's Silent setting (a phone that rings can be dangerous) and notes
    the ids (never the text) of both messages for /clear."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return None
    people = context.services.people
    person_id = people.person_id(user.id)
    sent = await say(
        context,
        chat.id,
        text,
        buttons=buttons,
        bot=context.services.urgent_bot,
        silent=context.services.crisis_cache.silent(person_id),
    )
    for message in (trigger, sent):
        if message is not None:
            ledger = context.services.ledger
            ledger.note(person_id, message.message_id, int(message.date.timestamp()))
    return sent


async def send_crisis_reply(
    update: Update,
    context: Context,
    kind: CrisisKind,
    trigger: Message | None,
    *,
    guide_hint: bool = False,
) -> Message | None:
    user = update.effective_user
    if user is None:
        return None
    country = await country_of(context, user.id)
    text = _reply_text(context, kind, country, guide_hint=guide_hint)
    trigger_id = trigger.message_id if trigger is not None else None
    sent = await send_urgent(
        update,
        context,
        text,
        buttons=crisis_buttons(context, country, trigger_id, kind),
        trigger=trigger,
    )
    log.info("crisis reply sent kind=%s update=%s", kind.value, update.update_id)
    if context.application.running:
        context.application.create_task(_count(context, kind), update=update)
    return sent


def _reply_text(
    context: Context, kind: CrisisKind, country: str | None, *, guide_hint: bool = False
) -> str:
    content = context.services.content
    label = name_in(country, content.helplines, context.language) if country else None
    return compose_reply(
        kind,
        content.crisis_book,
        country,
        context.tx,
        country_label=label,
        guide_hint=guide_hint,
    )


async def _count(context: Context, kind: CrisisKind) -> None:
    # Operator statistics only: a day and a kind, never a person or their words.
    try:
        day = context.services.clock().date().isoformat()
        await context.services.crisis_counter.count(day, kind.value)
    except Exception as exc:
        log.warning("crisis count not stored: %s", type(exc).__name__)


EARLY_KEY = "steady.crisis.early"
Early = tuple[CrisisMatch, Message | None]


def _early(application: Any) -> dict[int, Early]:
    found: dict[int, Early] = application.bot_data.setdefault(EARLY_KEY, {})
    return found


async def reply_early(update: Update, application: Any) -> None:
    """Called by the update processor for a crisis message before it waits for anything;
    the crisis group below then finds the reply sent (keyed by update id)."""
    if not is_private(update):
        return
    context = Context.from_update(update, application)
    message = update.effective_message
    text = (message.text or message.caption or "") if message is not None else ""
    command = text.split(maxsplit=1)[0].split("@")[0] if text.startswith("/") else ""
    if command in ("/sos", "/help"):
        await _sos(update, context, guide=command == "/help")
        _early(application)[update.update_id] = (CrisisMatch(CrisisKind.GENERAL, frozenset()), None)
        return
    match = context.services.content.detector.detect(text) if text else None
    if match is None or command:
        return
    hint = match.kind == CrisisKind.GENERAL
    sent = await send_crisis_reply(update, context, match.kind, message, guide_hint=hint)
    _early(application)[update.update_id] = (match, sent)


async def on_message(update: Update, context: Context) -> None:
    message = update.effective_message
    if message is None or not is_private(update):
        return
    early = _early(context.application).pop(update.update_id, None)
    if early is not None:
        context.crisis, context.crisis_reply = early
        return
    text = message.text or message.caption
    if not text or text.startswith("/"):
        return  # commands have their own handlers (/sos and /help show the same lines)
    match = context.services.content.detector.detect(text)
    if match is None:
        await _maybe_typed_country(update, context, text)
        return
    context.crisis = match
    hint = match.kind == CrisisKind.GENERAL
    try:
        context.crisis_reply = await send_crisis_reply(
            update, context, match.kind, message, guide_hint=hint
        )
    except Exception as exc:
        # Whatever Telegram said, what they wrote must still be saved by the later groups.
        log.warning("crisis reply not sent: %s", type(exc).__name__)


async def _sos(update: Update, context: Context, *, guide: bool) -> None:
    await send_crisis_reply(update, context, CrisisKind.GENERAL, update.effective_message)
    if guide:
        await send_urgent(update, context, context.tx("guide.text"))


async def on_sos(update: Update, context: Context) -> None:
    if not is_private(update):
        return
    if _early(context.application).pop(update.update_id, None) is None:
        await _sos(update, context, guide=False)
    raise ApplicationHandlerStop


async def on_help(update: Update, context: Context) -> None:
    if not is_private(update):
        return
    if _early(context.application).pop(update.update_id, None) is None:
        await _sos(update, context, guide=True)
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
        text = compose_full_list(context.services.content.crisis_book, country, tx)
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
        await _ground(update, context, rest)
    elif action == "where" and rest in _KINDS:
        await _ask_country(update, context, _KINDS[rest])
    elif action == "cty":
        k, _, code = rest.partition(":")
        if k in _KINDS and _valid_place(context, code):
            await _country_chosen(update, context, _KINDS[k], code, typed=False)
    elif action == "back":
        person = await current_person(update, context)
        waiting = person is not None and person.profile.active_worksheet is not None
        key = "crisis_help.back_worksheet" if waiting else "crisis_help.back_idle"
        await send_urgent(update, context, tx(key))
    elif action == "plan":
        await _safety_plan(update, context)


def _valid_place(context: Context, code: str) -> bool:
    # Callback data is untrusted: only codes we can show something for.
    content = context.services.content
    return code in content.emergency or (code in content.helplines and code != "INTL")


def _awaiting(context: Context) -> dict[str, tuple[CrisisKind, float]]:
    found: dict[str, tuple[CrisisKind, float]] = context.application.bot_data.setdefault(
        AWAIT_KEY, {}
    )
    return found


async def _ask_country(update: Update, context: Context, kind: CrisisKind) -> None:
    user = update.effective_user
    if user is None:
        return
    services = context.services
    featured: list[str] = services.content.texts.data["featured_countries"]
    order = services.content.places.shortlist(featured, user.language_code)[:SHORTLIST_SIZE]
    k = _KIND_CODES[kind]
    flat: list[Button] = [
        (
            name_in(code, services.content.helplines, context.language),
            CrisisButton("cty", f"{k}:{code}").encode(),
        )
        for code in order
    ]
    rows = [flat[i : i + 3] for i in range(0, len(flat), 3)]
    person_id = services.people.person_id(user.id)
    now = services.clock().timestamp()
    waiting = _awaiting(context)
    for stale in [pid for pid, (_, deadline) in waiting.items() if deadline < now]:
        del waiting[stale]  # people who never typed a name: keep memory bounded
    waiting[person_id] = (kind, now + AWAIT_SECONDS)
    await send_urgent(update, context, context.tx("crisis_help.ask_country"), buttons=rows)


async def _maybe_typed_country(update: Update, context: Context, text: str) -> None:
    """A country's name typed after "Set my country". In onboarding's country step the
    setup handler also reads it (and stores it, and moves on), so the update goes on there;
    otherwise it stops here, answered."""
    user = update.effective_user
    if user is None:
        return
    services = context.services
    person_id = services.people.person_id(user.id)
    waiting = _awaiting(context).get(person_id)
    if waiting is None:
        return
    kind, deadline = waiting
    if services.clock().timestamp() > deadline:
        _awaiting(context).pop(person_id, None)
        return
    code = services.content.places.find(text)
    in_setup = await _in_country_step(context, user.id)
    if code is not None:
        _awaiting(context).pop(person_id, None)
        await _country_chosen(update, context, kind, code, typed=True, in_setup=in_setup)
    elif not in_setup:  # setup answers an unknown name in its own step
        await _ask_again(update, context, kind)
    if not in_setup:
        raise ApplicationHandlerStop


async def _ask_again(update: Update, context: Context, kind: CrisisKind) -> None:
    services = context.services
    user = update.effective_user
    featured: list[str] = services.content.texts.data["featured_countries"]
    language = user.language_code if user is not None else None
    order = services.content.places.shortlist(featured, language)[:SHORTLIST_SIZE]
    k = _KIND_CODES[kind]
    flat: list[Button] = [
        (
            name_in(code, services.content.helplines, context.language),
            CrisisButton("cty", f"{k}:{code}").encode(),
        )
        for code in order
    ]
    rows = [flat[i : i + 3] for i in range(0, len(flat), 3)]
    await send_urgent(
        update,
        context,
        context.tx("crisis_help.country_not_found"),
        buttons=rows,
        trigger=update.effective_message,
    )


async def _in_country_step(context: Context, user_id: int) -> bool:
    try:
        person = await asyncio.wait_for(context.services.people.load(user_id), STORE_BUDGET)
    except Exception as exc:
        log.warning("crisis state lookup failed: %s", type(exc).__name__)
        return False
    return person is not None and person.state.startswith("setup:country")


async def _country_chosen(
    update: Update,
    context: Context,
    kind: CrisisKind,
    code: str,
    *,
    typed: bool,
    in_setup: bool = False,
) -> None:
    """Keep the country in memory, send the reply again with its lines, then store it."""
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    services = context.services
    people = services.people
    person_id = people.person_id(user.id)
    services.crisis_cache.remember_country(person_id, code)
    label = name_in(code, services.content.helplines, context.language)
    text = context.tx("crisis_help.country_set", country=label) + "\n\n"
    text += _reply_text(context, kind, code)
    trigger = update.effective_message if typed else None
    await send_urgent(
        update, context, text, buttons=crisis_buttons(context, code, None, kind), trigger=trigger
    )
    if typed and in_setup:
        return  # onboarding's country step stores it and goes on to the next question
    try:
        await asyncio.wait_for(_store_country(context, user.id, chat.id, code), STORE_BUDGET)
    except Exception as exc:  # storage down: memory has it until a restart
        log.warning("crisis country not stored: %s", type(exc).__name__)
    finally:
        services.crisis_cache.remember_country(person_id, code)


async def _store_country(context: Context, user_id: int, chat_id: int, code: str) -> None:
    # Stored like the onboarding country; someone not yet known gets a profile holding only
    # that, and /start later asks the rest.
    people = context.services.people
    person = await people.load(user_id)
    if person is None:
        person = await people.create(user_id, chat_id, "")
    person.profile.country = code
    await people.save(person)


async def _ground(update: Update, context: Context, rest: str) -> None:
    tx = context.tx
    steps = grounding_steps(tx)
    step = int(rest) if re.fullmatch(r"[0-9]{1,2}", rest) else 1
    if 1 <= step <= len(steps):
        buttons = [[(tx("crisis_help.btn_ready"), CrisisButton("ground", str(step + 1)).encode())]]
        await send_urgent(update, context, steps[step - 1], buttons=buttons)
        return
    rows: list[list[Button]] = [
        [(tx("crisis_help.btn_back"), CrisisButton("back").encode())],
        [(tx("crisis_help.btn_plan"), CrisisButton("plan").encode())],
        [(tx("crisis_help.btn_support"), CrisisButton("more", "g").encode())],
    ]
    await send_urgent(update, context, tx("crisis_help.ground_done"), buttons=rows)


async def _safety_plan(update: Update, context: Context) -> None:
    tx = context.tx
    person = await current_person(update, context)
    worksheet = context.services.content.worksheets.get(SAFETY_PLAN)
    if person is None or not person.profile.onboarded or worksheet is None:
        await send_urgent(update, context, tx("crisis_help.plan_first"))
        return
    buttons = [[(worksheet.title, WorksheetButton("open", worksheet.id).encode())]]
    await send_urgent(update, context, tx("crisis_help.plan_open"), buttons=buttons)


class CrisisFeature:
    """Crisis words, /sos and /help: app.py puts `on_message`, `on_sos` and `on_help` in
    the first group (-10) and `reply_early` in the update processor; the buttons of the
    reply install here."""

    on_message = staticmethod(on_message)
    on_sos = staticmethod(on_sos)
    on_help = staticmethod(on_help)
    reply_early = staticmethod(reply_early)

    def install(self, hub: Hub) -> None:
        hub.router.on_callback(CrisisButton, on_button)
