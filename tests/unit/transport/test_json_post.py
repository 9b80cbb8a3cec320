"""The check-in's small HTTP client (bot/transport/json_post.py) against a local server
that answers exactly what each test scripts, and the reading of Telegram's answers
(`message_id_of`) into a message id or the PTB error the send policy acts on."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from telegram.error import (
    BadRequest,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)

import bot.transport.send_outcome as send_outcome
from bot.transport.json_post import KeepAliveClient
from bot.transport.send_outcome import Failure, failure_of, message_id_of, sent_of
from bot.transport.send_policy import is_too_large, retry_seconds
from tests.helpers.http_server import OK, Server, answer, in_pieces, write


@asynccontextmanager
async def serving(
    read_timeout: float = 30.0, idle_lifetime: float = 15.0
) -> AsyncIterator[tuple[Server, KeepAliveClient]]:
    server = Server()
    listening = await asyncio.start_server(server.handle, "127.0.0.1", 0)
    port = listening.sockets[0].getsockname()[1]
    poster = KeepAliveClient(
        f"http://127.0.0.1:{port}",
        connections=2,
        connect_timeout=5.0,
        read_timeout=read_timeout,
        user_agent="test",
        idle_lifetime=idle_lifetime,
    )
    try:
        yield server, poster
    finally:
        await poster.close()
        listening.close()
        await listening.wait_closed()


async def test_a_request_is_one_post_and_the_connection_is_kept() -> None:
    async with serving() as (server, poster):
        server.replies += [write(answer(OK)), write(answer(OK))]
        assert await poster.post("/botTOKEN/sendMessage", b'{"chat_id":1}') == (200, OK)
        assert await poster.post("/botTOKEN/sendMessage", b'{"chat_id":2}') == (200, OK)
        assert server.connections == 1
        first = server.requests[0]
        assert first.startswith(b"POST /botTOKEN/sendMessage HTTP/1.1\r\n")
        assert b"\r\nContent-Type: application/json\r\n" in first
        assert b"\r\nContent-Length: 13\r\n" in first
        assert first.endswith(b'\r\n\r\n{"chat_id":1}')


async def test_a_connection_idle_past_its_lifetime_is_closed_not_reused() -> None:
    # A negative lifetime makes every idle connection too old without waiting for a clock.
    async with serving(idle_lifetime=-1.0) as (server, poster):
        server.replies += [write(answer(OK)), write(answer(OK))]
        assert await poster.post("/botTOKEN/sendMessage", b"{}") == (200, OK)
        assert await poster.post("/botTOKEN/sendMessage", b"{}") == (200, OK)
        assert server.connections == 2


async def test_an_answer_in_pieces_and_chunked() -> None:
    chunked = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5\r\n" + OK[:5] + b"\r\n" + f"{len(OK) - 5:x}".encode() + b"\r\n" + OK[5:] + b"\r\n"
        b"0\r\n\r\n"
    )
    async with serving() as (server, poster):
        server.replies += [in_pieces(answer(OK), 7), in_pieces(chunked, 3)]
        assert await poster.post("/x", b"{}") == (200, OK)
        assert await poster.post("/x", b"{}") == (200, OK)
        assert server.connections == 1


async def test_an_interim_answer_is_passed_over() -> None:
    async with serving() as (server, poster):
        server.replies.append(write(b"HTTP/1.1 100 Continue\r\n\r\n" + answer(OK)))
        assert await poster.post("/x", b"{}") == (200, OK)


async def test_connection_close_is_honoured() -> None:
    async with serving() as (server, poster):
        server.replies += [write(answer(OK, extra="Connection: close\r\n")), write(answer(OK))]
        assert await poster.post("/x", b"{}") == (200, OK)
        assert await poster.post("/x", b"{}") == (200, OK)
        assert server.connections == 2


async def test_a_body_up_to_the_end_of_the_connection() -> None:
    def reply(writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 502 Bad Gateway\r\n\r\n<html>bad gateway</html>")
        writer.close()

    async with serving() as (server, poster):
        server.replies.append(reply)
        assert await poster.post("/x", b"{}") == (502, b"<html>bad gateway</html>")


async def test_a_connection_lost_before_the_answer_is_a_network_error() -> None:
    def hang_up(writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{")
        writer.close()

    async with serving() as (server, poster):
        server.replies += [hang_up, write(answer(OK))]
        with pytest.raises(NetworkError) as raised:
            await poster.post("/x", b"{}")
        assert not isinstance(raised.value, TimedOut)  # nothing suggests it may have arrived
        assert await poster.post("/x", b"{}") == (200, OK)  # a fresh connection
        assert server.connections == 2


async def test_garbage_is_a_network_error_and_the_connection_is_dropped() -> None:
    async with serving() as (server, poster):
        server.replies += [write(b"SSH-2.0-nope\r\n\r\n"), write(answer(OK))]
        with pytest.raises(NetworkError):
            await poster.post("/x", b"{}")
        assert await poster.post("/x", b"{}") == (200, OK)
        assert server.connections == 2


async def test_a_late_answer_times_out_and_is_never_read_as_the_next_one() -> None:
    held = asyncio.Event()

    async def late(writer: asyncio.StreamWriter) -> None:
        await held.wait()
        writer.write(answer(b'{"ok":true,"result":{"message_id":666}}'))

    async with serving(read_timeout=0.2) as (server, poster):
        server.replies += [late, write(answer(OK))]
        with pytest.raises(TimedOut):
            await poster.post("/x", b"{}")
        held.set()
        assert await poster.post("/x", b"{}") == (200, OK)
        assert server.connections == 2


async def test_a_connection_refused_is_a_network_error() -> None:
    listening = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = listening.sockets[0].getsockname()[1]
    listening.close()
    await listening.wait_closed()
    poster = KeepAliveClient(
        f"http://127.0.0.1:{port}",
        connections=1,
        connect_timeout=5.0,
        read_timeout=5.0,
        user_agent="t",
    )
    with pytest.raises(NetworkError) as raised:
        await poster.post("/x", b"{}")
    assert not isinstance(raised.value, TimedOut)  # certainly not sent: the policy retries
    await poster.close()


# --- Telegram's answers ---------------------------------------------------------------


def test_the_message_id_is_read_from_the_answer() -> None:
    assert message_id_of(200, OK) == 7
    assert message_id_of(200, b'{"ok": true, "result": {"message_id": 12, "date": 1}}') == 12
    # Another key order is decoded whole, and the top-level id is the one read.
    nested = b'{"ok":true,"result":{"reply_to_message":{"message_id":3},"message_id":9}}'
    assert message_id_of(200, nested) == 9


def _echo(first_name: str, date: int = 1700000000) -> bytes:
    message = {
        "message_id": 41,
        "from": {"id": 1, "is_bot": True, "first_name": "Steady"},
        "chat": {"id": 5, "type": "private", "first_name": first_name},
        "date": date,
        "text": 'said "date":1 and "chat":{} here',
        "reply_to_message": {"message_id": 3, "date": 2},
    }
    return json.dumps({"ok": True, "result": message}).encode()


@pytest.mark.parametrize(
    "name", ["Ann", 'Ann "date": 9}', "Ann {x}", '}, "date": 8, "chat": {', "Anne\\", "Ünal 👋"]
)
def test_the_id_and_date_are_read_from_a_send_answer_whatever_the_names(name: str) -> None:
    # Read from the bytes or, when a name holds a brace, from the decoded echo: the same.
    assert sent_of(200, _echo(name)) == (41, 1700000000)
    assert sent_of(200, json.dumps(json.loads(_echo(name)), indent=2).encode()) == (41, 1700000000)


def test_the_usual_send_answer_is_not_decoded(monkeypatch: pytest.MonkeyPatch) -> None:
    # The keep offer's answer on every ordinary update: its echo is never decoded (issue 25).
    monkeypatch.setattr(send_outcome, "_decoded", lambda payload: pytest.fail("decoded"))
    assert sent_of(200, _echo("Ann")) == (41, 1700000000)
    assert sent_of(200, _echo("Ünal 👋", date=5)) == (41, 5)


def test_a_send_answer_in_another_order_is_decoded_whole() -> None:
    answer = b'{"ok":true,"result":{"message_id":4,"chat":{"id":5},"from":{"id":1},"date":6}}'
    assert sent_of(200, answer) == (4, 6)
    with pytest.raises(TelegramError, match="Invalid server response"):
        sent_of(200, b'{"ok":true,"result":{"message_id":4,"from":{},"chat":{},"date":"x"}}')


def test_a_success_without_a_message_is_an_invalid_answer() -> None:
    with pytest.raises(TelegramError, match="Invalid server response"):
        message_id_of(200, b"<html></html>")


def error(code: int, description: str, extra: str = "") -> bytes:
    return f'{{"ok":false,"error_code":{code},"description":"{description}"{extra}}}'.encode()


def test_each_error_is_the_one_ptb_raises() -> None:
    with pytest.raises(RetryAfter) as flood:
        message_id_of(429, error(429, "Too Many Requests", ',"parameters":{"retry_after":5}'))
    assert retry_seconds(flood.value) == 5
    with pytest.raises(Forbidden) as blocked:
        message_id_of(403, error(403, "Forbidden: bot was blocked by the user"))
    assert failure_of(blocked.value) is Failure.BLOCKED
    with pytest.raises(BadRequest) as gone:
        message_id_of(400, error(400, "Bad Request: chat not found"))
    assert failure_of(gone.value) is Failure.CHAT_GONE
    with pytest.raises(InvalidToken):
        message_id_of(401, error(401, "Unauthorized"))
    with pytest.raises(NetworkError) as server:
        message_id_of(500, error(500, "Internal Server Error"))
    assert failure_of(server.value) is Failure.GAVE_UP


def test_a_413_without_json_is_final() -> None:
    with pytest.raises(NetworkError) as raised:
        message_id_of(413, b"<html>413 Request Entity Too Large</html>")
    assert is_too_large(raised.value)
    assert "html" not in raised.value.message  # the answer's bytes are never in the error
