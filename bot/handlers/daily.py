"""Daily check-ins and the journal: the prompt message, its buttons, replies, /journal.

The scheduling and sending live in bot/services/delivery.py (see docs/scheduling.md), the
choice of which text is a reply in bot/services/journal.py. This module wires them in:
one repeating job, the schedule hook, the buttons (also offered in /settings), the idle-text
route that turns a reply into a journal entry, edits, and /journal.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import re
from zoneinfo import ZoneInfo

from telegram import InlineKeyboardMarkup, Message, Update
from telegram.error import BadRequest

from bot.app import Features, StApp
from bot.context import SERVICES_KEY, Context, Services
from bot.handlers.common import (
    Button,
    command_person,
    current_person,
    delete_quietly,
    keyboard,
    say,
)
from bot.problems import TELEGRAM_MESSAGE_LIMIT
from bot.services.delivery import TICK, Claim, Dispatcher, Sender, Snooze, schedule_of
from bot.services.journal import Entry, JournalService
from bot.services.people import Person
from bot.services.schedule import is_valid_timezone
from bot.services.send_policy import AT_MOST_ONCE
from bot.storage.deliveries import SENT, SNOOZED, DeliveryStore
from bot.storage.journal import JournalStore
from bot.texts import Tx

log = logging.getLogger(__name__)

PAGE_SIZE = 5
# Offsets come back in callback data, which is untrusted: keep them in a sane range.
MAX_OFFSET = 100_000
PROMPT_PREVIEW = 90  # characters of the prompt shown above each journal entry


# --- the prompt message ---------------------------------------------------------------


def prompt_text(tx: Tx, prompt: str, *, neutral: bool, shown: bool = False) -> str:
    """With neutral wording the message holds nothing but a plain header until the person
    taps "Show": expanded notifications and lock screens show several lines, not just the
    first. Otherwise the prompt itself opens the message."""
    body = f"{prompt}\n\n{tx('daily.reply_hint')}"
    if not neutral:
        return body
    if not shown:
        return f"{tx('daily.neutral_header')}\n\n{tx('daily.neutral_tap')}"
    return f"{tx('daily.neutral_header')}\n\n{body}"


def prompt_buttons(tx: Tx, local_date: str, *, show: bool = False) -> list[list[Button]]:
    # The date rides along so a button on an old prompt cannot act on today's.
    rows: list[list[Button]] = [[(tx("daily.btn_show"), f"dly:show:{local_date}")]] if show else []
    return [
        *rows,
        [(tx("daily.btn_snooze"), f"dly:snooze:{local_date}")],
        [(tx("daily.btn_skip"), f"dly:skip:{local_date}"), (tx("daily.btn_pause"), "dly:pause")],
    ]


def make_sender(app: StApp, services: Services) -> Sender:
    tx = services.tx
    markups: dict[str, InlineKeyboardMarkup] = {}

    async def send(claim: Claim) -> int:
        cache_key = f"{claim.local_date}:{claim.neutral}"
        markup = markups.get(cache_key)
        if markup is None:
            if len(markups) > 8:
                markups.clear()
            markup = markups[cache_key] = keyboard(
                prompt_buttons(tx, claim.local_date, show=claim.neutral)
            )
        message = await app.bot.send_message(
            claim.chat_id,
            prompt_text(tx, claim.prompt.text, neutral=claim.neutral),
            reply_markup=markup,
            disable_notification=claim.silent,
            # At most once: a timed-out prompt may have arrived, so it is not retried.
            rate_limit_args=AT_MOST_ONCE,
        )
        return int(message.message_id)

    return send


# --- journal rendering ----------------------------------------------------------------


def telegram_length(text: str) -> int:
    """Telegram counts message length in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def clip(text: str, units: int) -> str:
    if telegram_length(text) <= units:
        return text
    if units <= 1:
        return "…"[:units]
    cut = text[: units - 1]
    while telegram_length(cut) > units - 1:
        cut = cut[:-1]
    return cut.rstrip() + "…"


def _when(created_at: int, zone: str, now: dt.datetime) -> str:
    local = dt.datetime.fromtimestamp(created_at, ZoneInfo(zone))
    year = f" {local.year}" if local.year != now.astimezone(ZoneInfo(zone)).year else ""
    return f"{local:%a} {local.day} {local:%b}{year}, {local:%H:%M}"


def render_page(
    heading: str,
    entries: list[Entry],
    prompts: dict[str, str],
    zone: str,
    now: dt.datetime,
    limit: int = TELEGRAM_MESSAGE_LIMIT,
) -> str:
    """Newest first; each entry gets an equal share of what the message has room for, and
    a short entry's unused share passes on to the ones after it."""
    blocks: list[tuple[str, str]] = []
    for entry in entries:
        head = _when(entry.created_at, zone, now)
        prompt = prompts.get(entry.prompt_id or "")
        if prompt:
            head += f"\n“{clip(prompt, PROMPT_PREVIEW)}”"
        blocks.append((head, entry.text))
    fixed = telegram_length(heading) + sum(telegram_length(h) + 4 for h, _ in blocks)
    room = limit - fixed
    parts = [heading]
    for index, (head, text) in enumerate(blocks):
        share = max(room // (len(blocks) - index), 1)
        body = clip(text, share)
        room -= telegram_length(body)
        parts.append(f"{head}\n{body}")
    return "\n\n".join(parts)


# --- the feature ----------------------------------------------------------------------


class Daily:
    def __init__(
        self,
        features: Features,
        services: Services,
        dispatcher: Dispatcher,
        journal: JournalService,
    ) -> None:
        self.features = features
        self.services = services
        self.dispatcher = dispatcher
        self.journal = journal
        self._prompts = {p.id: p.text for p in services.content.prompts}

    async def tick(self, context: Context) -> None:
        app = context.application
        self.dispatcher.kick(lambda coro: app.create_task(coro, name="daily-prompts"))

    async def on_schedule_changed(self, context: Context, person: Person) -> None:
        await self.dispatcher.reschedule(person)

    # --- commands (the same choices as the buttons and /settings) -----------------------

    async def pause_command(self, update: Update, context: Context) -> None:
        if await command_person(update, context, missing="start.not_started") is not None:
            await self.on_button(update, context, "pause")

    async def skip_command(self, update: Update, context: Context) -> None:
        person = await command_person(update, context, missing="start.not_started")
        if person is not None:
            await self.on_button(update, context, f"skip:{self.dispatcher.today(person)}")

    async def checkin_command(self, update: Update, context: Context) -> None:
        person = await command_person(update, context, missing="start.not_started")
        if person is not None:
            await self.features.setup.show_settings(update, context, person)

    # --- buttons ------------------------------------------------------------------------

    async def on_button(self, update: Update, context: Context, arg: str) -> None:
        person = await current_person(update, context)
        if person is None:
            return
        action, _, rest = arg.partition(":")
        day, _, origin = rest.partition(":")
        from_settings = origin == "s"
        tx = context.services.tx
        if action in ("snooze", "skip", "show") and not _is_date(day):
            return
        if action == "show":
            await self._show_prompt(update, context, person, day)
            return
        if action == "snooze":
            result = await self.dispatcher.snooze(person, day)
            key = {
                Snooze.SET: "daily.snoozed",
                Snooze.EXPIRED: "daily.expired",
                Snooze.OFF: "daily.snooze_off",
            }[result]
            if result is Snooze.SET and not from_settings:
                await _drop_buttons(update)
            await say(context, person.chat_id, tx(key), person=person)
        elif action == "skip":
            await self._skip(update, context, person, day, from_settings=from_settings)
        elif action == "unskip":
            await self.dispatcher.unskip(person)
            await say(context, person.chat_id, tx("daily.unskipped"), person=person)
        elif action == "pause":
            person.profile.paused = True
            await self._schedule_changed(context, person)
            if not from_settings:
                await _drop_buttons(update)
            await say(
                context,
                person.chat_id,
                tx("daily.paused"),
                person=person,
                buttons=[[(tx("daily.btn_resume"), "dly:resume")]],
            )
        elif action == "resume":
            await self._resume(update, context, person)
        else:
            return
        if from_settings:
            await self.features.setup.show_settings(update, context, person)

    async def _show_prompt(
        self, update: Update, context: Context, person: Person, day: str
    ) -> None:
        """Neutral wording: reveal the prompt in place, when the person chooses to."""
        query = update.callback_query
        record = await self.dispatcher.store.record(person.person_id, day)
        prompt = self._prompts.get(record.prompt_id) if record is not None else None
        if query is None or not isinstance(query.message, Message) or prompt is None:
            return
        tx = context.services.tx
        text = prompt_text(tx, prompt, neutral=True, shown=True)
        with contextlib.suppress(BadRequest):  # already shown, or too old to edit
            await query.message.edit_text(text, reply_markup=keyboard(prompt_buttons(tx, day)))

    async def _skip(
        self, update: Update, context: Context, person: Person, day: str, *, from_settings: bool
    ) -> None:
        tx = context.services.tx
        # "Skip today" means today, whichever check-in's button was pressed: on yesterday's
        # prompt, skipping yesterday (already over) would say one thing and do nothing.
        day = self.dispatcher.today(person)
        await self.dispatcher.skip(person, day)
        if not from_settings:
            await _drop_buttons(update)
        record = await self.dispatcher.store.record(person.person_id, day)
        sent_already = record is not None and record.status in (SENT, SNOOZED)
        key = "daily.skipped" if sent_already else "daily.skip_set"
        await say(context, person.chat_id, tx(key), person=person)

    async def _resume(self, update: Update, context: Context, person: Person) -> None:
        tx = context.services.tx
        p = person.profile
        if p.daily_time is None or p.timezone is None:
            await say(context, person.chat_id, tx("daily.resume_needs_time"), person=person)
            return
        p.paused = False
        p.daily_enabled = True
        await self._schedule_changed(context, person)
        await _drop_buttons(update)
        await say(context, person.chat_id, tx("daily.resumed", time=p.daily_time), person=person)

    async def _schedule_changed(self, context: Context, person: Person) -> None:
        await context.services.people.save(person)
        for hook in self.features.setup.schedule_changed:
            await hook(context, person)

    async def settings_rows(self, context: Context, person: Person) -> list[list[Button]]:
        """Skip today (or undo it), and once today's check-in went out, snooze it."""
        if schedule_of(person.profile) is None:
            return []
        tx = context.services.tx
        today = self.dispatcher.today(person)
        record = await self.dispatcher.store.record(person.person_id, today)
        if person.profile.skip_date == today:
            return [[(tx("daily.btn_unskip_settings"), "dly:unskip::s")]] if record is None else []
        if record is None:
            return [[(tx("daily.btn_skip_settings"), f"dly:skip:{today}:s")]]
        if record.status in (SENT, SNOOZED):
            return [
                [
                    (tx("daily.btn_snooze"), f"dly:snooze:{today}:s"),
                    (tx("daily.btn_skip"), f"dly:skip:{today}:s"),
                ]
            ]
        return []

    # --- replies become journal entries -------------------------------------------------

    async def on_idle_text(
        self, update: Update, context: Context, person: Person, text: str
    ) -> bool:
        message = update.message
        if message is None or not text:
            return False
        quoted = message.reply_to_message
        reply_to = None
        if quoted is not None and quoted.from_user is not None and quoted.from_user.is_bot:
            reply_to = quoted.message_id
        if person.state and reply_to is None:
            return False  # a pending question gets free text, never the journal
        # An explicit reply to a check-in is a journal entry even mid-worksheet.
        prompt_id = await self.journal.prompt_for(person, reply_to, only_replies=bool(person.state))
        if prompt_id is None:
            return False
        await self.journal.add(person, prompt_id, message.message_id, text)
        context.note_saved(update.update_id)
        log.info("journal entry saved")
        if person.profile.discreet:
            # As with worksheet answers: once sealed, the words leave the chat.
            await delete_quietly(context, person.chat_id, [message.message_id])
        if context.crisis is None:
            # After a crisis reply a cheerful "saved" would jar; the entry is kept all the same.
            await say(context, person.chat_id, context.services.tx("journal.saved"), person=person)
        return True

    async def on_edit(self, update: Update, context: Context, person: Person, text: str) -> bool:
        message = update.edited_message
        if message is None or not text.strip():
            return False
        return await self.journal.edit(person, message.message_id, text.strip())

    # --- /journal -----------------------------------------------------------------------

    async def show_journal(self, update: Update, context: Context) -> None:
        person = await command_person(update, context, missing="start.not_started")
        if person is None:
            return
        text, buttons = await self._page(context, person, 0)
        await say(context, person.chat_id, text, person=person, buttons=buttons, protect=True)

    async def on_journal_button(self, update: Update, context: Context, arg: str) -> None:
        query = update.callback_query
        chat = update.effective_chat
        if query is None or chat is None:
            return
        message = query.message if isinstance(query.message, Message) else None
        if arg == "close":
            if message is not None:
                await delete_quietly(context, chat.id, [message.message_id])
            return
        # fullmatch on ASCII digits: str.isdigit() accepts "²", which int() refuses.
        if not re.fullmatch(r"[0-9]{1,6}", arg) or int(arg) > MAX_OFFSET or int(arg) % PAGE_SIZE:
            return
        person = await current_person(update, context)
        if person is None:
            return
        text, buttons = await self._page(context, person, int(arg))
        if message is not None:
            try:
                await message.edit_text(text, reply_markup=keyboard(buttons))
                return
            except BadRequest:
                pass  # unchanged or too old to edit: send the page anew
        await say(context, chat.id, text, person=person, buttons=buttons, protect=True)

    async def _page(
        self, context: Context, person: Person, offset: int
    ) -> tuple[str, list[list[Button]]]:
        tx = context.services.tx
        close = (tx("journal.btn_close"), "jrn:close")
        page = await self.journal.page(person, offset, PAGE_SIZE)
        if page.total and offset >= page.total:
            offset = (page.total - 1) // PAGE_SIZE * PAGE_SIZE
            page = await self.journal.page(person, offset, PAGE_SIZE)
        if not page.entries:
            text = tx("journal.empty")
            if schedule_of(person.profile) is None:
                text += "\n\n" + tx("journal.empty_daily_off")
            return text, [[close]]
        heading = tx(
            "journal.heading",
            first=offset + 1,
            last=offset + len(page.entries),
            total=page.total,
        )
        zone = person.profile.timezone
        zone = zone if zone and is_valid_timezone(zone) else "UTC"
        text = render_page(heading, page.entries, self._prompts, zone, context.services.clock())
        row: list[Button] = []
        if offset + PAGE_SIZE < page.total:
            row.append((tx("journal.btn_older"), f"jrn:{offset + PAGE_SIZE}"))
        if offset > 0:
            row.append((tx("journal.btn_newer"), f"jrn:{max(offset - PAGE_SIZE, 0)}"))
        return text, [row, [close]] if row else [[close]]


def _is_date(value: str) -> bool:
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return len(value) == 10


async def _drop_buttons(update: Update) -> None:
    """Take the buttons off the pressed prompt, so it cannot be pressed twice."""
    query = update.callback_query
    if query is None or not isinstance(query.message, Message):
        return
    with contextlib.suppress(BadRequest):  # already without buttons, or too old to edit
        await query.message.edit_reply_markup(reply_markup=None)


def connect(app: StApp, features: Features) -> None:
    """Add this feature's commands, routes and jobs."""
    services: Services = app.bot_data[SERVICES_KEY]
    store = DeliveryStore(services.db)
    dispatcher = Dispatcher(
        people=services.people,
        store=store,
        prompts=services.content.prompts,
        clock=services.clock,
        sender=make_sender(app, services),
        is_running=lambda: app.running,
    )
    journal = JournalService(JournalStore(services.db), store, services.clock)
    services.extras["daily"] = dispatcher
    services.extras["journal"] = journal
    daily = Daily(features, services, dispatcher, journal)
    features.commands += [
        ("journal", daily.show_journal),
        ("checkin", daily.checkin_command),
        ("pause", daily.pause_command),
        ("skip", daily.skip_command),
    ]
    features.router.on_callback("dly", daily.on_button)
    features.router.on_callback("jrn", daily.on_journal_button)
    features.router.on_idle_text(daily.on_idle_text)
    features.router.on_edit(daily.on_edit)
    features.setup.schedule_changed.append(daily.on_schedule_changed)
    features.setup.settings_rows.append(daily.settings_rows)
    if app.job_queue is not None:
        seconds = TICK.total_seconds()
        dispatcher.job = app.job_queue.run_repeating(
            daily.tick,
            interval=seconds,
            first=seconds,
            name="daily-prompts",
            job_kwargs={
                # A tick delayed by a busy loop still runs; missed ticks collapse into one.
                "misfire_grace_time": int(seconds * 4),
                "coalesce": True,
                "max_instances": 1,
            },
        )
