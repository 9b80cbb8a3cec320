"""The record's files: photos, screenshots, voice notes and documents sent while an entry
is written (fetched from Telegram into memory, sealed, never on disk in plaintext), sending
them back, and the record's export for an advocate (built in memory, removable)."""

from __future__ import annotations

import asyncio
import io
import logging

from telegram import InputFile, Message, Update
from telegram.constants import FileSizeLimit
from telegram.error import TelegramError
from telegram.ext import ApplicationHandlerStop

from bot.core import telegram_text
from bot.core.buttons import Rows
from bot.core.telegram_text import split_caption
from bot.features.export.parts import part_name
from bot.features.export.render import zone_of
from bot.features.record import export as record_export
from bot.features.record import views
from bot.features.record.callbacks import RecordButton
from bot.features.record.service import MAX_FILES, FileIn
from bot.features.record.state import AMEND_STEP, record_state
from bot.framework.chat import (
    current_person,
    delete_and_forget,
    hold_if_cover,
    keyboard,
    remember,
    tell,
)
from bot.framework.context import Context
from bot.people.service import Person

log = logging.getLogger(__name__)

# Telegram's own limit for a file a bot downloads (getFile): we keep files up to it.
DOWNLOAD_LIMIT: int = FileSizeLimit.FILESIZE_DOWNLOAD
DOWNLOAD_LIMIT_MB = DOWNLOAD_LIMIT // 1_000_000  # PTB and Telegram count in decimal megabytes


async def on_media(update: Update, context: Context) -> None:
    """A file sent while an entry is being written: fetched into memory, sealed, kept
    with the entry. Anything else is left to the fallback's kind reply."""
    message = update.message
    if message is None or update.effective_user is None:
        return
    person = await current_person(update, context)
    state = record_state(person.state) if person is not None else None
    if person is None or state is None or state.step == AMEND_STEP:
        return
    record, tx = context.services.record, context.tx
    await remember(context.services, person, message)
    found = file_of(message)
    if found is None:
        return
    file_id, size, incoming = found
    if size > DOWNLOAD_LIMIT:
        await tell(context, person, tx("record.file_too_big", limit=DOWNLOAD_LIMIT_MB))
        raise ApplicationHandlerStop
    if await record.file_count(person, state.entry_id) >= MAX_FILES:
        await tell(context, person, tx("record.file_too_many", limit=MAX_FILES))
        raise ApplicationHandlerStop
    try:
        telegram_file = await context.bot.get_file(file_id)
        data = bytes(await telegram_file.download_as_bytearray())
    except TelegramError as exc:
        log.warning("record file not fetched: %s", type(exc).__name__)
        await tell(context, person, tx("record.file_failed"))
        raise ApplicationHandlerStop from None
    if len(data) > DOWNLOAD_LIMIT:
        await tell(context, person, tx("record.file_too_big", limit=DOWNLOAD_LIMIT_MB))
        raise ApplicationHandlerStop
    incoming = FileIn(incoming.kind, incoming.mime, incoming.name, incoming.caption, data)
    count = await record.add_file(person, state.entry_id, message.message_id, incoming)
    context.note_saved(update.update_id)
    if person.profile.discreet:
        # Discreet mode already asked for sealed words to leave the chat: files too.
        await delete_and_forget(context, person, [message.message_id])
        await tell(context, person, tx("record.file_removed"))
    else:
        text, rows = views.file_saved_view(tx, state.entry_id, message.message_id, count)
        await tell(context, person, text, rows)
    raise ApplicationHandlerStop


async def send_files(context: Context, person: Person, entry_id: str) -> None:
    """The entry's files, opened in memory and sent back protected, each with Hide."""
    record = context.services.record
    entry = await record.read(person, entry_id)
    if entry is None:
        return
    for index, attachment in enumerate(entry.files, 1):
        data = await record.file_bytes(person, entry_id, attachment.file_id)
        if data is None:
            continue
        name = attachment.name or f"file-{index}"
        # A Premium user's caption may be longer than a bot may send: cut, so the file can
        # always be shown, with the whole caption as the message after it.
        caption, whole = split_caption(attachment.caption or "")
        hide = [[(context.tx("record.btn_hide"), RecordButton("rmx").encode())]]
        hold_if_cover(context, person.chat_id)  # a slow file may outlast a panic
        sent = await context.bot.send_document(
            person.chat_id,
            InputFile(io.BytesIO(data), filename=name),
            caption=caption or None,
            protect_content=True,
            reply_markup=keyboard(hide),
        )
        await remember(context.services, person, sent)
        if whole is not None:
            await tell(context, person, whole, hide, protect=True)


def file_of(message: Message) -> tuple[str, int, FileIn] | None:
    """(file id, announced size, what it is) of the file a message carries."""
    caption = message.caption or ""
    if message.photo:
        largest = message.photo[-1]
        name = f"photo-{message.message_id}.jpg"
        return (
            largest.file_id,
            largest.file_size or 0,
            FileIn("photo", "image/jpeg", name, caption, b""),
        )
    if message.document is not None:
        doc = message.document
        mime = doc.mime_type or "application/octet-stream"
        name = doc.file_name or f"document-{message.message_id}"
        return doc.file_id, doc.file_size or 0, FileIn("document", mime, name, caption, b"")
    for kind, media, ext in (
        ("voice", message.voice, "ogg"),
        ("audio", message.audio, "mp3"),
        ("video", message.video, "mp4"),
    ):
        if media is not None:
            mime = media.mime_type or "application/octet-stream"
            name = f"{kind}-{message.message_id}.{ext}"
            return media.file_id, media.file_size or 0, FileIn(kind, mime, name, caption, b"")
    return None


async def send_record_export(context: Context, person: Person, *, pdf: bool) -> bool:
    """The record as a Markdown file (or a PDF), built in memory, sent protected, with a
    button that removes it from the chat. False when there is nothing to export."""
    tx, services = context.tx, context.services
    if not await services.record.count(person):
        return False
    now = services.clock()
    title = views.word(tx, person.profile.neutral_wording, "doc_title")
    doc = await record_export.collect(
        services.record, person, tx, now, context.formats, title=title
    )
    day = now.astimezone(zone_of(person)).date()
    remove = (tx("record.btn_remove_export"), RecordButton("rmx").encode())
    limit = telegram_text.EXPORT_PART_LIMIT  # read here: one place, and tests lower it
    if pdf:
        parts = await asyncio.to_thread(record_export.pdf_parts, doc, limit)
        name, caption = record_export.filename(day, "pdf"), tx("record.export_caption_pdf")
        rows: Rows = [[remove]]
    else:
        parts = await asyncio.to_thread(record_export.markdown_parts, doc, limit)
        name = record_export.filename(day, "md")
        caption = views.word(tx, person.profile.neutral_wording, "export_caption")
        rows = [[(tx("record.btn_pdf"), RecordButton("pdf").encode())], [remove]]
    del doc  # the opened entries and photos: only the parts are needed now
    count = len(parts)
    for index in range(1, count + 1):
        data = parts.pop(0)  # each part leaves memory once it is sent
        hold_if_cover(context, person.chat_id)  # a slow file may outlast a panic
        sent = await context.bot.send_document(
            person.chat_id,
            InputFile(io.BytesIO(data), filename=part_name(name, index, count)),
            caption=caption,
            reply_markup=keyboard(rows),
            protect_content=True,
        )
        await remember(context.services, person, sent)
    return True
