"""What a feature adds to /export: its own sections of entries (the urge flow's hard
moments, held messages, reasons). Plain data, so a feature offers its sections without
importing the export feature that renders them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ExportEntry:
    when: str
    prompt: str | None
    text: str


@dataclass(frozen=True)
class ExportPart:
    """A feature's own section (the urge flow's hard moments, held messages, reasons)."""

    title: str
    entries: tuple[ExportEntry, ...]
