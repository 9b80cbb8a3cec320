"""What a worksheet shows: the list, its intro, a question (and the step it makes wait),
its end, and the review pages. Used by bot/features/worksheets/handlers/worksheets.py (the feature:
commands,
answers, buttons); what changes is decided by bot/features/worksheets/flow.py.
"""

from __future__ import annotations

from collections.abc import Sequence

from telegram import Message

from bot.content.worksheet_model import Worksheet
from bot.features.worksheets import views
from bot.features.worksheets.flow import Opening
from bot.features.worksheets.state import WorksheetState
from bot.framework.chat import delete_and_forget, release, strip_buttons, tell
from bot.framework.context import Context
from bot.framework.damaged import offer_damaged
from bot.people.service import Person


async def leave_step(
    context: Context, person: Person, pressed: Message | None = None, extra: Sequence[int] = ()
) -> None:
    """Done with the current step's messages (the flow says which go); `extra` goes too."""
    flow = context.services.worksheet_flow
    ids = [*extra, *flow.leave_step(person, pressed.message_id if pressed else None)]
    if not person.profile.discreet:
        await strip_buttons(pressed)
    await delete_and_forget(context, person, ids)


async def show_list(context: Context, person: Person, lead: str = "") -> None:
    overview = [
        (context.local(w), r) for w, r in await context.services.worksheet_flow.overview(person)
    ]
    text, buttons = views.list_view(context.tx, overview, lead)
    await tell(context, person, text, buttons)


async def show_question(
    context: Context, person: Person, ws: Worksheet, position: int, *, lead: str = ""
) -> None:
    """Send the question at `position` and make it the step that typed text answers."""
    flow, tx = context.services.worksheet_flow, context.tx
    ws = context.local(ws)
    shown_before = flow.shown_before(person, ws)
    await leave_step(context, person)
    if position >= ws.question_count:
        await flow.finish(person, ws)
        answered = await has_answers(context, person, ws)
        buttons = views.finished_buttons(tx, ws, answered=answered)
        await tell(context, person, ws.closing, buttons)
        await offer_damaged(context, person)
        return
    answer = await flow.answer(person, ws, position)
    view = views.question_view(tx, ws, position, answer.parts, lead=lead)
    answered = bool(answer.parts)
    buttons = views.step_buttons(tx, ws, position, answered=answered, clear=answered)
    quotes = ws.id if answered else None
    sent = await tell(context, person, view, buttons, protect=answered, quotes=quotes)
    step = WorksheetState(ws.id, sent.message_id, position=position, previous=shown_before)
    await flow.shown(person, ws, step)
    await offer_damaged(context, person)


async def open_worksheet(context: Context, person: Person, ws: Worksheet) -> None:
    tx = context.tx
    ws = context.local(ws)
    opening = await context.services.worksheet_flow.opening(person, ws)
    if opening.kind is Opening.NEW:
        await tell(
            context,
            person,
            views.intro_view(ws, tx, discreet=person.profile.discreet),
            views.intro_buttons(tx, ws),
        )
    elif opening.kind is Opening.FINISHED:
        text = tx("worksheets.finished_already", title=ws.title)
        answered = await has_answers(context, person, ws)
        buttons = views.finished_buttons(tx, ws, again=True, answered=answered)
        await tell(context, person, text, buttons)
        await offer_damaged(context, person)
    else:
        lead = tx("worksheets.resumed")
        await show_question(context, person, ws, opening.position, lead=lead)


async def has_answers(context: Context, person: Person, ws: Worksheet) -> bool:
    answers = await context.services.worksheet_flow.answers(person, ws.id)
    return any(answer.parts for answer in answers.values())


async def open_by_id(context: Context, person: Person, worksheet_id: str) -> None:
    worksheet = context.services.worksheet_flow.get(worksheet_id)
    if worksheet is None:
        await show_list(context, person, lead=context.tx("worksheets.unknown"))
        return
    await open_worksheet(context, person, worksheet)


async def review(
    context: Context, person: Person, ws: Worksheet, page: int, pressed: Message | None
) -> None:
    tx = context.tx
    ws = context.local(ws)
    answers = await context.services.worksheet_flow.answers(person, ws.id)
    pages = views.review_pages(tx, ws, answers)
    if page >= max(len(pages), 1):
        return
    if page > 0:
        # Pressed on the page before: it is read, so it goes (discreet) or loses its buttons.
        await release(context, person, pressed)
    if not pages:
        await tell(context, person, tx("worksheets.review_empty"))
        await offer_damaged(context, person)
        return
    # [Hide]: the page shows their own words; it leaves the chat at once when tapped.
    buttons = views.review_buttons(tx, ws, pages, page) + context.offers.tidying.hide_row(context)
    await tell(context, person, pages[page].rich, buttons, protect=True, quotes=ws.id)
    await offer_damaged(context, person)
