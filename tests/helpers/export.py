"""A small export document for the export builders' tests: worksheets and journal entries
in the shapes the builders take, without storage or a bot."""

from __future__ import annotations

from bot.core.export_parts import ExportEntry
from bot.features.export.render import (
    ExportAnswer,
    ExportDocument,
    ExportSection,
    ExportWorksheet,
)


def document(
    answers: int = 2,
    *,
    parts: tuple[str, ...] = ("an answer",),
    first: tuple[str, ...] | None = None,
    journal: int = 0,
) -> ExportDocument:
    """`answers` answers of `parts` each, except the first, which has `first` if given."""
    items = tuple(
        ExportAnswer(f"Question {i}?", "2026-11-30", first if i == 0 and first else parts)
        for i in range(answers)
    )
    entries = tuple(
        ExportEntry("2026-11-30 08:15", "A prompt" if i % 2 else None, f"entry {i}")
        for i in range(journal)
    )
    return ExportDocument(
        title="Your notes",
        subtitle="Exported on 2026-11-30.",
        worksheets=(
            ExportWorksheet("A worksheet", "Started 2026-11-29", (ExportSection("S", items),)),
        ),
        journal_title="Check-in replies",
        journal=entries,
        replaced_note="Emoji appear as their names in [brackets].",
    )
