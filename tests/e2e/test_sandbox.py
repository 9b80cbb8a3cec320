"""`python -m bot sandbox`: the terminal chat a newcomer or content author starts with."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from tests.helpers.bot import START_SECONDS


def _start_sandbox(tmp_path: Path) -> subprocess.Popen[str]:
    """The sandbox as a person starts it, with no token or bot settings from outside."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "BOT_"))}
    return subprocess.Popen(
        [sys.executable, "-m", "bot", "sandbox", "--data-dir", str(tmp_path / "sbx")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=tmp_path,
    )


class Sandbox:
    """One sandbox process as a person types into it: every line it printed in `seen`, and
    a watchdog that ends it after a generous deadline, so that a line that never comes
    ends the read loop and the test fails with the output instead of blocking for ever."""

    def __init__(self, tmp_path: Path) -> None:
        self.process = _start_sandbox(tmp_path)
        self.seen: list[str] = []
        self._watchdog = threading.Timer(2 * START_SECONDS, self.process.kill)

    def __enter__(self) -> Sandbox:
        self._watchdog.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._watchdog.cancel()
        if self.process.poll() is None:
            self.process.kill()

    def read_until(self, needle: str) -> str:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.seen.append(line)
            if needle in line:
                return line
        raise AssertionError(f"{needle!r} never printed:\n{''.join(self.seen)}")

    def type_line(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()

    def quit(self) -> None:
        self.type_line(":quit")
        assert self.process.wait(timeout=START_SECONDS) == 0


def test_sandbox_chat_in_the_terminal(tmp_path: Path) -> None:
    exports = tmp_path / "sbx" / "exports"
    with Sandbox(tmp_path) as sandbox:
        seen = sandbox.seen
        read_until, type_line = sandbox.read_until, sandbox.type_line
        read_until("Type /start to begin")
        read_until(f"saved in {exports}")
        type_line("/start")
        read_until("Which country")
        read_until("[7] Germany")  # buttons are numbered
        type_line("7")  # pressing a button by its number
        read_until("time zone to Central European: Berlin")
        read_until("check-in once a day")
        type_line("07:30")
        read_until("Could someone else read")
        while not seen[-1].rstrip().endswith("] No"):  # the "No" button, not "Not now"
            read_until("] No")
        number = seen[-1].split("[")[1].split("]")[0]
        type_line(number)
        read_until("All set")
        type_line("help")
        read_until("110")
        type_line(":next")  # a content author sees tomorrow's check-in now
        read_until("Your words are kept")
        type_line("a reply worth keeping")
        read_until("(you, #")

        # An export is saved where the person can open it, with its caption.
        type_line("/export")
        read_until("saved as")
        saved = Path(seen[-1].split("saved as ", 1)[1].rstrip().rstrip(")"))
        read_until("Anyone who has this file")  # the caption, printed under the file
        assert saved.parent == exports and saved.is_file()
        assert "a reply worth keeping" in saved.read_text(encoding="utf-8")

        # A panel edited in place takes its old buttons with it.
        type_line("/settings")
        read_until("] Turn neutral wording on")  # the button, not the summary line
        old = seen[-1].split("[")[1].split("]")[0]
        type_line(old)
        read_until("[edited #")
        type_line(old)
        read_until(f"button {old} is gone")

        # The person's own messages, deleted by the bot, are shown as gone.
        type_line("/clear")
        read_until("(your message #")
        sandbox.quit()
    output = "".join(seen)
    assert "Traceback" not in output
    assert (tmp_path / "sbx" / "steady.sqlite3").exists()
    # Log lines stay out of the conversation, in the file the sandbox named.
    assert " INFO " not in output and " DEBUG " not in output
    assert f"log lines go to {tmp_path / 'sbx' / 'sandbox.log'}" in output
    assert "bot started" in (tmp_path / "sbx" / "sandbox.log").read_text(encoding="utf-8")
    # A sandbox key in the sandbox folder is no production risk: no advice about it.
    assert "move it to a secret" not in output


def test_sandbox_as_a_tryout(tmp_path: Path) -> None:
    """`:lang es` is a person whose Telegram is in Spanish, `:reply N` answers message N
    as Telegram's Reply does, and a typed number presses only the latest message's
    buttons (issue 23)."""
    with Sandbox(tmp_path) as sandbox:
        seen = sandbox.seen
        read_until, type_line = sandbox.read_until, sandbox.type_line

        read_until("Type /start to begin")
        type_line(":lang es")
        read_until("your Telegram is now in 'es'")
        type_line("/start")
        read_until("¿En qué país estás?")
        spain = read_until("] España")
        number = spain.split("[")[1].split("]")[0]
        type_line("Irlanda")  # answered by typing: the list above is now an earlier message
        read_until("recibir un mensaje breve una vez al día")
        type_line(number)
        read_until(f"button {number} is on an earlier message")
        type_line("/menu")
        menu = read_until("[bot #")
        menu_id = menu.split("#")[1].split("]")[0]
        type_line(f":reply {menu_id} hola")
        read_until(f"replying to #{menu_id}")
        sandbox.quit()
    assert "Traceback" not in "".join(seen)


def test_sandbox_quit_at_once_while_the_crisis_model_loads(tmp_path: Path) -> None:
    """The model loads in its worker after the first poll; a sandbox left straight away
    stops while it may still be loading: its log line must not meet a closed log file."""
    with Sandbox(tmp_path) as sandbox:
        sandbox.read_until("Type /start to begin")
        sandbox.quit()
        assert sandbox.process.stdout is not None
        rest = sandbox.process.stdout.read()
    output = "".join(sandbox.seen) + rest
    assert "Logging error" not in output
    assert "Traceback" not in output
    assert "crisis model" in (tmp_path / "sbx" / "sandbox.log").read_text(encoding="utf-8")
