"""Where the person is, asked from the crisis reply: a short list, or a country's name typed
in any of seven languages; works for anyone, known or not. The reply comes again with the
local lines; the country is kept in memory at once and stored afterwards."""

from __future__ import annotations

import asyncio
import logging

from telegram import Update
from telegram.ext import ApplicationHandlerStop

from bot.content.places import name_in
from bot.features.crisis.callbacks import CrisisButton
from bot.features.crisis.handlers.send import KIND_CODES, crisis_buttons, reply_text, send_urgent
from bot.framework.chat import Button
from bot.framework.context import Context
from bot.matching.crisis import CrisisKind

log = logging.getLogger(__name__)


STORE_BUDGET = 5.0  # seconds to store a chosen country, after the reply has gone out
AWAIT_SECONDS = 600  # how long a typed country is expected after "Set my country"
SHORTLIST_SIZE = 9  # three rows of three; typing a name covers every other country


def valid_place(context: Context, code: str) -> bool:
    # Callback data is untrusted: only codes we can show something for.
    content = context.services.content
    return code in content.emergency or (code in content.helplines and code != "INTL")


def _shortlist(context: Context, kind: CrisisKind, language: str | None) -> list[list[Button]]:
    """Country buttons, three to a row; Telegram's language may order them, never choose."""
    content = context.services.content
    featured: list[str] = content.texts.data["featured_countries"]
    order = content.places.shortlist(featured, language)[:SHORTLIST_SIZE]
    code_of_kind = KIND_CODES[kind]
    flat: list[Button] = [
        (
            name_in(code, content.helplines, context.language),
            CrisisButton("cty", f"{code_of_kind}:{code}").encode(),
        )
        for code in order
    ]
    return [flat[i : i + 3] for i in range(0, len(flat), 3)]


async def ask_country(update: Update, context: Context, kind: CrisisKind) -> None:
    user = update.effective_user
    if user is None:
        return
    services = context.services
    rows = _shortlist(context, kind, user.language_code)
    person_id = services.people.person_id(user.id)
    now = services.clock().timestamp()
    services.crisis_cache.country_asks.ask(person_id, kind, now + AWAIT_SECONDS)
    await send_urgent(update, context, context.tx("crisis_help.ask_country"), buttons=rows)


async def maybe_typed_country(update: Update, context: Context, text: str) -> None:
    """A country's name typed after "Set my country". In onboarding's country step the
    setup handler also reads it (and stores it, and moves on), so the update goes on there;
    otherwise it stops here, answered."""
    user = update.effective_user
    if user is None:
        return
    services = context.services
    person_id = services.people.person_id(user.id)
    asks = services.crisis_cache.country_asks
    kind = asks.asked(person_id, services.clock().timestamp())
    if kind is None:
        return
    code = services.content.places.find(text)
    in_setup = await _in_country_step(context, user.id)
    if code is not None:
        asks.answered(person_id)
        await country_chosen(update, context, kind, code, typed=True, in_setup=in_setup)
    elif not in_setup:  # setup answers an unknown name in its own step
        await _ask_again(update, context, kind)
    if not in_setup:
        raise ApplicationHandlerStop


async def _ask_again(update: Update, context: Context, kind: CrisisKind) -> None:
    user = update.effective_user
    rows = _shortlist(context, kind, user.language_code if user is not None else None)
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


async def country_chosen(
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
    text += reply_text(context, kind, code)
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
