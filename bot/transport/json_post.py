"""A small HTTP/1.1 client for the Bot API: every call the bot makes (http.py), the
check-in pass's JSON sends the most often.

The check-in pass sends thousands of alike messages in a row. Through aiohttp's client
each send cost about three times the CPU of the socket work itself (its request and
response objects, headers, cookies, timers: docs/performance.md, "Check-ins at 0.3 ms"),
the largest share of a check-in; and importing aiohttp's client (two TLS contexts built at
import) was a tenth of the first poll (issue 25). This client keeps a few keep-alive
connections to the one host, writes a request it builds as bytes, and reads the answer
whole: a status and a body, nothing else. `post` is the JSON call; `request` any other
(a multipart upload, a file's download by GET).

What it does not do, because the Bot API needs none of it: redirects, cookies, proxies,
compression, pipelining. TLS is the standard library's default context (certificates and
host name verified), made once per process when the first https client is. Errors are
PTB's, as in http.py: `TimedOut` when the answer does not come within the read timeout
(the connection is closed then, so a late answer can never be read as the next one's),
`NetworkError` for anything else, with the failure's type only: the URL carries the bot
token.
"""

from __future__ import annotations

import asyncio
import ssl
from urllib.parse import urlsplit

from telegram.error import NetworkError, TimedOut

# Far beyond any answer the Bot API gives to a send (a message echoed back); a peer that
# sends more is not the Bot API, and the connection is dropped. A download says its own.
_MOST_HEAD = 64 * 1024
MOST_BODY = 4 * 1024 * 1024
# A connection idle longer than this is closed rather than reused. Servers close idle
# keep-alive connections on their own clock (commonly after 60-75 s), and one that closes
# just as a request is written on it fails that request; under this, we close first.
IDLE_LIFETIME = 15.0


class _Answer:
    """One response as it arrives: the head, then the body by length, by chunks, or up to
    the end of the connection."""

    status: int
    keep_alive: bool
    length: int | None  # Content-Length
    chunked: bool
    body_at: int  # where the body starts in the buffer, once the head is read

    def __init__(self, most: int = MOST_BODY) -> None:
        self.most = most  # the largest body taken
        self.reset()

    def reset(self) -> None:
        self.status, self.keep_alive, self.length, self.chunked, self.body_at = (
            0,
            True,
            None,
            False,
            -1,
        )


def _header(lowered: bytes, name: bytes) -> bytes | None:
    """A header's value in a head already lowered (no space before the colon: RFC 9112)."""
    at = lowered.find(b"\r\n" + name + b":")
    if at < 0:
        return None
    start = at + len(name) + 3
    end = lowered.find(b"\r\n", start)
    return lowered[start : end if end >= 0 else len(lowered)].strip()


def _head(answer: _Answer, head: bytes) -> None:
    if not head.startswith(b"HTTP/1.") or head[8:9] != b" ":
        raise ValueError("not an HTTP/1 answer")
    answer.status = int(head[9:12])
    answer.keep_alive = head[7:8] != b"0"  # HTTP/1.0 closes unless it says otherwise
    lowered = head.lower()
    connection = _header(lowered, b"connection")
    if connection is not None:
        if b"close" in connection:
            answer.keep_alive = False
        elif b"keep-alive" in connection:
            answer.keep_alive = True
    encoding = _header(lowered, b"transfer-encoding")
    if encoding is not None and encoding.endswith(b"chunked"):
        answer.chunked = True
        return
    length = _header(lowered, b"content-length")
    if length is not None:
        answer.length = int(length)
        if answer.length < 0 or answer.length > answer.most:
            raise ValueError("a body length out of bounds")
    elif answer.status not in (204, 304):
        answer.keep_alive = False  # the body runs to the end of the connection


def _unchunk(data: bytes | bytearray, start: int, most: int) -> tuple[bytes, int] | None:
    """The body and where it ends, once every chunk and the last one have arrived (the
    chunks are copied out only then: a large download arrives in many reads)."""
    spans: list[tuple[int, int]] = []
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
            if end < 0:
                return None
            return b"".join(bytes(data[a:b]) for a, b in spans), end + 4
        if len(data) < at + size + 2:
            return None
        spans.append((at, at + size))
        at += size + 2
        if at - start > most:
            raise ValueError("a chunked body out of bounds")


class _Connection(asyncio.Protocol):
    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.idle_since = 0.0  # the loop's time when it was last put back idle
        self._buffer = bytearray()
        self._answer: _Answer | None = None
        self._waiter: asyncio.Future[tuple[int, bytes, bool]] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._eof = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if not isinstance(transport, asyncio.Transport):  # a stream socket's always is
            transport.close()
            return
        self.transport = transport

    def send(
        self, request: bytes, read_timeout: float | None, most: int = MOST_BODY
    ) -> asyncio.Future[tuple[int, bytes, bool]]:
        """Write `request`; the future is its answer (a body of at most `most` bytes), or
        `TimedOut` after `read_timeout` (one timer on the loop: asyncio.timeout's context
        cost a tenth of a check-in)."""
        if self.closed or self.transport is None or self._buffer:
            raise NetworkError("the connection closed")
        loop = asyncio.get_running_loop()
        waiter = self._waiter = loop.create_future()
        self._answer = _Answer(most)
        if read_timeout is not None:
            self._timer = loop.call_later(read_timeout, self._late)
        self.transport.write(request)
        return waiter

    def _late(self) -> None:
        self._timer = None
        # The answer may still come: on this connection it must never be read as another's.
        self.close()
        self._fail(TimedOut())

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
        self._stop_timer()
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_exception(exc)

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

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
        self._stop_timer()
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
            return _unchunk(data, start, answer.most)
        if answer.length is not None:
            end = start + answer.length
            return (bytes(data[start:end]), end) if len(data) >= end else None
        if answer.status in (204, 304):
            return b"", start
        if len(data) - start > answer.most:
            raise ValueError("a body out of bounds")
        return (bytes(data[start:]), len(data)) if self._eof else None


_tls: ssl.SSLContext | None = None


def default_tls() -> ssl.SSLContext:
    """The standard library's default context (the system's CAs, host names checked),
    made once: loading the CAs is milliseconds of CPU, and a context serves any number of
    connections and clients."""
    global _tls  # noqa: PLW0603
    if _tls is None:
        _tls = ssl.create_default_context()
    return _tls


class KeepAliveClient:
    """Requests to one origin (`https://host[:port]`) over at most `connections` keep-alive
    connections at once; callers beyond that wait for one (within the connect timeout)."""

    def __init__(
        self,
        origin: str,
        *,
        connections: int,
        connect_timeout: float | None,
        read_timeout: float | None,
        user_agent: str,
        ssl_context: ssl.SSLContext | None = None,
        idle_lifetime: float = IDLE_LIFETIME,
    ) -> None:
        """`ssl_context` is for tests that trust their own CA; left out, an https origin
        is verified against the system's certificates."""
        self._idle_lifetime = idle_lifetime
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("an http or https origin is needed")
        self._host = parts.hostname
        self._tls = parts.scheme == "https"
        self._port = parts.port or (443 if self._tls else 80)
        default = 443 if self._tls else 80
        host = f"[{self._host}]" if ":" in self._host else self._host
        authority = host if self._port == default else f"{host}:{self._port}"
        self._common = f"Host: {authority}\r\nUser-Agent: {user_agent}\r\n".encode("ascii")
        self._headers = self._common + b"Content-Type: application/json\r\nContent-Length: "
        self._connect_timeout = connect_timeout
        self._read_timeout = read_timeout
        self._slots = asyncio.Semaphore(connections)
        self._idle: list[_Connection] = []
        self._busy: set[_Connection] = set()
        self._ssl = (ssl_context or default_tls()) if self._tls else None

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
        return await self._exchange(request, self._read_timeout, self._connect_timeout)

    async def request(
        self,
        method: str,
        target: str,
        body: bytes | None = None,
        content_type: str | None = None,
        *,
        read_timeout: float | None,
        connect_timeout: float | None,
        most: int = MOST_BODY,
    ) -> tuple[int, bytes]:
        """The status and body of the answer to `method target` (a path and query), with
        `body` of `content_type` if given; `read_timeout` runs from the request's writing to
        the answer's end, `connect_timeout` covers the wait for a free connection and the
        connecting; an answer's body over `most` bytes drops the connection."""
        parts = [method.encode("ascii"), b" ", target.encode("ascii"), b" HTTP/1.1\r\n"]
        parts.append(self._common)
        if body is not None:
            if content_type is not None:
                parts += (b"Content-Type: ", content_type.encode("ascii"), b"\r\n")
            parts += (b"Content-Length: ", str(len(body)).encode("ascii"), b"\r\n\r\n", body)
        else:
            parts.append(b"\r\n")
        return await self._exchange(b"".join(parts), read_timeout, connect_timeout, most)

    async def _exchange(
        self,
        request: bytes,
        read_timeout: float | None,
        connect_timeout: float | None,
        most: int = MOST_BODY,
    ) -> tuple[int, bytes]:
        connection = await self._take(connect_timeout)
        self._busy.add(connection)
        try:
            status, payload, keep = await connection.send(request, read_timeout, most)
        except BaseException:
            # A cancellation or a broken answer: an answer could still arrive on this
            # connection, and it must never be read as another send's.
            connection.close()
            raise
        finally:
            self._busy.discard(connection)
            self._slots.release()
        if keep and not connection.closed:
            connection.idle_since = asyncio.get_running_loop().time()
            self._idle.append(connection)
        return status, payload

    async def _take(self, connect_timeout: float | None) -> _Connection:
        """A slot and a connection, waiting for either within the connect timeout. Past
        it nothing was written: a NetworkError (retried), not a timeout that may have
        delivered. (No timeout is set up when neither needs waiting for.)"""
        deadline = None
        if connect_timeout is not None:
            deadline = asyncio.get_running_loop().time() + connect_timeout
        if self._slots.locked():
            try:
                async with asyncio.timeout_at(deadline):
                    await self._slots.acquire()
            except TimeoutError as exc:
                raise NetworkError("no free connection in time") from exc
        else:
            await self._slots.acquire()  # free: returns at once
        try:
            oldest = asyncio.get_running_loop().time() - self._idle_lifetime
            while self._idle:
                connection = self._idle.pop()  # the most recently used: the least likely stale
                if connection.closed:
                    continue
                if connection.idle_since < oldest:
                    # Every connection below it in the list was idle longer still.
                    for old in (connection, *self._idle):
                        old.close()
                    self._idle.clear()
                    break
                return connection
            async with asyncio.timeout_at(deadline):
                return await self._open()
        except BaseException as exc:
            self._slots.release()
            if isinstance(exc, TimeoutError):
                raise NetworkError("no connection in time") from exc
            raise

    async def _open(self) -> _Connection:
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
