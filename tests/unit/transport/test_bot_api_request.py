"""PTB's transport (bot/transport/http.py) over the bot's own keep-alive client, against a
local server that answers what each test scripts: PTB's errors from Telegram's answers
(429 as RetryAfter, 5xx as NetworkError), each timeout as PTB means it (a late answer is
TimedOut, no free connection a NetworkError), long polling's own read timeout, uploads as
multipart with the write timeout counted, a download larger than any API answer, one
connection kept across calls, and no token in any error."""

from __future__ import annotations

import asyncio
import email.parser
import email.policy
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import pytest
from telegram import Bot, InputFile
from telegram.error import BadRequest, NetworkError, RetryAfter, TimedOut
from telegram.request import RequestData

from bot.transport.http import BotApiRequest
from tests.helpers.http_server import Server, answer, write

TOKEN = "123456:SECRET-token-part"
ME = json.dumps(
    {"ok": True, "result": {"id": 1, "is_bot": True, "first_name": "S", "username": "s_bot"}}
).encode()
SENT = json.dumps(
    {"ok": True, "result": {"message_id": 7, "date": 0, "chat": {"id": 1, "type": "private"}}}
).encode()


def late(data: bytes, seconds: float) -> Callable[[asyncio.StreamWriter], object]:
    async def reply(writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(seconds)
        writer.write(data)

    return reply


@asynccontextmanager
async def serving(**timeouts: float) -> AsyncIterator[tuple[Server, BotApiRequest, str]]:
    server = Server()
    listening = await asyncio.start_server(server.handle, "127.0.0.1", 0)
    port = listening.sockets[0].getsockname()[1]
    request = BotApiRequest(connection_pool_size=1, **timeouts)
    await request.initialize()
    try:
        yield server, request, f"http://127.0.0.1:{port}/bot{TOKEN}"
    finally:
        await request.shutdown()
        listening.close()
        await listening.wait_closed()


async def test_calls_are_json_over_one_kept_connection() -> None:
    async with serving() as (server, request, base):
        server.replies += [write(answer(ME)), write(answer(SENT))]
        bot = Bot(TOKEN, base_url=f"{base.rsplit('/bot', 1)[0]}/bot", request=request)
        async with bot:  # getMe, then the call
            message = await bot.send_message(1, "héllo")
        assert message.message_id == 7
        assert server.connections == 1
        sent = server.requests[1]
        assert sent.startswith(f"POST /bot{TOKEN}/sendMessage HTTP/1.1\r\n".encode())
        assert b"\r\nContent-Type: application/json\r\n" in sent
        body = json.loads(sent.split(b"\r\n\r\n", 1)[1])
        assert body == {"chat_id": 1, "text": "héllo"}


async def test_telegrams_answers_are_ptbs_errors_without_the_token() -> None:
    too_many = (
        b'{"ok":false,"error_code":429,"description":"Too Many","parameters":{"retry_after":3}}'
    )
    async with serving() as (server, request, base):
        server.replies += [
            write(answer(too_many, "429 Too Many Requests")),
            write(answer(b'{"ok":false,"error_code":502,"description":"Bad Gateway"}', "502 Bad")),
            write(answer(b'{"ok":false,"error_code":400,"description":"chat not found"}', "400 B")),
        ]
        with pytest.raises(RetryAfter) as waited:
            await request.post(f"{base}/sendMessage", RequestData())
        assert waited.value.retry_after.total_seconds() == 3
        with pytest.raises(NetworkError) as gateway:
            await request.post(f"{base}/sendMessage", RequestData())
        assert not isinstance(gateway.value, TimedOut)
        with pytest.raises(BadRequest):
            await request.post(f"{base}/sendMessage", RequestData())
        assert TOKEN not in str(gateway.value)


async def test_a_late_answer_times_out_and_long_polling_waits_its_own_timeout() -> None:
    async with serving(read_timeout=0.2) as (server, request, base):
        server.replies += [late(answer(SENT), 1.0), late(answer(b'{"ok":true,"result":[]}'), 0.5)]
        with pytest.raises(TimedOut):
            await request.post(f"{base}/sendMessage", RequestData())
        # getUpdates passes its long poll's timeout as the read timeout of that call.
        assert await request.post(f"{base}/getUpdates", RequestData(), read_timeout=30) == []
        assert server.connections == 2  # the late answer's connection was not reused


async def test_no_free_connection_in_time_is_a_network_error_not_a_timeout() -> None:
    async with serving(read_timeout=30, pool_timeout=0.1, connect_timeout=0.1) as (
        server,
        request,
        base,
    ):
        server.replies += [late(answer(SENT), 1.0)]
        holding = asyncio.create_task(request.post(f"{base}/sendMessage", RequestData()))
        await asyncio.sleep(0.05)  # the pool's one connection is taken
        with pytest.raises(NetworkError) as raised:
            await request.post(f"{base}/sendMessage", RequestData())
        assert not isinstance(raised.value, TimedOut)  # nothing was sent: may be retried
        assert (await holding)["message_id"] == 7  # the first goes on
        assert len(server.requests) == 1


async def test_an_upload_is_multipart_and_its_write_timeout_counts() -> None:
    async with serving(read_timeout=0.2, write_timeout=5.0) as (server, request, base):
        server.replies += [write(answer(ME)), late(answer(SENT), 0.6)]
        bot = Bot(TOKEN, base_url=f"{base.rsplit('/bot', 1)[0]}/bot", request=request)
        pdf = b"%PDF-1.4 \r\n--not-a-boundary\r\n" + bytes(range(256)) * 64
        async with bot:
            message = await bot.send_document(
                1, InputFile(pdf, filename='Résumé "2".pdf'), caption="ça"
            )
        assert message.message_id == 7  # 0.6 s: past the read timeout, within read + write
        head, body = server.requests[1].split(b"\r\n\r\n", 1)
        content_type = next(
            line.split(b": ", 1)[1]
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-type")
        ).decode()
        assert content_type.startswith("multipart/form-data; boundary=")
        parsed = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            f"Content-Type: {content_type}\r\n\r\n".encode() + body
        )
        parts = {
            part.get_param("name", header="content-disposition"): part
            for part in parsed.iter_parts()
        }
        assert parts["document"].get_content() == pdf
        assert parts["document"].get_filename() == "Résumé %222%22.pdf"
        assert parts["chat_id"].get_payload(decode=True) == b"1"
        assert parts["caption"].get_payload(decode=True).decode() == "ça"


async def test_a_download_larger_than_any_api_answer_is_read_whole() -> None:
    photo = bytes(range(256)) * (5 * 4096)  # 5 MiB: over json_post's bound for an answer
    async with serving() as (server, request, base):
        server.replies += [write(answer(photo))]
        origin = base.rsplit("/bot", 1)[0]
        got = await request.retrieve(f"{origin}/file/bot{TOKEN}/photos/file_1.jpg")
        assert got == photo
        assert server.requests[0].startswith(
            f"GET /file/bot{TOKEN}/photos/file_1.jpg HTTP/1.1".encode()
        )


async def test_a_refused_connection_is_a_network_error_without_the_token() -> None:
    listening = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = listening.sockets[0].getsockname()[1]
    listening.close()
    await listening.wait_closed()
    request = BotApiRequest(connect_timeout=5, pool_timeout=5)
    await request.initialize()
    try:
        with pytest.raises(NetworkError) as raised:
            await request.post(f"http://127.0.0.1:{port}/bot{TOKEN}/getMe", RequestData())
        assert not isinstance(raised.value, TimedOut)
        assert TOKEN not in str(raised.value) and "SECRET" not in repr(raised.value)
    finally:
        await request.shutdown()
