"""Numbers a test run should show even when everything passes (pytest hides prints of
passing tests): collected here, printed by conftest's terminal summary."""

from __future__ import annotations

LINES: list[str] = []


def report(line: str) -> None:
    LINES.append(line)
