"""The exporter, built from the shared services and what the features whose writing it
gathers offer (the worksheets' answers, the journal, other features' own sections): the
one place in this package that constructs a service."""

from __future__ import annotations

from collections.abc import Sequence

from bot.features.checkins.journal import JournalService
from bot.features.export.exporter import Exporter, PartSource
from bot.features.worksheets.service import WorksheetService
from bot.framework.context import Services


def build(
    services: Services,
    worksheets: WorksheetService,
    journal: JournalService,
    sources: Sequence[PartSource],
) -> Exporter:
    return Exporter(worksheets, journal, services.clock, sources=sources)
