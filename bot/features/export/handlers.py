"""/export: everything a person wrote, as a Markdown file (and, on request, a PDF)."""

from __future__ import annotations

import asyncio
import io

from telegram import InputFile, Update

from bot.core import telegram_text
from bot.core.buttons import Rows
from bot.features.export import render as export
from bot.features.export.parts import part_name
from bot.features.worksheets.callbacks import WorksheetButton
from bot.framework.chat import hold_if_cover, keyboard, private_command_person, remember, say
from bot.framework.context import Context
from bot.framework.damaged import offer_damaged
from bot.framework.hub import Hub
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
        if not await context.offers.record_export.send_record_export(context, person, pdf=pdf):
            await say(context, person.chat_id, tx("worksheets.export.empty"), person=person)
        await offer_damaged(context, person)
        return
    buttons: Rows = []
    limit = telegram_text.EXPORT_PART_LIMIT  # read here: one place, and tests lower it
    if pdf:
        # Laying out a long PDF takes a moment: off the event loop, so others are not kept waiting.
        parts = await asyncio.to_thread(export.pdf_parts, doc, limit)
        name, caption = export.filename(day, "pdf"), tx("worksheets.export.caption_pdf")
    else:
        parts = await asyncio.to_thread(export.markdown_parts, doc, limit)
        name, caption = export.filename(day, "md"), tx("worksheets.export.caption")
        buttons = [[(tx("worksheets.export.btn_pdf"), WorksheetButton("pdf").encode())]]
    buttons += context.offers.tidying.export_buttons(context, person)
    sent_parts = []
    count = len(parts)
    for index in range(1, count + 1):
        data = parts.pop(0)  # each part leaves memory once it is sent
        hold_if_cover(context, person.chat_id)  # a slow file may outlast a panic
        sent = await context.bot.send_document(
            person.chat_id,
            InputFile(io.BytesIO(data), filename=part_name(name, index, count)),
            caption=context.offers.tidying.export_caption(context, person, caption),
            reply_markup=keyboard(buttons),
            protect_content=True,
        )
        await remember(context.services, person, sent)
        sent_parts.append(sent)
    await context.offers.record_export.send_record_export(context, person, pdf=pdf)
    for sent in sent_parts:
        await context.offers.tidying.remove_later(context, person, sent)
    await offer_damaged(context, person)  # a row that did not open: left out, and said


class ExportFeature:
    """/export, and the file for whoever else offers it (the worksheets' [PDF] button)."""

    def install(self, hub: Hub) -> None:
        hub.command("export", export_command)
        hub.offers.exports = self

    async def send_export(self, context: Context, person: Person, *, pdf: bool) -> None:
        await send_export(context, person, pdf=pdf)
