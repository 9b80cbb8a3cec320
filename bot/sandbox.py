"""`python -m bot sandbox`: the real bot against the local emulator, chatting in this terminal.

You type as a user; the bot's messages print with their buttons numbered, and typing a
number presses one of the latest message's buttons (older buttons still sit in a real chat,
but a number typed by habit should not press an old question's answer). Lines starting
with ':' are sandbox commands (:help): `:lang es` to be a person whose Telegram is in
Spanish, `:reply N text` to answer message N as Telegram's Reply does.

The sandbox shows what discretion is about, which a chat window would show a person: the
files and pictures the bot sends (saved in a folder it names, with their captions, so the
/progress chart can be opened), which of your own
messages the bot deleted, and that a message's old buttons go when it changes. Log lines go
to a file in the data dir, not into the conversation.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import re
import sys
from collections.abc import Coroutine
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bot.config import Settings
from bot.core.clock import ShiftedClock
from bot.crypto import MasterKey, random_key
from bot.emulator import BotApiEmulator, SentDocument, SentMessage
from bot.features.checkins.handlers import DailyFeature
from bot.keys import write_key_file
from bot.logs import configure_logging
from bot.runtime import Runtime

SANDBOX_USER = 424242
SANDBOX_TOKEN = "1000000001:sandbox-token-not-a-secret-0000"  # noqa: S105 - only the local emulator sees it
HELP = """Sandbox commands:
  <text>      send a message as the user
  <number>    press the button with that number (the latest message's buttons)
  :reply N T  reply to message number N with text T (as Telegram's Reply)
  :lang es    be a person whose Telegram is in that language (en es fr de it nl pt)
  :edit N T   edit your message number N to text T
  :sticker    send a sticker   :photo [caption]   send a photo
  :next       jump the sandbox's clock to your next check-in and deliver it
  :later 12h  move the sandbox's clock ahead (h or m); a check-in over 2 h late is skipped
  :quit       stop (Ctrl-D works too)"""


def _buttons(message: SentMessage) -> list[tuple[str, str]]:
    markup = message.reply_markup or {}
    rows: list[list[dict[str, Any]]] = markup.get("inline_keyboard", [])
    return [(b.get("text", ""), b.get("callback_data", "")) for row in rows for b in row]


def parse_later(text: str) -> timedelta | None:
    match = re.fullmatch(r"\s*(\d{1,4})\s*([hm])\s*", text)
    if match is None:
        return None
    amount = int(match.group(1))
    return timedelta(hours=amount) if match.group(2) == "h" else timedelta(minutes=amount)


class Terminal:
    def __init__(
        self,
        emulator: BotApiEmulator,
        runtime: Runtime | None = None,
        clock: ShiftedClock | None = None,
        exports: Path | None = None,
    ) -> None:
        self.emu = emulator
        self.runtime = runtime
        self.clock = clock
        self.exports = exports
        self.tasks: set[asyncio.Task[None]] = set()
        self.seen: dict[int, tuple[int, bool]] = {}  # message id -> (edits, deleted)
        self.pressable: dict[int, tuple[int, str]] = {}
        self.numbers_of: dict[int, list[int]] = {}  # message id -> its current button numbers
        self.gone: set[int] = set()  # numbers of buttons that were edited or deleted away
        self.earlier: set[int] = set()  # numbers of buttons on messages older than the latest
        self.mine: set[int] = set()  # ids of the messages typed here
        self.next_number = 1
        self.language = "en"  # the language_code Telegram would send for this person
        self.latest = 0  # the id of the latest bot message: only its buttons are pressable

    def _forget_buttons(self, message_id: int) -> None:
        for number in self.numbers_of.pop(message_id, []):
            self.pressable.pop(number, None)
            self.gone.add(number)

    def show_changes(self) -> None:
        deleted = self.emu.deleted_ids(SANDBOX_USER)
        for message_id in sorted(self.mine & deleted):
            self.mine.discard(message_id)
            print(f"  (your message #{message_id} was deleted: it is gone from the chat)")
        for message in self.emu.messages_to(SANDBOX_USER):
            state = (message.edits, message.deleted)
            before = self.seen.get(message.message_id)
            if before == state:
                continue
            self.seen[message.message_id] = state
            self._forget_buttons(message.message_id)
            if message.deleted:
                if before is not None:
                    print(f"  (bot message #{message.message_id} was deleted)")
                continue
            label = "edited" if before is not None else "bot"
            print(f"\n[{label} #{message.message_id}]")
            for sent_file in (message.document, message.photo):
                if sent_file is not None:
                    print(f"  {self._save(sent_file)}")
                    for line in (sent_file.caption or "").splitlines():
                        print(f"  {line}")
            for line in (message.text or "").splitlines():
                print(f"  {line}")
            numbers = self.numbers_of.setdefault(message.message_id, [])
            for text, data in _buttons(message):
                number = self.next_number
                self.next_number += 1
                self.pressable[number] = (message.message_id, data)
                numbers.append(number)
                print(f"  [{number}] {text}")
            if message.message_id > self.latest:
                self._retire_before(message.message_id)

    def _retire_before(self, message_id: int) -> None:
        """A newer message arrived: the numbers of older buttons stop pressing."""
        self.latest = message_id
        for older in [m for m in self.numbers_of if m < message_id]:
            for number in self.numbers_of.pop(older):
                self.pressable.pop(number, None)
                self.earlier.add(number)

    def _save(self, document: SentDocument) -> str:
        """Keep a file the bot sent where the person can open it, as a phone would."""
        size = f"{len(document.data)} bytes"
        if self.exports is None:
            return f"(file: {document.filename}, {size})"
        self.exports.mkdir(parents=True, exist_ok=True)
        name = Path(document.filename).name or "picture.png"
        target = self.exports / name
        stem, suffix = target.stem, target.suffix
        copy = 2
        while target.exists():
            target = self.exports / f"{stem}-{copy}{suffix}"
            copy += 1
        target.write_bytes(document.data)
        return f"(file: {document.filename}, {size}, saved as {target})"

    def _mine(self, sent: dict[str, Any]) -> None:
        self.mine.add(int(sent["message"]["message_id"]))

    def _spawn(self, job: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(job)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _next_check_in(self) -> None:
        services = self.runtime.services if self.runtime is not None else None
        if services is None or self.clock is None:
            return
        row = await services.people.store.get(services.people.person_id(SANDBOX_USER))
        if row is None or row.next_due_utc is None:
            print("  (sandbox: no check-in is scheduled; choose a time in /settings)")
            return
        due = datetime.fromtimestamp(row.next_due_utc, UTC)
        if due > self.clock():
            self.clock.skip(due - self.clock() + timedelta(seconds=1))
        print(f"  (sandbox: the clock now reads {self.clock():%a %d %b %H:%M} UTC)")
        await self._deliver_due()

    async def _deliver_due(self) -> None:
        runtime = self.runtime
        daily = [f for f in runtime.features if isinstance(f, DailyFeature)] if runtime else []
        if daily:
            await daily[0].dispatcher.run_once()

    async def watch(self) -> None:
        while True:
            self.show_changes()
            await asyncio.sleep(0.1)  # an interactive display, not a test: polling is fine

    def handle(self, line: str) -> bool:
        try:
            return self._handle(line.rstrip("\n"))
        except (LookupError, ValueError) as exc:
            print(f"  (sandbox: {exc})")
            return True

    def _handle(self, text: str) -> bool:
        if text.strip() in (":quit", ":q"):
            return False
        if text.strip() == ":help":
            print(HELP)
        elif text.strip().isdigit() and int(text) in self.pressable:
            message_id, data = self.pressable[int(text)]
            self.emu.user_presses(SANDBOX_USER, message_id, data)
        elif text.strip().isdigit() and int(text) in self.earlier:
            print(
                f"  (sandbox: button {int(text)} is on an earlier message; a number presses"
                " only the latest message's buttons)"
            )
        elif text.strip().isdigit() and int(text) in self.gone:
            print(
                f"  (sandbox: button {int(text)} is gone: its message changed or was deleted;"
                " use the newer numbers)"
            )
        elif text.startswith(":edit "):
            _, number, new_text = [*text.split(" ", 2), "", ""][:3]
            if number.isdigit() and new_text:
                self.emu.user_edits(SANDBOX_USER, int(number), new_text)
        elif text.startswith(":lang"):
            code = text[len(":lang") :].strip().lower()
            if not re.fullmatch(r"[a-z]{2}", code):
                print("  (sandbox: try :lang es)")
            else:
                self.language = code
                self.emu.user_language(SANDBOX_USER, code)
                print(f"  (sandbox: your Telegram is now in '{code}')")
        elif text.startswith(":reply "):
            _, number, words = [*text.split(" ", 2), "", ""][:3]
            if not number.isdigit() or not words:
                print("  (sandbox: try :reply 12 your words)")
            else:
                sent = self.emu.user_sends(
                    SANDBOX_USER,
                    words,
                    language_code=self.language,
                    reply_to_message_id=int(number),
                )
                self._mine(sent)
                print(f"  (you, #{sent['message']['message_id']}, replying to #{number})")
        elif text.strip() == ":next":
            self._spawn(self._next_check_in())
        elif text.startswith(":later"):
            delta = parse_later(text[len(":later") :])
            if delta is None or self.clock is None:
                print("  (sandbox: try :later 12h or :later 30m)")
            else:
                self.clock.skip(delta)
                print(f"  (sandbox: the clock now reads {self.clock():%a %d %b %H:%M} UTC)")
                self._spawn(self._deliver_due())
        elif text.strip() == ":sticker":
            self._mine(self.emu.user_sends(SANDBOX_USER, sticker=True, language_code=self.language))
        elif text.startswith(":photo"):
            caption = text[len(":photo") :].strip() or None
            sent = self.emu.user_sends(
                SANDBOX_USER, photo=True, caption=caption, language_code=self.language
            )
            self._mine(sent)
        elif text:
            sent = self.emu.user_sends(SANDBOX_USER, text, language_code=self.language)
            self._mine(sent)
            print(f"  (you, #{sent['message']['message_id']})")
        return True


def _sandbox_settings(settings: Settings, data_dir: Path) -> Settings:
    sandbox = dataclasses.replace(
        settings,
        token=SANDBOX_TOKEN,
        data_dir=data_dir,
        master_key_file=None,  # never a production key file: the sandbox keeps its own
        allow_key_in_data_dir=True,
    )
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    if sandbox.master_key is None and not sandbox.key_file.exists():
        # A sandbox key in the sandbox's folder is what a sandbox wants; made here, the
        # bot's advice to move a production key somewhere safer does not apply.
        write_key_file(sandbox.key_file, MasterKey(random_key()))
    return sandbox


async def run_sandbox(data_dir: Path, settings: Settings) -> int:
    clock = ShiftedClock()
    emulator = BotApiEmulator(clock=lambda: clock().timestamp())
    sandbox = _sandbox_settings(settings, data_dir)
    log_path = data_dir / "sandbox.log"
    log_path.touch(mode=0o600)
    log_file = log_path.open("a", encoding="utf-8")
    configure_logging(settings.log_level, stream=log_file)
    await emulator.start()
    runtime = Runtime(dataclasses.replace(sandbox, api_url=emulator.base_url), clock=clock)
    exports = data_dir / "exports"
    try:
        await runtime.start()
    except BaseException:
        await emulator.stop()
        log_file.close()
        raise
    terminal = Terminal(emulator, runtime, clock, exports)
    watcher = asyncio.create_task(terminal.watch())
    print(f"Steady sandbox (data in {data_dir}). Type /start to begin, :help for commands.")
    print(f"  Files the bot sends are saved in {exports}; log lines go to {log_path}.")
    try:
        while True:
            line = await asyncio.to_thread(sys.stdin.readline)
            if not line or not terminal.handle(line):
                break
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        await runtime.stop()
        await emulator.stop()
        log_file.close()
    return 0
