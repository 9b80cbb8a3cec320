"""/export: everything a person wrote, as a Markdown file (and, on request, a PDF)."""

from __future__ import annotations

import asyncio
import io

from telegram import InputFile, Update

from bot.core.buttons import Rows
from bot.core.callbacks import WorksheetButton
from bot.features.export import render as export
from bot.features.record.handlers.files import send_record_export
from bot.features.tidy.handlers import export_buttons, export_caption, remove_later
from bot.framework.chat import hold_if_cover, keyboard, private_command_person, remember, say
from bot.framework.context import Context
from bot.framework.damaged import offer_damaged
from bot.people.service import Person


async def export_command(update: Update, context: Context) -> None:
    person = await private_command_person(update, context)
    if person is not None:
        await send_export(context, person, pdf=False)


async def send_export(context: Context, person: Person, *, pdf: bool) -> None:
    tx = context.tx
    doc, day = await context.services.exporter.document(person, context.locale)
    if doc.is_empty:
        # The record has its own file (for an advocate); /export covers it too.
        if not await send_record_export(context, person, pdf=pdf):
            await say(context, person.chat_id, tx("worksheets.export.empty"), person=person)
        await offer_damaged(context, person)
        return
    buttons: Rows = []
    if pdf:
        # Laying out a long PDF takes a moment: off the event loop, so others are not kept waiting.
        data = await asyncio.to_thread(export.build_pdf, doc)
        name, caption = export.filename(day, "pdf"), tx("worksheets.export.caption_pdf")
    else:
        data = export.build_markdown(doc).encode()
        name, caption = export.filename(day, "md"), tx("worksheets.export.caption")
        buttons = [[(tx("worksheets.export.btn_pdf"), WorksheetButton("pdf").encode())]]
    buttons += export_buttons(context, person)
    hold_if_cover(context, person.chat_id)  # a slow file may outlast a panic
    sent = await context.bot.send_document(
        person.chat_id,
        InputFile(io.BytesIO(data), filename=name),
        caption=export_caption(context, person, caption),
        reply_markup=keyboard(buttons),
        protect_content=True,
    )
    await remember(context.services, person, sent)
    await send_record_export(context, person, pdf=pdf)
    await remove_later(context, person, sent)
    await offer_damaged(context, person)  # a row that did not open: left out, and said
