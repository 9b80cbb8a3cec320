"""An acknowledged answer survives `kill -9`: the bot runs as `python -m bot`, as deployed.

The emulator runs in this test's event loop; the bot is a separate process talking to it
over HTTP. Once the person has seen "Saved", the answer must be on disk, so killing the
process without any chance to clean up loses nothing.
"""

from __future__ import annotations

import asyncio
import base64
import os
import signal
import sys
from pathlib import Path

from bot.core.clock import ManualClock
from bot.emulator import BotApiEmulator
from tests.conftest import START, START_SECONDS, TOKEN, BotUnderTest, make_settings

ANSWER = "written just before the crash"


async def _start_bot(
    emulator: BotApiEmulator, data_dir: Path, key: str, log: Path
) -> asyncio.subprocess.Process:
    """`python -m bot`, returned once it polls: ready by what it does, not after a time
    (its start took 6.8-13.5 s on a loaded machine)."""
    polls = emulator.stats["getUpdates"]
    process = await _spawn(emulator, data_dir, key, log)
    ready = asyncio.ensure_future(
        emulator.wait_for_call("getUpdates", count=polls + 1, timeout=START_SECONDS)
    )
    exited = asyncio.ensure_future(process.wait())
    try:
        await asyncio.wait({ready, exited}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        exited.cancel()
    if not ready.done():
        ready.cancel()
        await _kill(process)
        raise AssertionError(f"the bot exited at start, code {process.returncode}; see {log}")
    if ready.exception() is not None:
        await _kill(process)
    ready.result()  # a start that hung past START_SECONDS fails here
    return process


async def _spawn(
    emulator: BotApiEmulator, data_dir: Path, key: str, log: Path
) -> asyncio.subprocess.Process:
    env = {
        **os.environ,
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "TELEGRAM_BOT_API_URL": emulator.base_url,
        "BOT_DATA_DIR": str(data_dir),
        "BOT_MASTER_KEY": key,
        "BOT_LOG_LEVEL": "WARNING",
        # What is tested is durability; the crisis model's reading of every message (up to
        # its budget on a loaded test machine) only slows the steps this test waits for.
        "BOT_CRISIS_MODEL": "0",
    }
    env.pop("BOT_CONTENT_DIR", None)
    with log.open("ab") as out:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            env=env,
            cwd=data_dir.parent,  # no stray .env from the repository
            stdout=out,
            stderr=out,
        )
    return process


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(c) for c in (task / "children").read_text().split()}
    return found


def _alive(pids: set[int]) -> bool:
    return any(Path(f"/proc/{p}").exists() for p in pids)


async def _gone(pids: set[int], within: float = START_SECONDS) -> bool:
    """Whether every process in `pids` has exited within `within` seconds (polled)."""
    deadline = asyncio.get_running_loop().time() + within
    while _alive(pids):
        if asyncio.get_running_loop().time() > deadline:
            return False
        await asyncio.sleep(0.2)
    return True


async def _kill(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        os.kill(process.pid, signal.SIGKILL)  # no shutdown, no flush: a power cut, in effect
    await process.wait()


async def test_kill_9_after_saved_loses_nothing(emulator: BotApiEmulator, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    key = base64.b64encode(os.urandom(32)).decode()
    log = tmp_path / "bot.log"
    # The person's side of the chat only; the bot under test is the subprocess.
    person = BotUnderTest(emulator, make_settings(data_dir, emulator.base_url), ManualClock(START))

    process = await _start_bot(emulator, data_dir, key, log)
    try:
        await person.onboard()
        await person.send("/start ws_bond_or_love")
        intro = await person.next(containing="Bond or love?")
        await person.press(intro, "Start")
        await person.next(containing="Question 1 of")
        await person.send(ANSWER)
        await person.next(containing="Saved")
        helpers = _children(process.pid)  # the chart worker and its resource tracker
        await _kill(process)
        assert process.returncode == -signal.SIGKILL
        # A bot killed outright leaves no worker running behind it.
        assert helpers and await _gone(helpers), helpers

        process = await _start_bot(emulator, data_dir, key, log)
        await person.send("/resume")
        view = await person.next(containing="Question 1 of")
        assert ANSWER in (view.text or "")
        await person.send("/export")
        document = await person.next(predicate=lambda m: m.document is not None)
        assert document.document is not None
        assert f"> {ANSWER}" in document.document.data.decode()
    finally:
        await _kill(process)
    assert "Traceback" not in log.read_text(errors="replace")
