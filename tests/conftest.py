"""Shared fixtures: the real bot (Runtime, as `python -m bot` starts it) against the emulator.

Tests talk like a person: `await bot.send("hi")`, `msg = await bot.next()`,
`await bot.press(msg, "Skip")`. The clock is a ManualClock; nothing sleeps for timing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from bot.core.clock import ManualClock
from bot.emulator import BotApiEmulator
from bot.geo import zone_index
from bot.logs import pin_noisy_loggers
from tests.helpers.bot import (
    START,
    BotUnderTest,
    make_settings,
)
from tests.helpers.reporting import LINES, SHOWN

# Property tests judge what the code returns, never how fast: hypothesis's per-example
# deadline (200 ms) and its too-slow health check fail them on a loaded machine.
hypothesis_settings.register_profile(
    "steady", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
hypothesis_settings.load_profile("steady")


_MEASURED = "steady-measured"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    # Where the test ran (a worker, under xdist): its lines go with its report.
    report = yield
    if LINES:
        item.user_properties.append((_MEASURED, tuple(LINES)))
        LINES.clear()
    return report


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    # Where the run is summarised: each test's last report carries all its lines.
    if report.when == "teardown":
        for name, lines in report.user_properties:
            if name == _MEASURED:
                SHOWN.extend(lines)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if SHOWN:
        terminalreporter.section("measured by the tests")
        for line in SHOWN:
            terminalreporter.write_line(line)


@pytest.fixture(scope="session", autouse=True)
def _zone_index_built() -> None:
    """`python -m bot` builds the time-zone index before serving; so do the tests, once,
    rather than inside the first onboarding's event loop."""
    zone_index.warm()


@pytest.fixture
async def emulator(clock: ManualClock) -> AsyncIterator[BotApiEmulator]:
    emu = BotApiEmulator(clock=lambda: clock().timestamp())
    await emu.start()
    try:
        yield emu
    finally:
        await emu.stop()


@pytest.fixture
async def bot(
    emulator: BotApiEmulator, tmp_path: Path, clock: ManualClock
) -> AsyncIterator[BotUnderTest]:
    pin_noisy_loggers()
    under_test = BotUnderTest(emulator, make_settings(tmp_path / "data", emulator.base_url), clock)
    await under_test.start()
    try:
        yield under_test
    finally:
        await under_test.stop()
        assert not emulator.internal_errors, emulator.internal_errors


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)
