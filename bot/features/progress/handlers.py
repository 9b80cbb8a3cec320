"""The picture of the waves getting smaller (issue 15): /progress, no-contact days
(/nocontact, with the optional line in the daily check-in) and the check-in's 1-5 mood tap.
The urge flow itself is bot/features/urge/handlers.py."""

from __future__ import annotations

from datetime import date

from telegram import Update

from bot.content.urge_model import reading_text
from bot.core import local_format
from bot.core.languages import LANGUAGES
from bot.features.progress.callbacks import MoodButton, NoContactButton
from bot.features.progress.chart import ChartLabels
from bot.features.progress.no_contact import MarkKind, NoContact, State
from bot.features.progress.prefs import NoContactPrefs
from bot.features.record.dates import parse_when
from bot.features.urge.service import UrgeService, zone_of
from bot.features.urge.views import earlier_view, no_contact_view, reset_confirm_view
from bot.framework.chat import (
    Button,
    command_person,
    current_person,
    hold_if_cover,
    remember,
    replace_or_say,
    say,
    tell,
)
from bot.framework.context import Context
from bot.framework.hub import Hub
from bot.people.service import Person


class ProgressFeature:
    def install(self, hub: Hub) -> None:
        hub.profile_record(NoContactPrefs)
        hub.command("progress", self.progress_command)
        hub.command("nocontact", self.no_contact_command)
        hub.router.on_callback(NoContactButton, self.on_no_contact)
        hub.router.on_callback(MoodButton, self.on_mood)
        hub.hooks.settings_rows.append(self.settings_rows)

    async def settings_rows(self, context: Context, person: Person) -> list[list[Button]]:
        return [[(context.tx("nocontact.btn_settings"), NoContactButton("show").encode())]]

    async def no_contact_command(self, update: Update, context: Context) -> None:
        person = await command_person(update, context, missing="start.not_started")
        if person is None:
            return
        urges, tx = _urges(context), context.tx
        count = await urges.count(person)
        typed = " ".join(context.args or [])
        if typed and count.state is State.OFF:
            # "/nocontact 3 November": the count began on that day, read the local way.
            today = urges.now().astimezone(zone_of(person)).date()
            languages = (context.language, *LANGUAGES)
            found = parse_when(typed, languages, today, country=person.profile.country)
            if found is not None and found.day <= today:
                await self._start_on(context, update, person, found.day, edit=False)
                return
            text, rows = earlier_view(tx, today, context.formats, lead=tx("nocontact.unclear"))
            await tell(context, person, text, rows)
            return
        shown = person.profile.part(NoContactPrefs).nocontact_in_checkin
        await tell(context, person, *no_contact_view(tx, count, in_checkin=shown))

    async def _start_on(
        self, context: Context, update: Update, person: Person, day: date, *, edit: bool
    ) -> None:
        tx, urges = context.tx, _urges(context)
        marked = await urges.mark(person, MarkKind.START, since=day)
        shown = person.profile.part(NoContactPrefs).nocontact_in_checkin
        if marked is None:
            # Before a count that was stopped, or a stale picker: the count as it stands.
            current = await urges.count(person)
            text, rows = no_contact_view(tx, current, in_checkin=shown)
            if current.state is State.OFF:
                today = urges.now().astimezone(zone_of(person)).date()
                text, rows = earlier_view(tx, today, context.formats, lead=tx("nocontact.unclear"))
        else:
            _, rows = no_contact_view(tx, marked, in_checkin=shown)
            text = _started_text(context, marked)
        if edit:
            await replace_or_say(context, update, text, person=person, buttons=rows)
        else:
            await tell(context, person, text, rows)

    async def progress_command(self, update: Update, context: Context) -> None:
        person = await command_person(update, context, missing="start.not_started")
        if person is None:
            return
        services, tx = context.services, context.tx
        data, reading = await _urges(context).progress(person)
        if not data.urges and not data.moods and not data.stretches:
            await tell(context, person, tx("progress.empty"))
            return
        caption = reading_text(tx, reading)
        rendered = await services.chart.render(data, ChartLabels.from_texts(tx, context.formats))
        hold_if_cover(context, person.chat_id)  # a slow file may outlast a panic
        message = await context.bot.send_photo(
            person.chat_id, rendered.png, caption=caption, protect_content=True
        )
        await remember(services, person, message)

    async def on_no_contact(self, update: Update, context: Context, data: NoContactButton) -> None:
        person = await current_person(update, context)
        if person is None:
            return
        tx = context.tx
        urges = _urges(context)
        if data.value == "show":
            count = await urges.count(person)
            shown = person.profile.part(NoContactPrefs).nocontact_in_checkin
            await tell(context, person, *no_contact_view(tx, count, in_checkin=shown))
            return
        if data.value in ("inon", "inoff"):
            person.profile.part(NoContactPrefs).nocontact_in_checkin = data.value == "inon"
            await context.services.people.save(person)
            count = await urges.count(person)
            key = "nocontact.checkin_on" if data.value == "inon" else "nocontact.checkin_off"
            _, rows = no_contact_view(
                tx, count, in_checkin=person.profile.part(NoContactPrefs).nocontact_in_checkin
            )
            await replace_or_say(context, update, tx(key), person=person, buttons=rows)
            return
        if data.value == "earlier":
            today = urges.now().astimezone(zone_of(person)).date()
            text, rows = earlier_view(tx, today, context.formats)
            await replace_or_say(context, update, text, person=person, buttons=rows)
            return
        if data.since is not None:
            await self._start_on(context, update, person, data.since, edit=True)
            return
        if data.value == "reset":
            text, rows = reset_confirm_view(tx)
            await replace_or_say(context, update, text, person=person, buttons=rows)
            return
        kinds = {
            "start": (MarkKind.START, "nocontact.started"),
            "pause": (MarkKind.PAUSE, "nocontact.paused"),
            "resume": (MarkKind.RESUME, "nocontact.resumed"),
            "resetok": (MarkKind.RESET, "nocontact.reset"),
            "stop": (MarkKind.STOP, "nocontact.stopped"),
        }
        found = kinds.get(data.value)
        marked = await urges.mark(person, found[0]) if found is not None else None
        shown = person.profile.part(NoContactPrefs).nocontact_in_checkin
        if marked is None or found is None:  # "Keep my count", or a stale button
            text, rows = no_contact_view(tx, await urges.count(person), in_checkin=shown)
        else:
            _, rows = no_contact_view(tx, marked, in_checkin=shown)
            text = tx(found[1], day=marked.day)
        await replace_or_say(context, update, text, person=person, buttons=rows)

    async def on_mood(self, update: Update, context: Context, data: MoodButton) -> None:
        person = await current_person(update, context)
        if person is None:
            return
        await _urges(context).rate_day(person, data.day, data.rating)
        await say(
            context,
            person.chat_id,
            context.tx("mood.noted", rating=data.rating),
            person=person,
            silent=True,
        )


def _started_text(context: Context, count: NoContact) -> str:
    if count.began is None or count.day <= 1:
        return context.tx("nocontact.started")
    began = local_format.long_day(count.began, context.formats)
    return context.tx("nocontact.started_on", date=began, day=count.day)


def _urges(context: Context) -> UrgeService:
    return context.offers.urges
