"""Time zones as people name them: a list of real names (tests/data/timezone_names.tsv)
resolved at least 95% right, and the rules behind ties, offsets and button labels."""

from __future__ import annotations

import zoneinfo
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.features.checkins.schedule import is_valid_timezone
from bot.geo import lookup as geo
from bot.geo import zone_names
from tests.helpers.reporting import report

NAMES = Path(__file__).resolve().parents[2] / "data" / "timezone_names.tsv"
# Offsets depend on the season: the list is read as of a July day.
JULY = datetime(2026, 7, 15, 12, tzinfo=UTC)


def same_clock(found: str | None, expected: str) -> bool:
    """Right if it is the zone, or one that keeps the same time all year."""
    if found is None:
        return False
    if found == expected:
        return True
    a, b = zoneinfo.ZoneInfo(found), zoneinfo.ZoneInfo(expected)
    moments = [datetime(2026, month, 10, 12, tzinfo=UTC) for month in range(1, 13)]
    return all(a.utcoffset(m) == b.utcoffset(m) for m in moments)


def cases() -> list[tuple[str, str, str | None]]:
    rows = []
    for line in NAMES.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        text, expected, *country = line.split("\t")
        rows.append((text, expected, country[0] if country else None))
    return rows


def test_the_list_is_long_and_names_real_zones() -> None:
    rows = cases()
    assert len(rows) >= 300
    assert all(is_valid_timezone(expected) for _, expected, _ in rows)


def test_at_least_95_percent_of_real_names_resolve() -> None:
    rows = cases()
    wrong = [
        (text, expected, found)
        for text, expected, country in rows
        if not same_clock(found := geo.find_timezone(text, country=country, now=JULY), expected)
    ]
    rate = 1 - len(wrong) / len(rows)
    report(f"time-zone names: {len(rows) - len(wrong)}/{len(rows)} resolved ({rate:.1%})")
    assert rate >= 0.95, wrong


def test_every_answer_is_a_zone_the_scheduler_accepts() -> None:
    for text, _, country in cases():
        found = geo.find_timezone(text, country=country, now=JULY)
        assert found is None or is_valid_timezone(found), (text, found)


@pytest.mark.parametrize(
    ("text", "country", "expected"),
    [
        ("Paris", None, "Europe/Paris"),  # Paris, France: by far the larger
        ("Paris", "US", "America/Chicago"),  # in the US, Paris, Texas
        ("London", "CA", "America/Toronto"),  # London, Ontario
        ("Portland", None, "America/Los_Angeles"),  # Oregon's is the larger
        ("Portland, Maine", None, "America/New_York"),
        ("Portland ME", None, "America/New_York"),
        ("Paris, Texas", None, "America/Chicago"),
        ("IST", None, "Asia/Kolkata"),
        ("IST", "IE", "Europe/Dublin"),
        ("PST", "PH", "Asia/Manila"),
    ],
)
def test_ties_go_to_the_persons_country_then_to_population(
    text: str, country: str | None, expected: str
) -> None:
    assert same_clock(geo.find_timezone(text, country=country, now=JULY), expected)


@pytest.mark.parametrize(
    ("text", "country", "expected"),
    [
        ("UTC+2", None, "Etc/GMT-2"),  # a fixed offset is what was said
        ("UTC+2", "DE", "Europe/Berlin"),  # Germany in July: the real zone, with its DST
        ("GMT-5", None, "Etc/GMT+5"),
        ("+5:30", None, "Asia/Kolkata"),
        ("utc + 05:45", None, "Asia/Kathmandu"),
        ("UTC-0", None, "UTC"),
        ("UTC+15", None, None),
        ("+3:75", None, None),
    ],
)
def test_offsets(text: str, country: str | None, expected: str | None) -> None:
    assert geo.find_timezone(text, country=country, now=JULY) == expected


@pytest.mark.parametrize("text", ["", "   ", "???", "asdfghjkl", "x" * 500, "🌱"])
def test_nonsense_is_not_a_zone(text: str) -> None:
    assert geo.find_timezone(text) is None


def test_countries_with_several_clocks_are_not_guessed() -> None:
    assert geo.find_timezone("United States") is None
    assert geo.find_timezone("Australia") is None
    assert geo.find_timezone("Deutschland") == "Europe/Berlin"


@pytest.mark.parametrize(
    ("zone", "language", "country", "label"),
    [
        ("America/Los_Angeles", "en", "US", "Pacific: Los Angeles, Seattle"),
        ("America/Phoenix", "en", "US", "Mountain: Phoenix, Tucson"),
        # Other languages: CLDR's names, the city's own in that language, most populous
        # zone of the clock first; a tiny zone on the same clock (Büsingen) is left out.
        ("America/Los_Angeles", "es", "US", "Pacífico: Los Ángeles"),
        ("Europe/Rome", "it", "IT", "Europa centrale: Roma"),
        ("Europe/Berlin", "it", "DE", "Europa centrale: Berlino"),
        ("Europe/Berlin", "de", "DE", "Mitteleuropäische Zeit: Berlin"),  # not a bare adjective
        ("America/Noronha", "pt", "BR", "Fernando de Noronha"),  # its "de" kept, not twice
        ("America/Mexico_City", "es", "MX", "Central: Ciudad de México, Monterrey"),
        ("Europe/Berlin", "en", None, "Central European: Berlin, Hamburg"),
        ("Etc/GMT-2", "en", None, "UTC+02:00"),
        ("UTC", "en", None, "UTC"),
    ],
)
def test_button_labels_are_plain_words(
    zone: str, language: str, country: str | None, label: str
) -> None:
    assert geo.zone_label(zone, language, country) == label


def test_every_country_zone_has_a_short_label_without_tz_comments() -> None:
    for code, zones in geo.zones_by_country().items():
        for zone in zones:
            label = zone_names.zone_label(zone.name, "en", code)
            assert 0 < len(label) <= 60, (zone, label)
            assert "(" not in label, (zone, label)


def test_each_clock_is_shown_by_its_most_populous_zone() -> None:
    names = [z.name for z in geo.main_zones("AU", 2026)]
    assert "Australia/Sydney" in names and "Antarctica/Macquarie" not in names
    # The clock most people keep comes first: São Paulo's, not Noronha's.
    assert geo.main_zones("BR", 2026)[0].name == "America/Sao_Paulo"
    assert geo.main_zones("US", 2026)[0].name == "America/New_York"
    assert [z.name for z in geo.distinct_zones("DE", 2026)] == ["Europe/Berlin"]
    label = geo.zone_label("Australia/Sydney", country="AU")
    assert label == "Australian Eastern: Sydney, Melbourne"  # cities of the whole clock
