"""The crisis match is computed once per message and handed on: the update processor's
screen, its early reply, the cover's check and the crisis group all use the one answer
(before, a crisis word was read three times and every ordinary message twice)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any, cast

from bot.matching.crisis import CrisisDetector, CrisisMatch
from tests.helpers.bot import BotUnderTest, shared_content


class CountingDetector:
    """The real detector, counting how often each text is read."""

    def __init__(self, inner: CrisisDetector) -> None:
        self.inner = inner
        self.reads: Counter[str] = Counter()

    def detect(self, text: str) -> CrisisMatch | None:
        self.reads[text] += 1
        return self.inner.detect(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


async def counted(bot: BotUnderTest) -> CountingDetector:
    await bot.stop()
    content = shared_content()
    detector = CountingDetector(content.detector)
    bot.content = dataclasses.replace(content, detector=cast(CrisisDetector, detector))
    await bot.start()
    return detector


async def test_a_crisis_word_and_an_ordinary_message_are_each_read_once(
    bot: BotUnderTest,
) -> None:
    detector = await counted(bot)
    await bot.onboard()
    crisis = "I think he's outside the house right now"
    await bot.send(crisis)
    assert "999" in ((await bot.next()).text or "")
    ordinary = "just a normal day today"
    await bot.send(ordinary)
    await bot.settle()
    assert detector.reads[crisis] == 1
    assert detector.reads[ordinary] == 1
