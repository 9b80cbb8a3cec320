"""Countries and time zones: what the rest of the bot asks (one place to import from).

The IANA tables live in `zone_table` (zone.tab maps each country to its zones, iso3166.tab
names the countries; both maintained upstream, so we keep no copy of our own); what people
call a zone (cities, abbreviations, offsets, in seven languages) lives in `zone_names`,
which builds on the tables. This module imports both and neither imports it.
"""

from __future__ import annotations

import zoneinfo
from datetime import datetime
from functools import cache

from bot.geo import zone_names
from bot.geo.tables import (
    Zone,
    country_names,
    find_country,
    fold,
    same_clock,
    zones_by_country,
    zones_for,
)
from bot.geo.zone_names import distinct_zones

__all__ = [
    "Zone",
    "country_names",
    "distinct_zones",
    "find_country",
    "find_timezone",
    "fold",
    "main_zones",
    "same_clock",
    "zone_label",
    "zones_by_country",
    "zones_for",
]


def main_zones(country: str, year: int, limit: int = 8) -> tuple[Zone, ...]:
    """The zones worth a button: one per distinct clock, in zone.tab's order (which lists
    a country's main regions first)."""
    return distinct_zones(country, year)[:limit]


@cache
def _all_zone_names() -> dict[str, str]:
    return {name.casefold(): name for name in zoneinfo.available_timezones()}


def find_timezone(text: str, country: str | None = None, now: datetime | None = None) -> str | None:
    """The zone someone names: an IANA name in any case ("europe/london"), a city ("Seattle",
    "São Paulo", "Paris, Texas"), a country with one clock, an abbreviation or a zone's name
    ("EST", "Pacific", "hora del Pacífico"), or an offset ("UTC+2", "+5:30").
    `country` (the person's, when known) settles names that several places share."""
    raw = text.strip()
    exact = _all_zone_names().get(raw.casefold().replace(" ", "_"))
    if exact is not None and "/" in exact:
        return exact
    return zone_names.resolve(raw, country=country, now=now)


def zone_label(zone: str, language: str = "en", country: str | None = None) -> str:
    """Words for a time-zone button: "Pacific: Los Angeles, Seattle"."""
    return zone_names.zone_label(zone, language, country)
