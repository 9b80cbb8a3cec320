"""Numbers a test run should show even when everything passes (pytest hides prints of
passing tests): collected here, printed by conftest's terminal summary.

Under pytest-xdist a test runs in a worker process: conftest moves each test's lines onto
its report (which travels to the controller) and gathers them into SHOWN there."""

from __future__ import annotations

LINES: list[str] = []  # reported by the test now running, not yet on its report
SHOWN: list[str] = []  # gathered from the reports, for the summary


def report(line: str) -> None:
    LINES.append(line)
