"""PTB's HTTP transport on aiohttp instead of httpx.

Measured under load, PTB's default httpx transport cost about 1.5 ms of CPU per Bot API
call (connection-pool bookkeeping in httpcore, anyio wrappers), most of the bot's time
per daily prompt (docs/performance.md). aiohttp's client does the same work in a fraction
of that, and the package already depends on aiohttp for the emulator. PTB supports this
through its `BaseRequest` interface; errors are mapped to the same PTB exceptions
(`TimedOut`, `NetworkError`) the rest of the code and the send policy expect.

Error messages carry the exception's type only: an aiohttp error's text can include the
request URL, and the URL contains the bot token.

`post_json` is the one call that does not go through aiohttp: a JSON body already encoded
(the check-in pass's), over json_post.py's small keep-alive client, answered with the
status and bytes for the caller to read.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

from bot.transport.json_post import JsonPoster

_JSON_HEADERS = {"Content-Type": "application/json"}


class AiohttpRequest(BaseRequest):
    def __init__(
        self,
        *,
        connection_pool_size: int = 16,
        connect_timeout: float = 10.0,
        read_timeout: float = 10.0,
        write_timeout: float = 10.0,
        pool_timeout: float = 10.0,
    ) -> None:
        self._pool_size = connection_pool_size
        self._connect_timeout = connect_timeout
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout  # kept for PTB's interface; see do_request
        self._pool_timeout = pool_timeout
        self._session: aiohttp.ClientSession | None = None
        self._posters: dict[str, JsonPoster] = {}
        self._targets: dict[str, tuple[JsonPoster, str]] = {}  # url: its poster and path

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._pool_size),
                headers={"User-Agent": self.USER_AGENT},
            )

    async def shutdown(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None
        posters, self._posters = self._posters, {}
        self._targets.clear()
        for poster in posters.values():
            await poster.close()

    async def post_json(self, url: str, body: bytes) -> tuple[int, bytes]:
        """POST `body` (JSON, encoded by the caller) to `url`: Telegram's status and answer.
        Raises `TimedOut` when the answer is late (it may have been acted on), and
        `NetworkError` when the request could not be made or the answer not read."""
        if self._session is None:
            raise RuntimeError("AiohttpRequest is not initialized")
        target = self._targets.get(url)
        if target is None:
            parts = urlsplit(url)
            origin = f"{parts.scheme}://{parts.netloc}"
            poster = self._posters.get(origin)
            if poster is None:
                poster = self._posters[origin] = JsonPoster(
                    origin,
                    connections=self._pool_size,
                    connect_timeout=self._connect_timeout + self._pool_timeout,
                    read_timeout=self._read_timeout,
                    user_agent=self.USER_AGENT,
                )
            target = self._targets[url] = (poster, parts.path)
        poster, path = target
        return await poster.post(path, body)

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
        session = self._session
        if session is None or session.closed:
            raise RuntimeError("AiohttpRequest is not initialized")
        files = request_data.multipart_data if request_data else None
        read = self._read_timeout if isinstance(read_timeout, DefaultValue) else read_timeout
        connect = (
            self._connect_timeout if isinstance(connect_timeout, DefaultValue) else connect_timeout
        )
        pool = self._pool_timeout if isinstance(pool_timeout, DefaultValue) else pool_timeout
        # aiohttp has no write timeout of its own; the read timeout runs from the moment the
        # request is sent until the answer has arrived, which is what PTB's read timeout
        # means too. Getting a connection (pool wait + connect) has its own limit.
        timeout = aiohttp.ClientTimeout(
            total=None,
            connect=None if connect is None else connect + (pool or 0),
            sock_connect=connect,
            sock_read=read,
        )
        body: Any
        headers = None
        if files and request_data is not None:
            form = aiohttp.FormData()
            for name, value in request_data.json_parameters.items():
                form.add_field(name, value)
            for name, (filename, content, mime) in files.items():
                form.add_field(name, content, filename=filename, content_type=mime)
            body = form
        elif request_data is not None:
            # JSON, not a form: one dumps of the native values, where a form meant PTB
            # encoding each value as JSON and then url-encoding the lot (a tenth of an
            # ordinary update's CPU, issue 25).
            body = json.dumps(request_data.parameters, separators=(",", ":")).encode()
            headers = _JSON_HEADERS
        else:
            body = None
        try:
            async with session.request(
                method, url, data=body, headers=headers, timeout=timeout
            ) as response:
                return response.status, await response.read()
        except TimeoutError as exc:
            raise TimedOut from exc
        except asyncio.TimeoutError as exc:  # noqa: UP041 - aiohttp may raise the old alias
            raise TimedOut from exc
        except aiohttp.ClientError as exc:
            raise NetworkError(f"aiohttp.{type(exc).__name__}") from exc
