"""The one-line reading beside the progress chart: each case, and never a shaming word."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest

from bot.content.urge_model import (
    READING_KEYS,
    READING_PERIOD,
    UrgeEvent,
    check_back_key,
    read_progress,
    reading_text,
)
from tests.conftest import shared_content

NOW = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)


def period(
    strengths: Sequence[int], follow_ups: Sequence[int | None] = (), *, previous: bool = False
) -> list[UrgeEvent]:
    """Urges spread over the current period (or the one before)."""
    end = NOW - (READING_PERIOD if previous else timedelta())
    step = READING_PERIOD / (len(strengths) + 1)
    ups = list(follow_ups) + [None] * (len(strengths) - len(follow_ups))
    return [
        UrgeEvent(end - step * (i + 1), s, f)
        for i, (s, f) in enumerate(zip(strengths, ups, strict=True))
    ]


def key(events: list[UrgeEvent]) -> str:
    return read_progress(events, now=NOW).key


def test_nothing_logged() -> None:
    assert key([]) == "no_data"


def test_too_little_to_compare() -> None:
    assert key(period([5, 6])) == "too_little"
    assert key(period([5, 6, 7]) + period([5, 6], previous=True)) == "too_little"
    assert key(period([5, 6], previous=True)) == "too_little"  # two before, none now


def test_none_now_after_several_before_is_quiet() -> None:
    assert key(period([5, 6, 7], previous=True)) == "quiet"


def test_about_the_same() -> None:
    assert key(period([5, 6, 7, 6]) + period([6, 5, 7, 6], previous=True)) == "same"


def test_fewer() -> None:
    assert key(period([6, 6, 6]) + period([6, 6, 6, 6, 6, 6], previous=True)) == "fewer"


def test_weaker() -> None:
    assert key(period([4, 4, 5, 4]) + period([6, 7, 6, 6], previous=True)) == "weaker"


def test_shorter_means_more_had_eased_by_the_check_back() -> None:
    now = period([6, 6, 6, 6], [2, 3, 1, 6])  # three of four halved
    before = period([6, 6, 6, 6], [5, 6, 4, 2], previous=True)  # one of four
    assert key(now + before) == "shorter"


def test_every_combination_of_better_has_its_sentence() -> None:
    fewer_weaker = period([3, 3, 4]) + period([7, 7, 6, 7, 6, 7], previous=True)
    assert key(fewer_weaker) == "fewer_weaker"
    shorter_weaker = period([4, 4, 4, 4], [1, 2, 2, 1]) + period(
        [6, 6, 6, 6], [6, 5, 6, 6], previous=True
    )
    assert key(shorter_weaker) == "shorter_weaker"
    fewer_shorter = period([6, 6, 6], [2, 3, 3]) + period(
        [6, 6, 6, 6, 6, 6], [6, 6, 5, 6, 6, 6], previous=True
    )
    assert key(fewer_shorter) == "fewer_shorter"
    all_three = period([3, 4, 3], [1, 1, 0]) + period(
        [8, 7, 8, 7, 8, 7], [7, 7, 8, 6, 7, 7], previous=True
    )
    assert key(all_three) == "fewer_shorter_weaker"


def test_harder_on_some_and_better_on_none() -> None:
    assert key(period([6] * 8) + period([6] * 4, previous=True)) == "harder"  # more
    assert key(period([8, 8, 9]) + period([6, 6, 7], previous=True)) == "harder"  # stronger


def test_better_on_one_and_harder_on_another_names_only_what_improved() -> None:
    # More often, but weaker: the sentence is about weaker; the chart shows the rest.
    assert key(period([3] * 8) + period([7] * 4, previous=True)) == "weaker"


def test_follow_ups_too_few_leave_shorter_unjudged() -> None:
    now = period([6, 6, 6, 6], [1])  # one follow-up only
    before = period([6, 6, 6, 6], [6, 6, 6, 6], previous=True)
    assert key(now + before) == "same"


def test_urges_after_now_or_before_both_periods_are_left_out() -> None:
    later = [UrgeEvent(NOW + timedelta(hours=1), 10)]
    long_ago = [UrgeEvent(NOW - READING_PERIOD * 3, 10) for _ in range(5)]
    reading = read_progress(period([5, 5, 5]) + later + long_ago, now=NOW)
    assert reading.current.count == 3 and reading.previous.count == 0


def test_summaries_hold_the_figures() -> None:
    reading = read_progress(period([4, 6], [2, 6]) + period([8], previous=True), now=NOW)
    assert reading.current.count == 2
    assert reading.current.mean_strength == 5.0
    assert reading.current.follow_ups == 2 and reading.current.eased_share == 0.5
    assert reading.previous.eased_share is None


@pytest.mark.parametrize("reading_key", READING_KEYS)
def test_every_sentence_is_kind(reading_key: str) -> None:
    tx = shared_content().texts
    text = tx(f"progress.reading.{reading_key}").lower()
    for word in ("fail", "should", "relapse", "weak ", "again you", "only ", "but you", "gave in"):
        assert word not in text, (reading_key, word)


def test_reading_text_is_the_sentence_for_the_key() -> None:
    tx = shared_content().texts
    reading = read_progress(period([4, 4, 5, 4]) + period([6, 7, 6, 6], previous=True), now=NOW)
    assert reading_text(tx, reading) == tx("progress.reading.weaker")
    assert "weaker" in reading_text(tx, reading)


def test_strengths_out_of_range_are_refused() -> None:
    with pytest.raises(ValueError, match="0–10"):
        UrgeEvent(NOW, 11)
    with pytest.raises(ValueError, match="0–10"):
        UrgeEvent(NOW, 5, -1)
    with pytest.raises(ValueError, match="aware"):
        UrgeEvent(datetime(2026, 12, 1), 5)


def test_check_back_line_follows_the_two_numbers() -> None:
    assert [check_back_key(8, a) for a in (3, 7, 8, 9)] == ["lower", "lower", "same", "higher"]
    tx = shared_content().texts
    for before, after in ((8, 3), (5, 5), (4, 6)):
        line = tx(f"urge.followup.{check_back_key(before, after)}").lower()
        assert "fail" not in line and "should" not in line
