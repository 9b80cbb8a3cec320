"""Gathers what /export puts in a file: every worksheet answer and journal entry of a
person, opened in memory only. The file formats themselves are in bot/features/export/render.py."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from datetime import date

from bot.content.locales import Locale
from bot.content.texts import Tx
from bot.core.clock import Clock
from bot.core.export_parts import ExportPart
from bot.features.checkins.journal import JournalService
from bot.features.export import render as export
from bot.features.worksheets.service import WorksheetService
from bot.people.service import Person

# A feature with sections of its own in the export: what they hold for this person.
PartSource = Callable[[Person, Tx], Awaitable[list[ExportPart]]]


class Exporter:
    def __init__(
        self,
        worksheets: WorksheetService,
        journal: JournalService,
        clock: Clock,
        *,
        sources: Sequence[PartSource] = (),
    ) -> None:
        self._sources = sources  # read at each export: a feature installed later counts too
        self._worksheets = worksheets
        self._journal = journal
        self._clock = clock

    async def document(self, person: Person, locale: Locale) -> tuple[export.ExportDocument, date]:
        """The document in the person's language, and their local date (it names the file)."""
        now = self._clock()
        doc = await export.collect(self._worksheets, self._journal, person, locale, now)
        parts = [part for source in self._sources for part in await source(person, locale.texts)]
        if parts:
            doc = dataclasses.replace(doc, parts=tuple(parts))
        return doc, now.astimezone(export.zone_of(person)).date()
