"""The urge flow's own sections of /export: each hard moment, the held messages, My reasons
(opened in memory, like the rest of the export)."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.content.texts import Tx
from bot.core.export_parts import ExportEntry, ExportPart
from bot.features.urge.service import UrgeService, zone_of
from bot.people.service import Person


async def export_parts(urges: UrgeService, person: Person, tx: Tx) -> list[ExportPart]:
    """Its own sections: each hard moment, the held messages, My reasons."""
    zone = zone_of(person)

    def when(at: datetime) -> str:
        return at.astimezone(zone).strftime("%Y-%m-%d %H:%M")

    parts: list[ExportPart] = []
    moments: list[ExportEntry] = []
    for urge in await urges.urges(person, datetime.fromtimestamp(0, UTC)):
        if urge.follow_up is None:
            line = tx("urge.export.line", strength=urge.strength)
        else:
            line = tx("urge.export.line_after", strength=urge.strength, after=urge.follow_up)
        said: list[str] = []
        if urge.trigger is not None:
            said.append(tx("urge.export.trigger", trigger=tx(f"urge.trigger.{urge.trigger}")))
        if urge.trigger_text:
            said.append(urge.trigger_text)
        moments.append(ExportEntry(when(urge.at), line, "\n".join(said)))
    if moments:
        parts.append(ExportPart(tx("urge.export.title"), tuple(moments)))
    drafts = [ExportEntry(when(d.created_at), None, d.text) for d in await urges.drafts(person)]
    if drafts:
        parts.append(ExportPart(tx("urge.export.drafts"), tuple(drafts)))
    reasons = await urges.reasons(person)
    if reasons:
        parts.append(ExportPart(tx("urge.export.reasons"), (ExportEntry("", None, reasons),)))
    return parts
