"""The urge records' service, built from the shared ones at install: the one place in
this package that constructs a store and a service."""

from __future__ import annotations

from bot.features.urge.service import UrgeService
from bot.features.worksheets.service import WorksheetService
from bot.framework.context import Services
from bot.storage.urge import UrgeStore


def build(services: Services, worksheets: WorksheetService) -> UrgeService:
    """`worksheets`: the safety plan's answers (the worksheets feature's offer)."""
    return UrgeService(UrgeStore(services.db), worksheets, services.people, services.clock)
