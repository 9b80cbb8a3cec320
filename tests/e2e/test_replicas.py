"""Two replicas in two processes on one PostgreSQL, behind the emulator's webhook mode.

Each replica is `python -m bot` as deployed (own data dir for its lock, shared databases,
the same master key); `python -m bot webhook set` is the deploy step. The emulator plays
Telegram and the load balancer: updates go to the replicas in turn, one at a time per
chat, and here it also reorders across chats and delivers everything twice.
"""

from __future__ import annotations

import asyncio
import base64
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

import aiohttp
import pytest

from bot.core.clock import ManualClock
from bot.emulator import BotApiEmulator, SentMessage
from tests.helpers.bot import START, START_SECONDS, TOKEN, BotUnderTest, make_settings
from tests.helpers.postgres import fresh_schemas
from tests.helpers.webhook import free_port

SECRET = "replica_secret-2"


class Replicas:
    def __init__(self, emu: BotApiEmulator, env: dict[str, str], root: Path) -> None:
        self.emu = emu
        self.env = env
        self.root = root
        self.hooks: list[str] = []
        self.processes: list[subprocess.Popen[bytes]] = []

    def environment(self, name: str, port: int) -> dict[str, str]:
        clean = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "BOT_"))}
        return {
            **clean,
            **self.env,
            "BOT_DATA_DIR": str(self.root / name),
            "BOT_WEBHOOK_URL": f"http://127.0.0.1:{port}/tg/hook",
            "BOT_WEBHOOK_LISTEN": f"127.0.0.1:{port}",
            "BOT_LOG_LEVEL": "WARNING",
        }

    def start(self, name: str) -> str:
        port = free_port()
        log = (self.root / f"{name}.log").open("wb")
        process = subprocess.Popen(
            [sys.executable, "-m", "bot"],
            env=self.environment(name, port),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        self.processes.append(process)
        hook = f"http://127.0.0.1:{port}/tg/hook"
        self.hooks.append(hook)
        return hook

    async def ready(self) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + START_SECONDS
        async with aiohttp.ClientSession() as http:
            for hook, process in zip(self.hooks, self.processes, strict=True):
                health = hook.replace("/tg/hook", "/healthz")
                while True:
                    if process.poll() is not None:
                        raise AssertionError(f"a replica exited: {self.logs()}")
                    try:
                        async with http.get(health) as response:
                            if response.status == 200:
                                break
                    except aiohttp.ClientError:
                        pass
                    if loop.time() > deadline:
                        raise TimeoutError(f"a replica did not come up: {self.logs()}")
                    await asyncio.sleep(0.1)  # polling for readiness, bounded by the deadline

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace") for p in self.root.glob("*.log"))

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


@contextmanager
def stopped_at_end(replicas: Replicas) -> Iterator[Replicas]:
    try:
        yield replicas
    finally:
        replicas.stop()


@pytest.fixture
async def replicas(emulator: BotApiEmulator, tmp_path: Path) -> AsyncIterator[Replicas]:
    async with fresh_schemas("data", "keys") as urls:
        env = {
            "TELEGRAM_BOT_TOKEN": TOKEN,
            "TELEGRAM_BOT_API_URL": emulator.base_url,
            "BOT_MASTER_KEY": base64.b64encode(os.urandom(32)).decode(),
            "BOT_DATABASE_URL": urls["data"],
            "BOT_KEYS_DATABASE_URL": urls["keys"],
            "BOT_WEBHOOK_SECRET": SECRET,
        }
        with stopped_at_end(Replicas(emulator, env, tmp_path)) as found:
            found.start("one")
            found.start("two")
            await found.ready()
            yield found
        assert "Traceback" not in found.logs(), found.logs()


def person(emu: BotApiEmulator, root: Path) -> BotUnderTest:
    """Someone chatting; the bot is elsewhere (the replicas), so no runtime of its own."""
    return BotUnderTest(emu, make_settings(root / "unused", emu.base_url), ManualClock(START))


def texts(emu: BotApiEmulator, chat: int) -> list[str]:
    return [m.text or "" for m in emu.messages_to(chat)]


async def test_two_replicas_keep_each_chats_order_and_answer_every_crisis(
    replicas: Replicas, emulator: BotApiEmulator, tmp_path: Path
) -> None:
    # The deploy step, as an operator runs it.
    env = replicas.environment("cli", free_port())
    env["BOT_WEBHOOK_URL"] = replicas.hooks[0]
    # Not subprocess.run: the emulator answering it runs on this event loop.
    cli = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "webhook", "set", env=env, stderr=asyncio.subprocess.PIPE
    )
    _, err = await asyncio.wait_for(cli.communicate(), START_SECONDS)
    assert cli.returncode == 0, err.decode()
    assert emulator.webhook is not None and emulator.webhook.secret == SECRET
    pusher = await emulator.push_webhook(replicas.hooks, reorder=True, duplicate=True, seed=3)

    chats = range(2001, 2007)
    for chat in chats:
        emulator.user_sends(chat, "/start")
        emulator.user_sends(chat, "I'm in danger")
    someone = person(emulator, tmp_path)
    for chat in chats:
        await someone.next(chat, containing="Which country")
        await someone.next(chat, containing="112")  # international lines: no country yet
    await emulator.wait_until_consumed()
    for chat in chats:
        got = texts(emulator, chat)
        question = next(i for i, t in enumerate(got) if "Which country" in t)
        crisis = [i for i, t in enumerate(got) if "112" in t]
        # The crisis message was sent after /start, and was answered after it: the route
        # answers only once an update is handled, so a chat's order holds across replicas.
        assert question < crisis[0], got
        assert len(crisis) == 2, got  # delivered twice, answered twice: never held back
        assert sum("Which country" in t for t in got) == 1, got  # /start twice: once
    assert {url for _, url, _ in pusher.log.posts} == set(replicas.hooks)


async def test_a_settings_change_on_one_replica_changes_the_helplines_the_other_shows(
    replicas: Replicas, emulator: BotApiEmulator, tmp_path: Path
) -> None:
    first, second = replicas.hooks
    emulator.set_webhook(first, SECRET)
    someone = person(emulator, tmp_path)
    await emulator.push_webhook([first])
    await someone.onboard()  # United Kingdom, all on the first replica
    await emulator.push_webhook([second])
    await someone.send("/sos")
    uk = await someone.next(containing="116 123")
    assert "3114" not in (uk.text or "")  # the second replica knows them as British now

    await emulator.push_webhook([first])
    await someone.send("/settings")
    panel = await someone.next(predicate=lambda m: _has(m, "set:country"))
    await someone.press(panel, data="set:country")
    # The panel may turn into the question in place (an edit, not a new message).
    ask = await someone.find("Which country")
    await someone.press(ask, data="cty:FR")
    await someone.settle()
    await emulator.wait_until_consumed()

    await emulator.push_webhook([second])
    await someone.send("/sos")
    france = await someone.next(containing="3114")
    assert "116 123" not in (france.text or "")


def _has(message: SentMessage, data: str) -> bool:
    markup = message.reply_markup or {}
    return any(
        b.get("callback_data") == data for row in markup.get("inline_keyboard", []) for b in row
    )
