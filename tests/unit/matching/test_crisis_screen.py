"""Long texts are read off the event loop, each chat in turn (issue 27, finding 2): one
chat's flood of long texts costs another chat at most the one text being read."""

from __future__ import annotations

import asyncio
import threading

from bot.matching.crisis import CrisisKind, CrisisMatch
from bot.matching.crisis_screen import INLINE_CHARS, CrisisScreen

LONG = "x" * (INLINE_CHARS + 1)


async def test_a_flooding_chat_waits_behind_others_not_the_reverse() -> None:
    order: list[str] = []
    loop_thread = threading.get_ident()
    threads: set[int] = set()

    def detect(text: str) -> CrisisMatch | None:
        threads.add(threading.get_ident())
        order.append(text[-3:])
        return CrisisMatch(CrisisKind.GENERAL, frozenset()) if text.endswith("die") else None

    screen = CrisisScreen(detect)
    try:
        flood = [screen.detect(f"{LONG}{n:03d}", chat="A") for n in range(20)]
        other = screen.detect(f"{LONG} i want to die", chat="B")
        results = await asyncio.gather(*flood, other)
    finally:
        await screen.close()
    assert results[-1] is not None and all(r is None for r in results[:-1])
    assert order.index("die") <= 1  # B's text was read first or second, not 21st
    assert loop_thread not in threads  # never on the event loop
    # Asked again (the crisis group after the early path), a long text is not read again.
    assert screen.quick("short help") is not False


async def test_short_texts_are_read_inline_and_a_repeated_long_text_once() -> None:
    calls: list[str] = []

    def detect(text: str) -> CrisisMatch | None:
        calls.append(text)
        return None

    screen = CrisisScreen(detect)
    try:
        assert screen.quick("help") is None and calls == ["help"]
        assert await screen.detect(LONG, chat=1) is None
        assert await screen.detect(LONG, chat=1) is None
        assert screen.quick(LONG) is None  # known now: no wait
    finally:
        await screen.close()
    assert calls.count(LONG) == 1
