"""PTB's HTTP transport: every Bot API call over json_post.py's keep-alive client.

Measured under load, PTB's default httpx transport cost about 1.5 ms of CPU per Bot API
call (connection-pool bookkeeping in httpcore, anyio wrappers), and aiohttp's client, which
replaced it, still about three times the socket work per call, and a tenth of the first
poll to import (its connector builds two TLS contexts at import: issue 25). The bot's own
client writes each request as bytes and reads the answer whole. PTB supports this through
its `BaseRequest` interface: this class only moves bytes, and PTB's `BaseRequest` reads
the answer (the JSON, `RetryAfter` from its parameters, `BadRequest`, `Forbidden`, 5xx as
`NetworkError`). Failures to move them are PTB's `TimedOut` (the answer was late: it may
have been acted on) and `NetworkError` (anything else), which the send policy expects.

Timeouts, as PTB means them: `pool` + `connect` for a connection (a free one of the pool,
or a new one), then `read` from the request's writing to the answer's end; an upload adds
`write` to that, since writing its bytes is part of the same wait. Long polling passes its
own read timeout per call. No proxy is used (the settings have none, and the environment's
is not read, as aiohttp's client did not either). TLS is verified against the system's
certificates.

Error messages carry the exception's type only: the URL contains the bot token.
"""

from __future__ import annotations

import json
from urllib.parse import quote, urlsplit

from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TelegramError
from telegram.request import BaseRequest, RequestData

from bot.transport.json_post import KeepAliveClient
from bot.transport.multipart import multipart

_JSON = "application/json"
# The largest answer taken: far beyond a Bot API answer (json_post.py's bound for a send)
# and beyond a file Telegram lets a bot download (20 MB).
MOST_ANSWER = 64 * 1024 * 1024


class BotApiRequest(BaseRequest):
    def __init__(
        self,
        *,
        connection_pool_size: int = 16,
        connect_timeout: float | None = 10.0,
        read_timeout: float | None = 10.0,
        write_timeout: float | None = 10.0,
        pool_timeout: float | None = 10.0,
    ) -> None:
        self._pool_size = connection_pool_size
        self._connect_timeout = connect_timeout
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout
        self._pool_timeout = pool_timeout
        self._open = False
        self._clients: dict[str, KeepAliveClient] = {}  # by origin
        # A method's URL: its client and path (a handful; downloads are not kept here).
        self._targets: dict[str, tuple[KeepAliveClient, str]] = {}

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    async def initialize(self) -> None:
        self._open = True

    async def shutdown(self) -> None:
        self._open = False
        clients, self._clients = self._clients, {}
        self._targets.clear()
        for client in clients.values():
            await client.close()

    def _target(self, url: str, *, keep: bool) -> tuple[KeepAliveClient, str]:
        """The client for `url`'s origin and the request target (path and query)."""
        found = self._targets.get(url)
        if found is not None:
            return found
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise NetworkError("not an http or https URL")
        origin = f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"
        client = self._clients.get(origin)
        if client is None:
            client = self._clients[origin] = KeepAliveClient(
                origin,
                connections=self._pool_size,
                connect_timeout=_plus(self._connect_timeout, self._pool_timeout),
                read_timeout=self._read_timeout,
                user_agent=self.USER_AGENT,
            )
        target = parts.path or "/"
        if parts.query:
            target += "?" + parts.query
        if not target.isascii():  # a file's path as Telegram names it is ASCII; to be sure
            target = quote(target, safe="/%:@!$&'()*+,;=?~")
        found = (client, target)
        if keep:
            self._targets[url] = found
        return found

    async def post_json(self, url: str, body: bytes) -> tuple[int, bytes]:
        """POST `body` (JSON, encoded by the caller) to `url`: Telegram's status and answer.
        Raises `TimedOut` when the answer is late (it may have been acted on), and
        `NetworkError` when the request could not be made or the answer not read."""
        if not self._open:
            raise RuntimeError("BotApiRequest is not initialized")
        client, path = self._target(url, keep=True)
        return await client.post(path, body)

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        if not self._open:
            raise RuntimeError("BotApiRequest is not initialized")
        read = self._read_timeout if isinstance(read_timeout, DefaultValue) else read_timeout
        write = self._write_timeout if isinstance(write_timeout, DefaultValue) else write_timeout
        connect = (
            self._connect_timeout if isinstance(connect_timeout, DefaultValue) else connect_timeout
        )
        pool = self._pool_timeout if isinstance(pool_timeout, DefaultValue) else pool_timeout
        body: bytes | None = None
        content_type: str | None = None
        try:
            client, target = self._target(url, keep=method == "POST")
            files = request_data.multipart_data if request_data is not None else None
            if files and request_data is not None:
                body, content_type = multipart(request_data.json_parameters, files)
                read = _plus(read, write)
            elif request_data is not None:
                # JSON, not a form: one dumps of the native values, where a form meant PTB
                # encoding each value as JSON and then url-encoding the lot (a tenth of an
                # ordinary update's CPU, issue 25).
                body = json.dumps(request_data.parameters, separators=(",", ":")).encode()
                content_type = _JSON
            return await client.request(
                method,
                target,
                body,
                content_type,
                read_timeout=read,
                connect_timeout=_plus(connect, pool),
                most=MOST_ANSWER,
            )
        except TelegramError:
            raise
        except Exception as exc:  # PTB would print its repr, and a repr may hold the URL
            raise NetworkError(f"the request failed: {type(exc).__name__}") from exc


def _plus(limit: float | None, more: float | None) -> float | None:
    """A limit extended by another (no limit stays none)."""
    return None if limit is None else limit + (more or 0.0)
