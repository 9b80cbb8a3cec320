"""A scripted HTTP/1.1 server on 127.0.0.1 for the check-in's small client
(bot/transport/json_post.py): each request is read whole and answered with exactly what the
test scripts, over plain TCP or TLS."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

OK = b'{"ok":true,"result":{"message_id":7,"chat":{"id":1}}}'


def answer(body: bytes, status: str = "200 OK", extra: str = "") -> bytes:
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n{extra}\r\n"
    ).encode() + body


class Server:
    """Reads each request whole, then runs `reply(request, writer)`; counts connections."""

    def __init__(self) -> None:
        self.connections = 0
        self.requests: list[bytes] = []
        self.replies: list[Callable[[asyncio.StreamWriter], object]] = []

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lowered = head.lower()
                length = (
                    int(lowered.split(b"content-length: ")[1].split(b"\r\n")[0])
                    if b"content-length: " in lowered
                    else 0  # a GET
                )
                self.requests.append(head + await reader.readexactly(length))
                result = self.replies.pop(0)(writer)
                if asyncio.iscoroutine(result):
                    await result
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


def write(data: bytes) -> Callable[[asyncio.StreamWriter], None]:
    return lambda writer: writer.write(data)


def in_pieces(data: bytes, size: int) -> Callable[[asyncio.StreamWriter], object]:
    async def reply(writer: asyncio.StreamWriter) -> None:
        for start in range(0, len(data), size):
            writer.write(data[start : start + size])
            await writer.drain()
            await asyncio.sleep(0)

    return reply
