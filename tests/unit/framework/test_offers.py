"""The pieces of the feature contract that hold without a bot: bounded memory of recent
updates, and offers set once by one feature and read by another."""

from __future__ import annotations

import pytest

from bot.core.recent import Recent
from bot.framework.hub import GROUP_CRISIS, Hub
from bot.framework.offers import Offers


def test_recent_keeps_only_the_newest() -> None:
    recent: Recent[int, str] = Recent(3)
    for n in range(10):
        recent[n] = str(n)
    assert len(recent) == 3 and [k for k, _ in recent.items()] == [7, 8, 9]
    assert recent.pop(8) == "8" and recent.pop(8) is None
    recent[7] = "again"  # set again: newest now
    recent[10] = "10"
    recent[11] = "11"
    assert [k for k, _ in recent.items()] == [7, 10, 11]


class _Tidy:
    """Stands in for the tidy feature: what it offers is whatever it is given."""


def test_an_offer_is_set_once_and_missing_ones_say_which() -> None:
    offers = Offers()
    with pytest.raises(LookupError, match="tidying"):
        _ = offers.tidying
    tidy = _Tidy()
    offers.tidying = tidy  # type: ignore[assignment]
    assert offers.tidying is tidy and offers.names() == ["tidying"]
    with pytest.raises(ValueError, match="offered twice"):
        offers.tidying = _Tidy()  # type: ignore[assignment]


def test_the_hub_refuses_a_second_early_crisis_hook() -> None:
    async def hook(*_: object) -> None:
        return None

    hub = Hub()
    hub.on_early_crisis(hook)
    with pytest.raises(ValueError):
        hub.on_early_crisis(hook)
    assert hub.handlers == [] and GROUP_CRISIS < 0
