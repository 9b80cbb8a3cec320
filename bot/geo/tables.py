"""Countries and time zones as the IANA tables have them (tzdata ships them).

zone.tab maps each country to its zones (with a short description), iso3166.tab names the
countries; both are maintained upstream, so we keep no copy of our own.
"""

from __future__ import annotations

import importlib.resources
import unicodedata
import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import cache


@dataclass(frozen=True)
class Zone:
    name: str  # IANA, e.g. "America/Chicago"
    description: str  # zone.tab's comment, e.g. "Central (most areas)"

    @property
    def city(self) -> str:
        return self.name.rsplit("/", 1)[-1].replace("_", " ")


def _table(name: str) -> list[list[str]]:
    text = importlib.resources.files("tzdata.zoneinfo").joinpath(name).read_text("utf-8")
    return [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]


@cache
def country_names() -> dict[str, str]:
    return {row[0]: row[1] for row in _table("iso3166.tab")}


@cache
def zones_by_country() -> dict[str, tuple[Zone, ...]]:
    zones: dict[str, list[Zone]] = {}
    for row in _table("zone.tab"):
        zones.setdefault(row[0], []).append(Zone(row[2], row[3] if len(row) > 3 else ""))
    return {code: tuple(found) for code, found in zones.items()}


def fold(text: str) -> str:
    """Lower case, no accents, single spaces: for matching what people type."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    cleaned = "".join(c if c.isalnum() else " " for c in stripped.casefold())
    return " ".join(cleaned.split())


def find_country(text: str, aliases: Mapping[str, str]) -> str | None:
    wanted = fold(text)
    if not wanted:
        return None
    names = country_names()
    if len(wanted) == 2 and wanted.upper() in names:
        return wanted.upper()
    alias = aliases.get(wanted)
    if alias is not None:
        return alias
    for code, name in names.items():
        if fold(name) == wanted:
            return code
    return None


def zones_for(country: str) -> tuple[Zone, ...]:
    return zones_by_country().get(country, ())


def _behaviour(zone: Zone, year: int) -> tuple[object, object]:
    tz = zoneinfo.ZoneInfo(zone.name)
    january = datetime(year, 1, 15, 12, tzinfo=tz).utcoffset()
    july = datetime(year, 7, 15, 12, tzinfo=tz).utcoffset()
    return january, july


def clock_groups(country: str, year: int) -> list[list[Zone]]:
    """The country's zones grouped by the clock they keep in `year`, in zone.tab's order."""
    groups: dict[tuple[object, object], list[Zone]] = {}
    for zone in zones_for(country):
        groups.setdefault(_behaviour(zone, year), []).append(zone)
    return list(groups.values())


def same_clock(country: str, zone: str, year: int) -> tuple[str, ...]:
    """The country's zones that keep the same time as `zone` all `year`, itself included."""
    for group in clock_groups(country, year):
        names = tuple(z.name for z in group)
        if zone in names:
            return names
    return (zone,)
