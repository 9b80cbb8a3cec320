"""The sandbox's terminal keeps a picture the bot sends (the /progress chart) where it can
be opened, with its caption printed (issue 23)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from bot.emulator import BotApiEmulator, SentDocument, SentMessage
from bot.sandbox import SANDBOX_USER, Terminal

PNG = b"\x89PNG\r\n\x1a\nchart"


class _Chat:
    """The two reads the terminal makes of the emulator, over a fixed list of messages."""

    def __init__(self, messages: list[SentMessage]) -> None:
        self.messages = messages

    def messages_to(self, chat_id: int) -> list[SentMessage]:
        return self.messages

    def deleted_ids(self, chat_id: int) -> set[int]:
        return set()


def test_a_sent_picture_is_saved_with_its_caption(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chart = SentDocument("chart.png", PNG, caption="Your urges are getting shorter.")
    message = SentMessage(7, SANDBOX_USER, photo=chart)
    terminal = Terminal(cast(BotApiEmulator, _Chat([message])), exports=tmp_path / "exports")
    terminal.show_changes()
    out = capsys.readouterr().out
    assert "Your urges are getting shorter." in out
    saved = Path(out.split("saved as ", 1)[1].split(")")[0])
    assert saved.parent == tmp_path / "exports" and saved.read_bytes() == PNG


def test_a_number_presses_only_the_latest_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    buttons: dict[str, Any] = {"inline_keyboard": [[{"text": "Ireland", "callback_data": "x"}]]}
    older = SentMessage(3, SANDBOX_USER, text="Which country?", reply_markup=buttons)
    chat = _Chat([older])
    terminal = Terminal(cast(BotApiEmulator, chat))
    terminal.show_changes()
    assert 1 in terminal.pressable
    chat.messages.append(SentMessage(5, SANDBOX_USER, text="Which time zone?"))
    terminal.show_changes()
    assert 1 not in terminal.pressable
    terminal.handle("1")
    assert "is on an earlier message" in capsys.readouterr().out
