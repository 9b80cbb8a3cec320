"""HTTP front of the emulator: routing, request decoding, faults and Telegram's JSON replies.

Logging names the method only, at DEBUG: the URL holds the bot token and the parameters
hold what people wrote, and neither may reach a log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from typing import Any

from aiohttp import web

from bot.emulator.errors import (
    INTERNAL,
    METHOD_NOT_FOUND,
    NOT_FOUND,
    TOO_LARGE,
    ApiError,
    bad_request,
)
from bot.emulator.faults import FaultPlan
from bot.emulator.methods import FILE_FOLDER, BotApi
from bot.emulator.params import Params, UploadedFile, normalize
from bot.emulator.state import EmulatorState

_log = logging.getLogger(__name__)

_TOKEN = re.compile(r"(\d+):[\w-]+")
# Telegram's own limit for a file a bot uploads: 50 MB, decimal
# (https://core.telegram.org/bots/api#sending-files); larger is answered 413. The body
# around it (the form, the other fields) may be a little larger.
UPLOAD_LIMIT = 50_000_000
_MAX_BODY_BYTES = UPLOAD_LIMIT + 1_000_000


def _reply(error: ApiError) -> web.Response:
    return web.json_response(error.payload(), status=error.status)


async def _read_params(request: web.Request) -> tuple[dict[str, Any], dict[str, UploadedFile]]:
    raw: dict[str, object] = dict(request.query)
    files: dict[str, UploadedFile] = {}
    if not request.body_exists:
        return normalize(raw), files
    content_type = request.content_type
    if content_type == "application/json":
        try:
            body = await request.json()
        except ValueError:
            raise bad_request("Bad Request: can't parse JSON object") from None
        if not isinstance(body, dict):
            raise bad_request("Bad Request: can't parse JSON object")
        raw.update(body)
    elif content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
        try:
            form = await request.post()
        except web.HTTPRequestEntityTooLarge:
            raise ApiError(413, TOO_LARGE) from None
        for name, value in form.items():
            if isinstance(value, web.FileField):
                content = value.file.read()
                if len(content) > UPLOAD_LIMIT:
                    raise ApiError(413, TOO_LARGE)
                files[name] = UploadedFile(value.filename, content, value.content_type)
            elif isinstance(value, bytes):
                raw[name] = value.decode("utf-8", "replace")
            else:
                raw[name] = value
    return normalize(raw), files


def _as_recorded(values: dict[str, Any], files: dict[str, UploadedFile]) -> dict[str, Any]:
    recorded = dict(values)
    for name, upload in files.items():
        recorded[name] = {"filename": upload.filename, "size": len(upload.content)}
    return recorded


class ApiServer:
    def __init__(self, api: BotApi, state: EmulatorState, faults: FaultPlan) -> None:
        self._api = api
        self._state = state
        self._faults = faults

    def application(self) -> web.Application:
        app = web.Application(client_max_size=_MAX_BODY_BYTES)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_route("GET", "/file/bot{token}/{folder}/{file_id}", self._download)
        app.router.add_route("*", "/{tail:.*}", self._unknown_path)
        return app

    async def _download(self, request: web.Request) -> web.Response:
        """A file getFile described; the token must be well formed, as for methods."""
        if _TOKEN.fullmatch(request.match_info["token"]) is None:
            return _reply(ApiError(404, NOT_FOUND))
        _log.debug("emulator: file download")
        self._state.record_call("download", {"file_id": request.match_info["file_id"]})
        data = self._state.file_bytes(request.match_info["file_id"])
        if request.match_info["folder"] != FILE_FOLDER or data is None:
            return _reply(ApiError(404, NOT_FOUND))
        return web.Response(body=data, content_type="application/octet-stream")

    async def _unknown_path(self, request: web.Request) -> web.Response:
        return _reply(ApiError(404, NOT_FOUND))

    async def _handle(self, request: web.Request) -> web.Response:
        token_match = _TOKEN.fullmatch(request.match_info["token"])
        if token_match is None:
            # Telegram answers a malformed token with a bare 404, method or not.
            return _reply(ApiError(404, NOT_FOUND))
        bot_id = int(token_match.group(1))
        method = request.match_info["method"]
        _log.debug("emulator: %s", method)
        try:
            values, files = await _read_params(request)
        except ApiError as error:
            return _reply(error)
        self._state.record_call(method, _as_recorded(values, files))

        handler = self._api.handler(method)
        if handler is None:
            return _reply(ApiError(404, METHOD_NOT_FOUND))

        fault = self._faults.take(method, values.get("chat_id"))
        if fault is not None:
            refusal = fault.error()
            if refusal is not None:
                return _reply(refusal)
            # "timeout": answer normally, but only after the client has stopped listening.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(fault.delay):
                    await self._api.stopping.wait()

        try:
            result = await handler(bot_id, Params(values, files))
        except ApiError as error:
            return _reply(error)
        except Exception as exc:
            # Kept for tests to inspect; the log gets the type only, never the values.
            self._state.internal_errors.append(exc)
            _log.error("emulator: %s failed with %s", method, type(exc).__name__)
            return _reply(ApiError(500, INTERNAL))
        return web.json_response({"ok": True, "result": result})
