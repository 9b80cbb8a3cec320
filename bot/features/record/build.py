"""The record's services, built from the shared ones at install: the one place in this
package that constructs a store and services."""

from __future__ import annotations

from dataclasses import dataclass

from bot.features.record.flow import RecordFlow
from bot.features.record.service import RecordService
from bot.framework.context import Services
from bot.storage.record import RecordStore


@dataclass(frozen=True)
class RecordServices:
    record: RecordService
    flow: RecordFlow  # writing an entry: what each answer and button means


def build(services: Services) -> RecordServices:
    record = RecordService(RecordStore(services.db), services.people, services.clock)
    return RecordServices(record, RecordFlow(record))
