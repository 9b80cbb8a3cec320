"""/worksheets, /resume, /export and the worksheet flow: one question at a time, resumable.

How answering works (decided here, tested in tests/e2e/test_worksheets.py):

- Every message typed while a question waits is one part of its answer, sealed and stored
  before anything is sent back. The first part gets a short "Saved." with Next, Back and
  Pause; later parts are added to the same answer and that same message is edited to
  "Saved (n messages).", so several messages cost one bot message. Next moves on.
- Back (and coming forward again to an answered question) shows the question with what is
  saved quoted, sent with protect_content. Text typed then is ADDED to that answer: nothing a
  person wrote is ever dropped by accident. "Clear this answer" starts the answer afresh and
  deletes its messages from the chat.
- Editing a message that is part of an answer updates the stored part silently: Telegram
  already marks the message as edited, and a reply would only add noise to the chat.
- A crisis word inside an answer: the answer is saved, no next question is sent, and the
  crisis reply gains "Continue the worksheet" (goes on to the next question) and "Pause".
- Discreet mode: once a part is saved, the person's message and the question are deleted;
  only "Saved." stays, and it goes at the next step. A button that moves on deletes the
  message it was pressed on (intro, question, review page). Without discreet mode, that
  message only loses its buttons, so old buttons cannot be pressed by mistake.
- Old buttons check the position they were made for; a mismatch says "expired". Forged or
  malformed callback data does nothing at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import re
from collections.abc import Awaitable, Callable, Sequence

from telegram import InlineKeyboardMarkup, InputFile, Message, MessageEntity, Update
from telegram.error import BadRequest

from bot.app import Features, StApp
from bot.context import Context
from bot.handlers.common import (
    Button,
    command_person,
    current_person,
    delete_quietly,
    keyboard,
    remember,
    replace_or_say,
)
from bot.services import export
from bot.services.people import Person
from bot.services.worksheet_model import Worksheet
from bot.services.worksheets import (
    Rich,
    Step,
    WorksheetService,
    intro_view,
    parse_step,
    question_view,
    review_pages,
    status_label,
)
from bot.storage.journal import JournalStore
from bot.storage.worksheets import WorksheetStore

_SERVICE_KEY = "worksheets"
DEEP_LINK_PREFIX = "ws_"
# Callback data is `ws:<action>[:<worksheet id>][:<number>]`, at most 64 bytes.
# [0-9], not \d (which admits other scripts' digits), and fullmatch (where "$" would let a
# trailing newline through).
_ARG = re.compile(r"([a-z]{2,6})(?::([a-z0-9_]{1,40}))?(?::([0-9]{1,4}))?")
_BARE = frozenset({"later", "revx", "exp", "pdf"})
_WITH_ID = frozenset({"open", "go", "again", "pause", "cpause", "del", "delok", "delno"})
_WITH_POSITION = frozenset({"next", "back", "clr", "cont", "rev"})


def service(context: Context) -> WorksheetService:
    found = context.services.extras.get(_SERVICE_KEY)
    if isinstance(found, WorksheetService):
        return found
    services = context.services
    made = WorksheetService(
        WorksheetStore(services.db), services.content.worksheets, services.clock
    )
    services.extras[_SERVICE_KEY] = made
    return made


# --- sending and tidying ----------------------------------------------------------------


async def _send(
    context: Context,
    person: Person,
    rich: Rich | str,
    buttons: Sequence[Sequence[Button]] | None = None,
    *,
    protect: bool = False,
    quotes: str | None = None,
) -> Message:
    """`quotes`: the worksheet whose answers this message shows (deleting those answers
    deletes the message too)."""
    content = Rich(rich) if isinstance(rich, str) else rich
    entities = [MessageEntity(s.kind, s.offset, s.length) for s in content.spans]
    message = await context.bot.send_message(
        person.chat_id,
        content.text,
        entities=entities or None,
        reply_markup=keyboard(buttons) if buttons else None,
        protect_content=protect,
    )
    context.services.people.note_message(
        person.person_id, message.message_id, int(message.date.timestamp()), quotes=quotes
    )
    return message


async def _delete(context: Context, person: Person, ids: Sequence[int]) -> None:
    wanted = sorted({i for i in ids if i})
    if not wanted:
        return
    await delete_quietly(context, person.chat_id, wanted)
    # Ids still waiting in the batch for /clear may be stored after this; /clear deleting a
    # message that is already gone is a quiet no-op, so they need no chasing.
    await context.services.people.store.forget_messages(person.person_id, wanted)


async def _strip(message: Message | None) -> None:
    if message is None or message.reply_markup is None:
        return
    # Already gone or too old to edit: harmless, the buttons check their step anyway.
    with contextlib.suppress(BadRequest):
        await message.edit_reply_markup(reply_markup=None)


async def _release(context: Context, person: Person, pressed: Message | None) -> None:
    """A message whose button moved things on: deleted in discreet mode, else unbuttoned."""
    if pressed is None:
        return
    if person.profile.discreet:
        await _delete(context, person, [pressed.message_id])
    else:
        await _strip(pressed)


async def _leave_step(
    context: Context, person: Person, pressed: Message | None = None, extra: Sequence[int] = ()
) -> None:
    """Done with the current step's messages: discreet mode deletes them, otherwise the
    pressed message just loses its buttons. `extra` is deleted in either mode."""
    step = parse_step(person.state)
    ids = list(extra)
    if person.profile.discreet:
        ids += step.message_ids() if step is not None else []
        ids += [pressed.message_id] if pressed is not None else []
    else:
        await _strip(pressed)
    await _delete(context, person, ids)
    if step is not None:
        # No question on screen now, but which one was stays known (see show_question).
        person.state = Step(step.worksheet_id, position=step.position).state()


async def _enter(context: Context, person: Person, worksheet: Worksheet, step: Step) -> None:
    person.state = step.state()
    if person.profile.active_worksheet != worksheet.id:
        person.profile.active_worksheet = worksheet.id
        await context.services.people.save(person)
    else:
        await context.services.people.set_state(person, person.state)


def _pressed(update: Update) -> Message | None:
    query = update.callback_query
    return query.message if query is not None and isinstance(query.message, Message) else None


# --- views ------------------------------------------------------------------------------


def _step_buttons(
    context: Context, worksheet: Worksheet, position: int, *, answered: bool, clear: bool = False
) -> list[list[Button]]:
    tx = context.services.tx
    onward = tx("worksheets.btn_next") if answered else tx("worksheets.btn_skip")
    row: list[Button] = [(onward, f"ws:next:{worksheet.id}:{position}")]
    if position > 0:
        row.append((tx("worksheets.btn_back"), f"ws:back:{worksheet.id}:{position}"))
    row.append((tx("worksheets.btn_pause"), f"ws:pause:{worksheet.id}"))
    rows = [row]
    if clear:
        rows.append([(tx("worksheets.btn_clear_answer"), f"ws:clr:{worksheet.id}:{position}")])
    return rows


async def show_list(context: Context, person: Person, lead: str = "") -> None:
    tx = context.services.tx
    lines = [lead] if lead else []
    lines.append(tx("worksheets.list_title"))
    buttons: list[list[Button]] = []
    for worksheet, row in await service(context).overview(person):
        status = status_label(tx, worksheet, row)
        lines.append(
            tx(
                "worksheets.list_item",
                title=worksheet.title,
                status=status,
                summary=worksheet.summary,
            )
        )
        buttons.append([(worksheet.title, f"ws:open:{worksheet.id}")])
    await _send(context, person, "\n\n".join(lines), buttons)


async def show_question(
    context: Context, person: Person, worksheet: Worksheet, position: int, *, lead: str = ""
) -> None:
    """Send the question at `position` and make it the step that typed text answers."""
    before = parse_step(person.state)
    shown_before = (
        before.position if before is not None and before.worksheet_id == worksheet.id else -1
    )
    await _leave_step(context, person)
    if position >= worksheet.question_count:
        await _finish(context, person, worksheet)
        return
    svc = service(context)
    answer = await svc.answer(person, worksheet, worksheet.questions[position])
    view = question_view(context.services.tx, worksheet, position, answer.parts, lead=lead)
    answered = bool(answer.parts)
    buttons = _step_buttons(context, worksheet, position, answered=answered, clear=answered)
    sent = await _send(
        context, person, view, buttons, protect=answered, quotes=worksheet.id if answered else None
    )
    step = Step(worksheet.id, sent.message_id, position=position, previous=shown_before)
    await _enter(context, person, worksheet, step)


async def _finish(context: Context, person: Person, worksheet: Worksheet) -> None:
    step = parse_step(person.state)
    if step is not None and step.worksheet_id == worksheet.id:
        # Only this worksheet's question closes: an old button of another worksheet must
        # not cancel the question waiting on screen.
        person.state = ""
    if person.profile.active_worksheet == worksheet.id:
        person.profile.active_worksheet = None
    await context.services.people.save(person)
    await _send(context, person, worksheet.closing, _finished_buttons(context, worksheet))


def _finished_buttons(
    context: Context, worksheet: Worksheet, *, again: bool = False
) -> list[list[Button]]:
    tx = context.services.tx
    rows: list[list[Button]] = [
        [(tx("worksheets.btn_review"), f"ws:rev:{worksheet.id}:0")],
        [(tx("worksheets.btn_export"), "ws:exp")],
        [(tx("worksheets.btn_delete"), f"ws:del:{worksheet.id}")],
    ]
    if again:
        rows.insert(1, [(tx("worksheets.btn_again"), f"ws:again:{worksheet.id}")])
    return rows


async def open_worksheet(context: Context, person: Person, worksheet: Worksheet) -> None:
    """New: the intro. In progress: the question they are on. Finished: what they can do."""
    tx = context.services.tx
    row = await service(context).progress(person, worksheet)
    if row is None:
        buttons: list[list[Button]] = [
            [(tx("worksheets.btn_start"), f"ws:go:{worksheet.id}")],
            [(tx("worksheets.btn_not_now"), "ws:later")],
        ]
        await _send(context, person, intro_view(worksheet), buttons)
    elif row.finished or row.position >= worksheet.question_count:
        if not row.finished:  # the content lost questions since: past the end is finished
            await service(context).move(person, worksheet, worksheet.question_count)
        text = tx("worksheets.finished_already", title=worksheet.title)
        await _send(context, person, text, _finished_buttons(context, worksheet, again=True))
    else:
        lead = tx("worksheets.resumed")
        await show_question(context, person, worksheet, row.position, lead=lead)


# --- commands ---------------------------------------------------------------------------


async def _person_for_command(update: Update, context: Context) -> Person | None:
    person = await command_person(update, context, missing="start.not_started")
    message = update.effective_message
    if person is not None and person.profile.discreet and message is not None:
        # The command itself says what they were doing: it leaves the chat too.
        await _delete(context, person, [message.message_id])
    return person


async def list_command(update: Update, context: Context) -> None:
    person = await _person_for_command(update, context)
    if person is not None:
        await show_list(context, person)


async def resume_command(update: Update, context: Context) -> None:
    person = await _person_for_command(update, context)
    if person is None:
        return
    tx = context.services.tx
    svc = service(context)
    waiting = await svc.in_progress(person)
    active = [w for w in waiting if w.id == person.profile.active_worksheet]
    if active or len(waiting) == 1:
        await open_worksheet(context, person, (active or waiting)[0])
    elif waiting:
        buttons = [[(w.title, f"ws:open:{w.id}")] for w in waiting]
        await _send(context, person, tx("worksheets.resume_choose"), buttons)
    else:
        await show_list(context, person, lead=tx("worksheets.resume_none"))


async def export_command(update: Update, context: Context) -> None:
    person = await _person_for_command(update, context)
    if person is not None:
        await send_export(context, person, pdf=False)


async def send_export(context: Context, person: Person, *, pdf: bool) -> None:
    services = context.services
    tx = services.tx
    prompts = {p.id: p.text for p in services.content.prompts}
    now = services.clock()
    doc = await export.collect(
        service(context), JournalStore(services.db), person, prompts, tx, now
    )
    if doc.is_empty:
        await _send(context, person, tx("worksheets.export.empty"))
        return
    day = now.astimezone(export.zone_of(person)).date()
    buttons: list[list[Button]] | None = None
    if pdf:
        # Laying out a long PDF takes a moment: off the event loop, so others are not kept waiting.
        data = await asyncio.to_thread(export.build_pdf, doc)
        name, caption = export.filename(day, "pdf"), tx("worksheets.export.caption_pdf")
    else:
        data = export.build_markdown(doc).encode()
        name, caption = export.filename(day, "md"), tx("worksheets.export.caption")
        buttons = [[(tx("worksheets.export.btn_pdf"), "ws:pdf")]]
    sent = await context.bot.send_document(
        person.chat_id,
        InputFile(io.BytesIO(data), filename=name),
        caption=caption,
        reply_markup=keyboard(buttons) if buttons else None,
        protect_content=True,
    )
    await remember(services, person, sent)


# --- typed answers and edits ------------------------------------------------------------


async def on_answer(update: Update, context: Context, person: Person, text: str) -> None:
    message = update.message
    if message is None:
        return
    svc = service(context)
    step = parse_step(person.state)
    worksheet = svc.get(step.worksheet_id) if step is not None else None
    if step is None or worksheet is None:
        # The worksheet left the content: nothing waits any more, here or in /settings.
        person.state = ""
        if person.profile.active_worksheet not in context.services.content.worksheets:
            person.profile.active_worksheet = None
        await context.services.people.save(person)
        await show_list(context, person, lead=context.services.tx("worksheets.unknown"))
        return
    row = await svc.progress(person, worksheet)
    if row is None or row.finished or row.position >= worksheet.question_count:
        await context.services.people.set_state(person, "")
        await open_worksheet(context, person, worksheet)
        return
    if (
        step.question_message
        and message.message_id < step.question_message
        and 0 <= step.previous < worksheet.question_count
    ):
        # Typed while the previous question was still the one on screen (before this one
        # arrived): it is part of that answer, not this one.
        await _save_to_previous(context, person, worksheet, step, message.message_id, text)
        context.note_saved(update.update_id)
        return
    question = worksheet.questions[row.position]
    # Stored before anything is sent back: once the person sees a reply, it is on disk.
    count = await svc.save_part(person, worksheet, question, message.message_id, text)
    context.note_saved(update.update_id)
    if person.profile.discreet:
        await _delete(context, person, [message.message_id, step.question_message])
        step.question_message = 0
    if context.crisis is not None:
        await _offer_continue(context, person, worksheet, row.position)
    else:
        await _acknowledge(context, person, worksheet, row.position, step, count)
    await _enter(context, person, worksheet, step)


async def _save_to_previous(
    context: Context, person: Person, worksheet: Worksheet, step: Step, message_id: int, text: str
) -> None:
    question = worksheet.questions[step.previous]
    await service(context).save_part(person, worksheet, question, message_id, text)
    if person.profile.discreet:
        await _delete(context, person, [message_id])
    note = context.services.tx("worksheets.added_to_previous", number=step.previous + 1)
    await _send(context, person, note)


async def _acknowledge(
    context: Context, person: Person, worksheet: Worksheet, position: int, step: Step, count: int
) -> None:
    tx = context.services.tx
    text = tx("worksheets.saved") if count == 1 else tx("worksheets.saved_many", count=count)
    buttons = _step_buttons(context, worksheet, position, answered=True)
    if step.saved_message:
        try:
            await context.bot.edit_message_text(
                text, person.chat_id, step.saved_message, reply_markup=keyboard(buttons)
            )
            return
        except BadRequest as exc:
            if "not modified" in str(exc).lower():
                return  # the same message delivered twice: already counted
    sent = await _send(context, person, text, buttons)
    step.saved_message = sent.message_id


async def _offer_continue(
    context: Context, person: Person, worksheet: Worksheet, position: int
) -> None:
    """Add Continue and Pause under the crisis reply, keeping its own buttons."""
    tx = context.services.tx
    ours: list[Button] = [
        (tx("worksheets.btn_continue"), f"ws:cont:{worksheet.id}:{position}"),
        (tx("worksheets.btn_pause"), f"ws:cpause:{worksheet.id}"),
    ]
    reply = context.crisis_reply
    if reply is not None:
        rows = list(reply.reply_markup.inline_keyboard) if reply.reply_markup else []
        rows.append(tuple(keyboard([ours]).inline_keyboard[0]))
        try:
            await context.bot.edit_message_reply_markup(
                person.chat_id, reply.message_id, reply_markup=InlineKeyboardMarkup(rows)
            )
            return
        except BadRequest:
            pass  # the reply is gone: offer the buttons on their own
    await _send(context, person, tx("worksheets.saved_crisis"), [ours])


async def _drop_our_buttons(message: Message | None) -> None:
    """After Continue or Pause, the crisis reply keeps only its own buttons."""
    if message is None or message.reply_markup is None:
        return
    rows = [
        row
        for row in message.reply_markup.inline_keyboard
        if not any(
            isinstance(b.callback_data, str) and b.callback_data.startswith("ws:") for b in row
        )
    ]
    with contextlib.suppress(BadRequest):
        await message.edit_reply_markup(reply_markup=InlineKeyboardMarkup(rows) if rows else None)


async def on_edit(update: Update, context: Context, person: Person, text: str) -> bool:
    message = update.edited_message
    if message is None or not text.strip():
        return False
    return await service(context).update_part(person, message.message_id, text.strip())


# --- deep links and onboarding ----------------------------------------------------------


async def on_deep_link(update: Update, context: Context, person: Person, payload: str) -> None:
    await _open_by_id(context, person, payload.removeprefix(DEEP_LINK_PREFIX))


async def _open_by_id(context: Context, person: Person, worksheet_id: str) -> None:
    worksheet = service(context).get(worksheet_id)
    if worksheet is None:
        await show_list(context, person, lead=context.services.tx("worksheets.unknown"))
        return
    await open_worksheet(context, person, worksheet)


async def after_onboarding(update: Update, context: Context, person: Person) -> bool:
    pending = person.profile.pending_worksheet
    if not pending:
        return False
    person.profile.pending_worksheet = None
    await context.services.people.save(person)
    await _open_by_id(context, person, pending.removeprefix(DEEP_LINK_PREFIX))
    return True


# --- buttons ----------------------------------------------------------------------------

Action = Callable[[Update, Context, Person, Worksheet | None, int], Awaitable[None]]


async def on_button(update: Update, context: Context, arg: str) -> None:
    found = _ARG.fullmatch(arg) if len(arg) <= 64 else None
    if found is None:
        return
    name, worksheet_id, number = found.groups()
    if name in _BARE:
        valid = worksheet_id is None and number is None
    elif name in _WITH_ID:
        valid = worksheet_id is not None and number is None
    else:
        valid = name in _WITH_POSITION and worksheet_id is not None and number is not None
    worksheet = service(context).get(worksheet_id) if worksheet_id else None
    if not valid or (worksheet_id is not None and worksheet is None):
        return
    person = await current_person(update, context)
    if person is None:
        return
    await _ACTIONS[name](update, context, person, worksheet, int(number or 0))


async def _expired(context: Context, person: Person) -> None:
    await _send(context, person, context.services.tx("worksheets.expired"))


async def _current(context: Context, person: Person, worksheet: Worksheet, position: int) -> bool:
    """Whether `position` is where the person is in this worksheet (the button is fresh)."""
    row = await service(context).progress(person, worksheet)
    if row is None or row.finished or row.position != position:
        await _expired(context, person)
        return False
    return True


async def _do_open(
    update: Update, context: Context, person: Person, ws: Worksheet | None, _: int
) -> None:
    assert ws is not None
    if person.profile.discreet:
        await _release(context, person, _pressed(update))  # the list, with its titles
    await open_worksheet(context, person, ws)


async def _do_go(
    update: Update, context: Context, person: Person, ws: Worksheet | None, _: int
) -> None:
    assert ws is not None
    await _release(context, person, _pressed(update))
    row = await service(context).begin(person, ws)
    if row.finished:
        await open_worksheet(context, person, ws)
        return
    await show_question(context, person, ws, row.position)


async def _do_later(
    update: Update, context: Context, person: Person, ws: Worksheet | None, _: int
) -> None:
    await _release(context, person, _pressed(update))
    await _send(context, person, context.services.tx("worksheets.not_now"))


async def _do_next(
    update: Update, context: Context, person: Person, ws: Worksheet | None, position: int
) -> None:
    assert ws is not None
    if await _current(context, person, ws, position):
        await _leave_step(context, person, _pressed(update))
        await service(context).move(person, ws, position + 1)
        await show_question(context, person, ws, position + 1)


async def _do_back(
    update: Update, context: Context, person: Person, ws: Worksheet | None, position: int
) -> None:
    assert ws is not None
    if position > 0 and await _current(context, person, ws, position):
        await _leave_step(context, person, _pressed(update))
        await service(context).move(person, ws, position - 1)
        await show_question(context, person, ws, position - 1)


async def _do_clear(
    update: Update, context: Context, person: Person, ws: Worksheet | None, position: int
) -> None:
    assert ws is not None
    if position >= ws.question_count or not await _current(context, person, ws, position):
        return
    svc = service(context)
    question = ws.questions[position]
    written = await svc.answer_message_ids(person, ws, question)
    await svc.clear_answer(person, ws, question)
    # The pressed view quotes the answer just cleared, so it goes in either mode.
    pressed = _pressed(update)
    await _leave_step(context, person, extra=[*written, pressed.message_id if pressed else 0])
    await show_question(context, person, ws, position)


async def _do_continue(
    update: Update, context: Context, person: Person, ws: Worksheet | None, position: int
) -> None:
    assert ws is not None
    await _drop_our_buttons(_pressed(update))
    svc = service(context)
    row = await svc.progress(person, ws)
    if row is None or row.finished:
        await open_worksheet(context, person, ws)
        return
    if row.position == position:
        await svc.move(person, ws, position + 1)
        await show_question(context, person, ws, position + 1)
    else:
        await show_question(context, person, ws, row.position)


async def _do_pause(
    update: Update, context: Context, person: Person, ws: Worksheet | None, _: int
) -> None:
    await _leave_step(context, person, _pressed(update))
    await _pause(context, person)


async def _do_crisis_pause(
    update: Update, context: Context, person: Person, ws: Worksheet | None, _: int
) -> None:
    await _drop_our_buttons(_pressed(update))
    await _leave_step(context, person)
    await _pause(context, person)


async def _pause(context: Context, person: Person) -> None:
    # The active worksheet stays, so /resume knows where to go; typed text is no longer an answer.
    await context.services.people.set_state(person, "")
    await _send(context, person, context.services.tx("worksheets.paused"))


async def _do_again(
    update: Update, context: Context, person: Person, ws: Worksheet | None, _: int
) -> None:
    assert ws is not None
    svc = service(context)
    row = await svc.progress(person, ws)
    if row is None or not row.finished:
        await open_worksheet(context, person, ws)
        return
    await svc.move(person, ws, 0)
    await show_question(context, person, ws, 0)


async def _do_review(
    update: Update, context: Context, person: Person, ws: Worksheet | None, page: int
) -> None:
    assert ws is not None
    tx = context.services.tx
    answers = await service(context).answers(person, ws.id)
    pages = review_pages(tx, ws, answers)
    if page >= max(len(pages), 1):
        return
    if page > 0:
        # Pressed on the page before: it is read, so it goes (discreet) or loses its buttons.
        await _release(context, person, _pressed(update))
    if not pages:
        await _send(context, person, tx("worksheets.review_empty"))
        return
    buttons: list[Button] = []
    if page + 1 < len(pages):
        same = pages[page + 1].section == pages[page].section
        label = tx("worksheets.btn_more") if same else tx("worksheets.btn_next_section")
        buttons.append((label, f"ws:rev:{ws.id}:{page + 1}"))
    buttons.append((tx("worksheets.btn_done"), "ws:revx"))
    await _send(context, person, pages[page].rich, [buttons], protect=True, quotes=ws.id)


async def _do_review_done(
    update: Update, context: Context, person: Person, ws: Worksheet | None, _: int
) -> None:
    await _release(context, person, _pressed(update))


async def _do_delete(
    update: Update, context: Context, person: Person, ws: Worksheet | None, _: int
) -> None:
    assert ws is not None
    tx = context.services.tx
    buttons: list[list[Button]] = [
        [(tx("worksheets.btn_delete_yes"), f"ws:delok:{ws.id}")],
        [(tx("worksheets.btn_delete_no"), f"ws:delno:{ws.id}")],
    ]
    await _send(context, person, tx("worksheets.delete_confirm", title=ws.title), buttons)


async def _do_delete_confirmed(
    update: Update, context: Context, person: Person, ws: Worksheet | None, _: int
) -> None:
    assert ws is not None
    svc = service(context)
    written = await svc.answer_message_ids(person, ws)
    await svc.delete(person, ws)
    step = parse_step(person.state)
    if step is not None and step.worksheet_id == ws.id:
        await _leave_step(context, person)
        person.state = ""
    if person.profile.active_worksheet == ws.id:
        person.profile.active_worksheet = None
    await context.services.people.save(person)
    # Their own answer messages leave the chat too, where Telegram still allows it, and so
    # does every message of ours that showed those answers (review pages, quoted views).
    quoting = await context.services.people.deletable_message_ids(person.person_id, quoting=ws.id)
    await _delete(context, person, [*written, *quoting])
    # In discreet mode the note names nothing: it stays on screen for the person to see.
    key = "worksheets.deleted_discreet" if person.profile.discreet else "worksheets.deleted"
    text = context.services.tx(key, title=ws.title)
    await replace_or_say(context, update, text, person=person)


async def _do_delete_cancelled(
    update: Update, context: Context, person: Person, ws: Worksheet | None, _: int
) -> None:
    await replace_or_say(context, update, context.services.tx("worksheets.kept"), person=person)


async def _do_export(
    update: Update, context: Context, person: Person, ws: Worksheet | None, _: int
) -> None:
    await send_export(context, person, pdf=False)


async def _do_pdf(
    update: Update, context: Context, person: Person, ws: Worksheet | None, _: int
) -> None:
    await send_export(context, person, pdf=True)


_ACTIONS: dict[str, Action] = {
    "open": _do_open,
    "go": _do_go,
    "later": _do_later,
    "next": _do_next,
    "back": _do_back,
    "clr": _do_clear,
    "cont": _do_continue,
    "pause": _do_pause,
    "cpause": _do_crisis_pause,
    "again": _do_again,
    "rev": _do_review,
    "revx": _do_review_done,
    "del": _do_delete,
    "delok": _do_delete_confirmed,
    "delno": _do_delete_cancelled,
    "exp": _do_export,
    "pdf": _do_pdf,
}


def connect(app: StApp, features: Features) -> None:
    """Add this feature's commands, routes and hooks."""
    features.commands += [
        ("worksheets", list_command),
        ("resume", resume_command),
        ("export", export_command),
    ]
    router = features.router
    router.on_callback("ws", on_button)
    router.on_state("ws", on_answer, capture=True)
    router.on_start_payload(DEEP_LINK_PREFIX, on_deep_link)
    router.on_edit(on_edit)
    features.setup.after_onboarding.append(after_onboarding)
