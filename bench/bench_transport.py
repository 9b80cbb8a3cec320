"""PTB's transport beside PTB's own: CPU per Bot API call through a `telegram.Bot`, by hand:

    .venv/bin/python -m bench.bench_transport [--calls 3000] [--uploads 200] [--concurrency 8]

The emulator runs in a process of its own (bench/harness.py), so the CPU time measured here
is the calling side's alone: a Bot's `send_message` (PTB builds the request, the transport
moves it, PTB parses the echoed Message) `--calls` times, `--concurrency` at once, then
`--uploads` `send_document` calls with a 100 kB file (multipart). Each transport in turn:
`ours` is bot/transport/http.py's class (in an export of main from before issue 25's
firstpoll2 branch, that is the aiohttp one: run this file there to compare), `httpx` is
PTB's default. A second figure is the import time of the transport's module, as
`-X importtime` counts it in a fresh interpreter. Results in docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from typing import Any

from telegram import Bot, InputFile
from telegram.request import BaseRequest, HTTPXRequest

from bench.harness import FIRST_USER, ROOT, TOKEN, EmulatorProcess
from bot.transport import http

_UPLOAD = bytes(range(256)) * 400  # 100 kB


def ours() -> BaseRequest:
    kind: Any = getattr(http, "BotApiRequest", None) or http.AiohttpRequest  # type: ignore[attr-defined]
    request: BaseRequest = kind(connection_pool_size=16)
    return request


def theirs() -> BaseRequest:
    return HTTPXRequest(connection_pool_size=16)


async def one(make: Any, url: str, calls: int, uploads: int, concurrency: int) -> dict[str, Any]:
    bot = Bot(TOKEN, base_url=url, request=make())
    async with bot:
        await bot.send_message(FIRST_USER, "warm")  # the connection, and PTB's first-call costs

        async def sender(count: int) -> None:
            for n in range(count):
                await bot.send_message(FIRST_USER, f"a check-in's length of text, number {n}")

        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.gather(*(sender(calls // concurrency) for _ in range(concurrency)))
        send_cpu, send_wall = time.process_time() - cpu, time.perf_counter() - wall
        cpu = time.process_time()
        for n in range(uploads):
            await bot.send_document(FIRST_USER, InputFile(_UPLOAD, filename=f"export-{n}.pdf"))
        upload_cpu = time.process_time() - cpu
    sent = calls // concurrency * concurrency
    return {
        "calls": sent,
        "cpu_ms_per_call": round(send_cpu / sent * 1000, 3),
        "calls_per_s": round(sent / send_wall),
        "uploads": uploads,
        "cpu_ms_per_upload": round(upload_cpu / uploads * 1000, 3) if uploads else None,
    }


def import_ms(module: str) -> float:
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import telegram, {module}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    for line in out.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[2].strip() == module:
            return int(parts[1]) / 1000
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_transport")
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--uploads", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    emulator = EmulatorProcess(1)
    try:
        for name, make in (("ours", ours), ("httpx", theirs)):
            result = asyncio.run(
                one(make, emulator.url, args.calls, args.uploads, args.concurrency)
            )
            result["transport"] = name if name == "httpx" else type(make()).__name__
            print(json.dumps(result), flush=True)
    finally:
        emulator.finish()
    imports = {
        "bot.transport.http_import_ms_after_telegram": min(
            import_ms("bot.transport.http") for _ in range(3)
        )
    }
    print(json.dumps(imports))


if __name__ == "__main__":
    main()
