"""Reading labelled messages (JSON Lines: text, lang, label, kind, urgent), for training
the crisis model and for judging it: one reader, so both skip the same bad lines."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def labelled_rows(paths: list[Path]) -> Iterator[tuple[Path, int, dict[str, Any]]]:
    """(file, line number, row) for each line with a text and a label of crisis or calm;
    other lines are named on stderr and skipped."""
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                print(f"{path}:{number}: not JSON, skipped", file=sys.stderr)
                continue
            if not isinstance(row, dict) or not isinstance(row.get("text"), str):
                print(f"{path}:{number}: no text, skipped", file=sys.stderr)
                continue
            if row.get("label") not in ("crisis", "calm"):
                print(f"{path}:{number}: label must be crisis or calm, skipped", file=sys.stderr)
                continue
            yield path, number, row
