"""A small HTTP/1.1 client for one kind of call: a JSON body POSTed to the Bot API.

The check-in pass sends thousands of alike messages in a row. Through aiohttp's client
each send cost about three times the CPU of the socket work itself (its request and
response objects, headers, cookies, timers: docs/performance.md, "Check-ins at 0.3 ms"),
the largest share of a check-in. This client keeps a few keep-alive connections to the
one host, writes a request it builds as bytes, and reads the answer whole: a status and
a body, nothing else.

What it does not do, because the Bot API needs none of it: redirects, cookies, proxies,
compression, uploads, pipelining. TLS is the standard library's default context
(certificates and host name verified). Errors are PTB's, as in http.py: `TimedOut` when
the answer does not come within the read timeout (the connection is closed then, so a
late answer can never be read as the next one's), `NetworkError` for anything else, with
the failure's type only: the URL carries the bot token.
"""

from __future__ import annotations

import asyncio
import ssl
from urllib.parse import urlsplit

from telegram.error import NetworkError, TimedOut

# Far beyond any answer the Bot API gives to a send (a message echoed back); a peer that
# sends more is not the Bot API, and the connection is dropped.
_MOST_HEAD = 64 * 1024
_MOST_BODY = 4 * 1024 * 1024


class _Answer:
    """One response as it arrives: the head, then the body by length, by chunks, or up to
    the end of the connection."""

    status: int
    keep_alive: bool
    length: int | None  # Content-Length
    chunked: bool
    body_at: int  # where the body starts in the buffer, once the head is read

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.status, self.keep_alive, self.length, self.chunked, self.body_at = (
            0,
            True,
            None,
            False,
            -1,
        )


def _head(answer: _Answer, head: bytes) -> None:
    lines = head.split(b"\r\n")
    version, _, rest = lines[0].partition(b" ")
    if not version.startswith(b"HTTP/1."):
        raise ValueError("not an HTTP/1 answer")
    answer.status = int(rest[:3])
    answer.keep_alive = version != b"HTTP/1.0"
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        name, value = name.strip().lower(), value.strip().lower()
        if name == b"content-length":
            answer.length = int(value)
            if answer.length < 0 or answer.length > _MOST_BODY:
                raise ValueError("a body length out of bounds")
        elif name == b"transfer-encoding":
            answer.chunked = value.endswith(b"chunked")
        elif name == b"connection":
            if b"close" in value:
                answer.keep_alive = False
            elif b"keep-alive" in value:
                answer.keep_alive = True
    if answer.chunked:
        answer.length = None
    elif answer.length is None and answer.status not in (204, 304):
        answer.keep_alive = False  # the body runs to the end of the connection


def _unchunk(data: bytes | bytearray, start: int) -> tuple[bytes, int] | None:
    """The body and where it ends, once every chunk and the last one have arrived."""
    parts: list[bytes] = []
    at = start
    while True:
        line_end = data.find(b"\r\n", at)
        if line_end < 0:
            return None
        size = int(bytes(data[at:line_end]).split(b";")[0].strip(), 16)
        at = line_end + 2
        if size == 0:
            # Trailers (never sent by the Bot API), then the blank line.
            end = data.find(b"\r\n\r\n", at - 2)
            return (b"".join(parts), end + 4) if end >= 0 else None
        if len(data) < at + size + 2:
            return None
        parts.append(bytes(data[at : at + size]))
        at += size + 2
        if at - start > _MOST_BODY:
            raise ValueError("a chunked body out of bounds")


class _Connection(asyncio.Protocol):
    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self._buffer = bytearray()
        self._answer: _Answer | None = None
        self._waiter: asyncio.Future[tuple[int, bytes, bool]] | None = None
        self._eof = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def send(self, request: bytes) -> asyncio.Future[tuple[int, bytes, bool]]:
        if self.closed or self.transport is None or self._buffer:
            raise NetworkError("the connection closed")
        waiter = self._waiter = asyncio.get_running_loop().create_future()
        self._answer = _Answer()
        self.transport.write(request)
        return waiter

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        if self._waiter is None:
            self.close()  # nothing was asked: not the Bot API's way
            return
        self._read()

    def eof_received(self) -> bool:
        self._eof = True
        self._read()
        return False  # the transport closes itself

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._fail(NetworkError("the connection closed before the answer"))

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    def _fail(self, exc: Exception) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_exception(exc)

    def _read(self) -> None:
        answer, waiter = self._answer, self._waiter
        if answer is None or waiter is None:
            return
        try:
            found = self._parse(answer)
        except (ValueError, IndexError) as exc:
            self.close()
            self._fail(NetworkError(f"not an HTTP answer: {type(exc).__name__}"))
            return
        if found is None:
            if self._eof:
                self._fail(NetworkError("the connection closed before the answer"))
            return
        body, end = found
        leftover = len(self._buffer) > end
        del self._buffer[:end]
        self._answer = self._waiter = None
        keep = answer.keep_alive and not leftover and not self._eof
        if not keep:
            self.close()
        if not waiter.done():
            waiter.set_result((answer.status, body, keep))

    def _parse(self, answer: _Answer) -> tuple[bytes, int] | None:
        data = self._buffer
        while answer.body_at < 0:
            head_end = data.find(b"\r\n\r\n")
            if head_end < 0:
                if len(data) > _MOST_HEAD:
                    raise ValueError("a head out of bounds")
                return None
            _head(answer, bytes(data[:head_end]))
            if 100 <= answer.status < 200:  # an interim answer: the real one follows
                del data[: head_end + 4]
                answer.reset()
                continue
            answer.body_at = head_end + 4
        start = answer.body_at
        if answer.chunked:
            return _unchunk(data, start)
        if answer.length is not None:
            end = start + answer.length
            return (bytes(data[start:end]), end) if len(data) >= end else None
        if answer.status in (204, 304):
            return b"", start
        if len(data) - start > _MOST_BODY:
            raise ValueError("a body out of bounds")
        return (bytes(data[start:]), len(data)) if self._eof else None


class JsonPoster:
    """POSTs to one origin (`https://host[:port]`) over at most `connections` keep-alive
    connections at once; callers beyond that wait for one (within the connect timeout)."""

    def __init__(
        self,
        origin: str,
        *,
        connections: int,
        connect_timeout: float | None,
        read_timeout: float | None,
        user_agent: str,
    ) -> None:
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("an http or https origin is needed")
        self._host = parts.hostname
        self._tls = parts.scheme == "https"
        self._port = parts.port or (443 if self._tls else 80)
        default = 443 if self._tls else 80
        host = f"[{self._host}]" if ":" in self._host else self._host
        authority = host if self._port == default else f"{host}:{self._port}"
        self._headers = (
            f"Host: {authority}\r\nUser-Agent: {user_agent}\r\n"
            "Content-Type: application/json\r\nContent-Length: "
        ).encode("ascii")
        self._connect_timeout = connect_timeout
        self._read_timeout = read_timeout
        self._slots = asyncio.Semaphore(connections)
        self._idle: list[_Connection] = []
        self._busy: set[_Connection] = set()
        self._ssl = ssl.create_default_context() if self._tls else None

    async def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        """The status and body of Telegram's answer to POST `path` with JSON `body`."""
        request = b"".join(
            (
                b"POST ",
                path.encode("ascii"),
                b" HTTP/1.1\r\n",
                self._headers,
                str(len(body)).encode("ascii"),
                b"\r\n\r\n",
                body,
            )
        )
        # Waiting for a free connection and opening one share the connect timeout. Past
        # it nothing was written: a NetworkError (retried), not a timeout that may have
        # delivered.
        loop = asyncio.get_running_loop()
        deadline = None if self._connect_timeout is None else loop.time() + self._connect_timeout
        try:
            async with asyncio.timeout_at(deadline):
                await self._slots.acquire()
        except TimeoutError as exc:
            raise NetworkError("no free connection in time") from exc
        try:
            try:
                async with asyncio.timeout_at(deadline):
                    connection = await self._connection()
            except TimeoutError as exc:
                raise NetworkError("no connection in time") from exc
            self._busy.add(connection)
            try:
                answer = connection.send(request)
                async with asyncio.timeout(self._read_timeout):
                    status, payload, keep = await answer
            except BaseException as exc:
                # A timeout, a cancellation, a broken answer: an answer could still arrive
                # on this connection, and it must never be read as another send's.
                connection.close()
                if isinstance(exc, TimeoutError):
                    raise TimedOut from exc
                raise
            finally:
                self._busy.discard(connection)
        finally:
            self._slots.release()
        if keep and not connection.closed:
            self._idle.append(connection)
        return status, payload

    async def _connection(self) -> _Connection:
        while self._idle:
            connection = self._idle.pop()  # the most recently used: the least likely stale
            if not connection.closed:
                return connection
        loop = asyncio.get_running_loop()
        try:
            _, connection = await loop.create_connection(
                _Connection,
                self._host,
                self._port,
                ssl=self._ssl,
                server_hostname=self._host if self._ssl is not None else None,
            )
        except OSError as exc:  # ssl.SSLError included
            raise NetworkError(f"connect failed: {type(exc).__name__}") from exc
        return connection

    async def close(self) -> None:
        for connection in (*self._idle, *self._busy):
            connection.close()
        self._idle.clear()
        self._busy.clear()
        await asyncio.sleep(0)  # let the transports finish closing
