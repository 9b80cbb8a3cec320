"""The worksheets' services, built from the shared ones at install: the one place in this
package that constructs stores and services."""

from __future__ import annotations

from dataclasses import dataclass

from bot.features.worksheets.flow import WorksheetFlow
from bot.features.worksheets.service import WorksheetService
from bot.framework.context import Services
from bot.storage.worksheets import WorksheetStore


@dataclass(frozen=True)
class WorksheetServices:
    answers: WorksheetService  # the stored answers, sealed
    flow: WorksheetFlow  # answering a worksheet: what each answer and button means


def build(services: Services) -> WorksheetServices:
    answers = WorksheetService(
        WorksheetStore(services.db), services.content.worksheets, services.clock, services.keys
    )
    return WorksheetServices(answers, WorksheetFlow(answers, services.people, services.ledger))
