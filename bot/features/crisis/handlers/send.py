"""Sending the crisis reply and what stays after it: the lines for the person's country
(from memory; storage gets LOOKUP_BUDGET seconds on a miss), the reply's buttons, and the
grounding exercise one step at a time. Shared by the crisis words, the tier-2 safety check
and the country picker, so none of them imports another."""

from __future__ import annotations

import asyncio
import logging
import re

from telegram import Message, Update

from bot.content.crisis_reply import compose_reply, grounding_steps, needs_nation
from bot.content.helplines import parts_of
from bot.content.places import name_in
from bot.features.crisis.callbacks import CrisisButton
from bot.features.crisis.held import SAFETY_PLAN
from bot.features.worksheets.callbacks import WorksheetButton
from bot.framework.chat import Button, current_person, say_urgent
from bot.framework.context import Context
from bot.matching.crisis import CrisisKind

log = logging.getLogger(__name__)

LOOKUP_BUDGET = 0.3  # seconds the reply may wait for a country not yet in memory
LIKELY_COUNTRIES = 4  # countries whose numbers someone with no country set is shown
# Short codes for the kind in callback data (64 bytes at most).
KIND_CODES = {
    CrisisKind.DANGER: "d",
    CrisisKind.SELF_HARM: "s",
    CrisisKind.SEXUAL_VIOLENCE: "v",
    CrisisKind.GENERAL: "g",
}
KINDS = {code: kind for kind, code in KIND_CODES.items()}


async def country_of(context: Context, user_id: int) -> str | None:
    people, cache = context.services.people, context.services.crisis_cache
    person_id = people.person_id(user_id)
    if cache.knows(person_id):
        return cache.country(person_id)
    try:
        person = await asyncio.wait_for(people.load(user_id), LOOKUP_BUDGET)
    except Exception as exc:  # storage down or slow: the reply must still go out
        log.warning("crisis country lookup failed: %s", type(exc).__name__)
        return None
    if person is None:
        return None
    context.bind(person)  # the reply in their stored language, even after a restart
    return person.profile.country


def crisis_buttons(
    context: Context,
    country: str | None,
    trigger_id: int | None,
    kind: CrisisKind = CrisisKind.GENERAL,
) -> list[list[Button]]:
    tx = context.tx
    k = KIND_CODES[kind]
    rows: list[list[Button]] = [[(tx("crisis_help.btn_lines"), CrisisButton("more", k).encode())]]
    if trigger_id is not None:
        rows.append(
            [(tx("crisis_help.btn_clear"), CrisisButton("clear", str(trigger_id)).encode())]
        )
    book = context.book
    if country is None:
        # First: the numbers above are a guess from their language until they say where.
        rows.insert(0, [(tx("crisis_help.btn_country"), CrisisButton("where", k).encode())])
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
    sent = await say_urgent(
        context,
        chat,
        text,
        buttons=buttons,
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
    also: frozenset[CrisisKind] = frozenset(),
) -> Message | None:
    """`also`: every kind found; a danger reply then names the crisis line too when a
    wish to die was found beside the threat."""
    user = update.effective_user
    if user is None:
        return None
    country = await country_of(context, user.id)
    text = reply_text(
        context,
        kind,
        country,
        guide_hint=guide_hint,
        language_code=user.language_code,
        also=also,
    )
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
        context.application.create_task(count_reply(context, kind), update=update)
    return sent


def likely_countries(context: Context, language_code: str | None) -> list[tuple[str, str]]:
    """(code, name) of the countries to show someone whose country is not known: where
    their Telegram language (else the bot's language for them) is spoken."""
    content = context.services.content
    featured: list[str] = content.texts.data["featured_countries"]
    codes = content.places.speaking(featured, language_code or context.language)
    return [
        (code, name_in(code, content.helplines, context.language))
        for code in codes[:LIKELY_COUNTRIES]
    ]


def reply_text(
    context: Context,
    kind: CrisisKind,
    country: str | None,
    *,
    guide_hint: bool = False,
    language_code: str | None = None,
    also: frozenset[CrisisKind] = frozenset(),
) -> str:
    content = context.services.content
    label = name_in(country, content.helplines, context.language) if country else None
    return compose_reply(
        kind,
        context.book,
        country,
        context.tx,
        country_label=label,
        guide_hint=guide_hint,
        likely=likely_countries(context, language_code) if country is None else (),
        also=also,
    )


async def count_reply(context: Context, kind: CrisisKind) -> None:
    # Operator statistics only: a day and a kind, never a person or their words.
    try:
        day = context.services.clock().date().isoformat()
        await context.services.crisis_counter.count(day, kind.value)
    except Exception as exc:
        log.warning("crisis count not stored: %s", type(exc).__name__)


async def send_grounding(update: Update, context: Context, rest: str) -> None:
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


async def offer_safety_plan(update: Update, context: Context) -> None:
    tx = context.tx
    person = await current_person(update, context)
    worksheet = context.services.content.worksheets.get(SAFETY_PLAN)
    if person is None or not person.profile.onboarded or worksheet is None:
        await send_urgent(update, context, tx("crisis_help.plan_first"))
        return
    buttons = [[(worksheet.title, WorksheetButton("open", worksheet.id).encode())]]
    await send_urgent(update, context, tx("crisis_help.plan_open"), buttons=buttons)
