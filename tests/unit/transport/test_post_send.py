"""The JSON send for replies whose answer is read for the id alone (`post_send`, used by
the framework's `say_id`): through the bot's own send policy, it waits out a 429, retries
a 5xx and a timeout as a PTB send would (it is not marked at most once), and a refusal
reaches the caller as the PTB error the handlers already act on (403: blocked)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from telegram.error import BadRequest, Forbidden
from telegram.ext import ExtBot

from bot.transport.http import BotApiRequest
from bot.transport.send_outcome import post_send, sent_of
from bot.transport.send_policy import SendPolicy
from tests.helpers.http_server import Server, answer, write

SENT = b'{"ok":true,"result":{"message_id":41,"date":1700000000,"chat":{"id":5},"text":"x"}}'
PARAMS = {
    "chat_id": 5,
    "text": "x",
    "reply_markup": {"inline_keyboard": [[{"text": "a", "callback_data": "b"}]]},
}


@asynccontextmanager
async def bot_at(read_timeout: float = 30.0) -> AsyncIterator[tuple[Server, ExtBot[None]]]:
    server = Server()
    listening = await asyncio.start_server(server.handle, "127.0.0.1", 0)
    port = listening.sockets[0].getsockname()[1]
    request = BotApiRequest(read_timeout=read_timeout)
    bot: ExtBot[None] = ExtBot(
        "123:abc",
        base_url=f"http://127.0.0.1:{port}/bot",
        request=request,
        rate_limiter=SendPolicy(throttle=False, base_delay=0.01),
    )
    await request.initialize()
    try:
        yield server, bot
    finally:
        await request.shutdown()
        listening.close()
        await listening.wait_closed()


def refusal(code: int, description: str, **parameters: int) -> bytes:
    body: dict[str, object] = {"ok": False, "error_code": code, "description": description}
    if parameters:
        body["parameters"] = parameters
    return json.dumps(body).encode()


async def test_the_id_and_date_come_back_and_the_body_is_the_json_given() -> None:
    async with bot_at() as (server, bot):
        server.replies.append(write(answer(SENT)))
        assert await post_send(bot, "sendMessage", PARAMS) == (41, 1700000000)
        head, _, body = server.requests[0].partition(b"\r\n\r\n")
        assert head.startswith(b"POST /bot123:abc/sendMessage HTTP/1.1")
        assert json.loads(body) == PARAMS


async def test_a_429_is_waited_out_and_a_5xx_retried() -> None:
    async with bot_at() as (server, bot):
        server.replies += [
            write(answer(refusal(429, "Too Many Requests", retry_after=1), "429 Too Many")),
            write(answer(refusal(502, "Bad Gateway"), "502 Bad Gateway")),
            write(answer(SENT)),
        ]
        assert await post_send(bot, "sendMessage", PARAMS) == (41, 1700000000)
        assert len(server.requests) == 3


async def test_a_timeout_is_retried_as_a_ptb_send_is() -> None:
    async def late(writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(5)  # past the read timeout: the client gives up first

    async with bot_at(read_timeout=0.2) as (server, bot):
        server.replies += [late, write(answer(SENT))]
        assert await post_send(bot, "sendMessage", PARAMS) == (41, 1700000000)
        assert len(server.requests) == 2


async def test_refusals_are_ptbs_errors_and_final() -> None:
    async with bot_at() as (server, bot):
        server.replies.append(write(answer(refusal(403, "Forbidden: blocked"), "403 Forbidden")))
        with pytest.raises(Forbidden):
            await post_send(bot, "sendMessage", PARAMS)
        server.replies.append(write(answer(refusal(400, "Bad Request: x"), "400 Bad Request")))
        with pytest.raises(BadRequest):
            await post_send(bot, "sendMessage", PARAMS)
        assert len(server.requests) == 2


def test_an_answer_without_id_or_date_is_an_invalid_response() -> None:
    with pytest.raises(Exception, match="Invalid server response"):
        sent_of(200, b'{"ok":true,"result":{"message_id":3}}')
    assert sent_of(200, SENT) == (41, 1700000000)


async def test_a_bot_without_the_json_transport_is_left_to_ptb() -> None:
    bot: ExtBot[None] = ExtBot("123:abc")  # PTB's own httpx request
    assert await post_send(bot, "sendMessage", PARAMS) is None
