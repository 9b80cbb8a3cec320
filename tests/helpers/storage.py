"""What a storage test runs against (both engines)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Targets:
    """Where a test's data database and key store are: two files, or two schemas."""

    engine: str
    data: Path | str
    keys: Path | str
