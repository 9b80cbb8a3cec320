"""Urges ("a hard moment"): what one logged urge holds, and the one-line reading in words.

Pure: no I/O and no Telegram. The reading compares the last four weeks with the four
before, so that someone who would rather read than look at a chart hears that the waves
got smaller, or, gently, that this stretch was harder, never that they failed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from statistics import fmean

from bot.content.texts import Tx

__all__ = [
    "FOLLOW_UP_DELAY",
    "MAX_STRENGTH",
    "MIN_FOLLOW_UPS",
    "MIN_TO_COMPARE",
    "READING_KEYS",
    "READING_PERIOD",
    "TRIGGERS",
    "PeriodSummary",
    "Reading",
    "UrgeEvent",
    "check_back_key",
    "read_progress",
    "reading_text",
    "summarise",
]

# "I'll check back in 20 minutes": the texts get the number as {minutes}.
FOLLOW_UP_DELAY = timedelta(minutes=20)
MAX_STRENGTH = 10  # strength is a 0–10 tap

# What set it off: stable ids (stored with the event, used in callback data); the labels
# are content, `urge.trigger.<id>`. "other" asks the person to type a few words.
TRIGGERS: tuple[str, ...] = (
    "song",
    "loneliness",
    "guilt",
    "anniversary",
    "message",
    "future",
    "other",
)

# The reading's window: content/texts/urge.yaml says "four weeks", keep the two together.
READING_PERIOD = timedelta(days=28)
# Fewer logged urges than this in either period is too little to compare honestly.
MIN_TO_COMPARE = 3
# Follow-ups needed in each period before "shorter" (passing sooner) is judged.
MIN_FOLLOW_UPS = 2
# What counts as a change rather than noise.
_COUNT_RATIO = 0.8  # fewer: at most 80% of before (and at least 2 fewer); more: the inverse
_COUNT_DIFF = 2
_STRENGTH_DIFF = 1.0  # points on the 0–10 scale, mean against mean
_EASED_DIFF = 0.2  # share of followed-up urges that had at least halved by the check-back


@dataclass(frozen=True)
class UrgeEvent:
    at: datetime  # aware
    strength: int  # 0–10, at the time
    follow_up: int | None = None  # 0–10, asked again FOLLOW_UP_DELAY later, if answered

    def __post_init__(self) -> None:
        if self.at.tzinfo is None:
            raise ValueError("an urge needs an aware datetime")
        for value in (self.strength, self.follow_up):
            if value is not None and not 0 <= value <= MAX_STRENGTH:
                raise ValueError(f"strength must be 0–{MAX_STRENGTH}")

    @property
    def eased(self) -> bool | None:
        """Had it at least halved by the check-back? None without a follow-up."""
        if self.follow_up is None:
            return None
        return self.follow_up * 2 <= self.strength and self.follow_up < self.strength


@dataclass(frozen=True)
class PeriodSummary:
    count: int
    mean_strength: float | None
    follow_ups: int
    eased_share: float | None  # of the followed-up urges, the share that had eased


def summarise(events: Sequence[UrgeEvent]) -> PeriodSummary:
    eased = [e.eased for e in events if e.eased is not None]
    return PeriodSummary(
        count=len(events),
        mean_strength=fmean(e.strength for e in events) if events else None,
        follow_ups=len(eased),
        eased_share=fmean(1.0 if x else 0.0 for x in eased) if eased else None,
    )


@dataclass(frozen=True)
class Reading:
    """Which sentence to say (`progress.reading.<key>`), and the figures behind it."""

    key: str
    current: PeriodSummary
    previous: PeriodSummary


# The sentences for what got better, by the set of dimensions that did.
_BETTER_KEYS: dict[frozenset[str], str] = {
    frozenset({"fewer"}): "fewer",
    frozenset({"weaker"}): "weaker",
    frozenset({"shorter"}): "shorter",
    frozenset({"fewer", "weaker"}): "fewer_weaker",
    frozenset({"fewer", "shorter"}): "fewer_shorter",
    frozenset({"weaker", "shorter"}): "shorter_weaker",
    frozenset({"fewer", "weaker", "shorter"}): "fewer_shorter_weaker",
}
# Every key `read_progress` can return; content check requires a sentence for each.
READING_KEYS: tuple[str, ...] = (
    "no_data",
    "too_little",
    "quiet",
    "same",
    "harder",
    *_BETTER_KEYS.values(),
)


def read_progress(events: Iterable[UrgeEvent], *, now: datetime) -> Reading:
    """Compare the urges of the last READING_PERIOD up to `now` with the period before.

    Better on any of fewer, weaker, shorter (passed sooner: more of them had halved by the
    check-back) names what improved, and only that: where something else got harder the
    chart shows it, and the sentence does not dwell on it. Harder on some and better on
    none says so gently; no clear change is "about the same".
    """
    start = now - READING_PERIOD
    before = start - READING_PERIOD
    events = list(events)
    current = summarise([e for e in events if start < e.at <= now])
    previous = summarise([e for e in events if before < e.at <= start])

    def reading(key: str) -> Reading:
        return Reading(key, current, previous)

    if current.count == 0 and previous.count == 0:
        return reading("no_data")
    if current.count == 0 and previous.count >= MIN_TO_COMPARE:
        return reading("quiet")
    if current.count < MIN_TO_COMPARE or previous.count < MIN_TO_COMPARE:
        return reading("too_little")

    better: set[str] = set()
    worse: set[str] = set()
    diff = previous.count - current.count
    if diff >= _COUNT_DIFF and current.count <= previous.count * _COUNT_RATIO:
        better.add("fewer")
    elif -diff >= _COUNT_DIFF and previous.count <= current.count * _COUNT_RATIO:
        worse.add("more")
    if current.mean_strength is None or previous.mean_strength is None:
        return reading("too_little")  # no strengths to compare (counted events have them)
    step = current.mean_strength - previous.mean_strength
    if step <= -_STRENGTH_DIFF:
        better.add("weaker")
    elif step >= _STRENGTH_DIFF:
        worse.add("stronger")
    if (
        current.follow_ups >= MIN_FOLLOW_UPS
        and previous.follow_ups >= MIN_FOLLOW_UPS
        and current.eased_share is not None
        and previous.eased_share is not None
    ):
        shift = current.eased_share - previous.eased_share
        if shift >= _EASED_DIFF:
            better.add("shorter")
        elif shift <= -_EASED_DIFF:
            worse.add("longer")

    if better:
        return reading(_BETTER_KEYS[frozenset(better)])
    return reading("harder" if worse else "same")


def check_back_key(before: int, after: int) -> str:
    """The line under "Before: 8   Now: 3" (`urge.followup.<key>`): any fall is the wave
    coming down; the same or higher is met kindly, with the steps and help offered."""
    if after < before:
        return "lower"
    return "same" if after == before else "higher"


def reading_text(tx: Tx, reading: Reading) -> str:
    return tx(f"progress.reading.{reading.key}")
