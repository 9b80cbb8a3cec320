"""Emergency numbers for every country: the model of content/emergency_numbers.yaml, its
checks, and the cross-check against libphonenumber.

The file is curated (the number people know goes first), but it need not go unchecked:
Google's libphonenumber, through the `phonenumbers` package, knows which short numbers are
emergency numbers in each region, so every number here is confirmed against it at each
content check. A region libphonenumber holds no emergency data for (Antarctica, Pitcairn…)
is taken as written, with its own source.

Nothing here reads files.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache

from phonenumbers import shortnumberinfo
from phonenumbers.phonemetadata import PhoneMetadata

from bot.content.helplines import Country, LineKind, phone_problem
from bot.core.problems import Path, Problem
from bot.geo.tables import country_names

_FIELDS = ("call", "source", "checked", "note")
_REQUIRED = ("call", "source", "checked")
_SEPARATOR = "; "


@dataclass(frozen=True)
class Emergency:
    code: str
    numbers: tuple[str, ...]  # the number people know first
    source: str
    checked: datetime.date
    note: str | None = None


def iso_codes() -> frozenset[str]:
    """Every ISO 3166-1 alpha-2 code (IANA's iso3166.tab, which ships with tzdata)."""
    return frozenset(country_names())


@cache
def _has_metadata(region: str) -> bool:
    metadata = PhoneMetadata.short_metadata_for_region(region)
    return metadata is not None and metadata.emergency is not None


def known_to_libphonenumber(number: str, region: str) -> bool | None:
    """Whether libphonenumber lists `number` as an emergency number in `region`; None when
    it holds no emergency data for the region."""
    if not _has_metadata(region):
        return None
    return bool(shortnumberinfo.is_emergency_number(number.replace(" ", ""), region))


def _date(value: object) -> datetime.date | None:
    if isinstance(value, datetime.datetime):
        return None
    if isinstance(value, datetime.date):
        return value
    if isinstance(value, str):
        try:
            return datetime.date.fromisoformat(value.strip())
        except ValueError:
            return None
    return None


def _validate_entry(code: str, raw: object, sources: Mapping[str, object]) -> list[Problem]:
    path: Path = ("countries", code)
    if not isinstance(raw, Mapping):
        return [Problem(path, "an entry is a mapping with call, source and checked")]
    problems = [Problem(path, f"missing {key!r}") for key in _REQUIRED if key not in raw]
    problems += [
        Problem((*path, str(key)), f"unknown field; use {', '.join(_FIELDS)}")
        for key in raw
        if key not in _FIELDS
    ]
    call = raw.get("call")
    if "call" in raw:
        if not isinstance(call, str) or not call.strip():
            problems.append(Problem((*path, "call"), 'write the numbers as text: "112; 110"'))
        else:
            reason = phone_problem(call)
            if reason:
                problems.append(Problem((*path, "call"), reason))
            else:
                for number in call.split(_SEPARATOR):
                    if known_to_libphonenumber(number, code) is False:
                        problems.append(
                            Problem(
                                (*path, "call"),
                                f"libphonenumber does not list {number} as an emergency "
                                f"number in {code}; check it again",
                            )
                        )
    source = raw.get("source")
    if "source" in raw and (not isinstance(source, str) or source not in sources):
        problems.append(Problem((*path, "source"), "must be one of the keys under `sources`"))
    if "checked" in raw and _date(raw["checked"]) is None:
        problems.append(Problem((*path, "checked"), "must be a real date written YYYY-MM-DD"))
    note = raw.get("note")
    if "note" in raw and (not isinstance(note, str) or not note.strip()):
        problems.append(Problem((*path, "note"), "must be non-empty text"))
    return problems


def validate_emergency(raw: object, codes: Iterable[str] | None = None) -> list[Problem]:
    """Every problem in the emergency-numbers document. `codes` are the countries that must
    be there (default: all of ISO 3166-1)."""
    if not isinstance(raw, Mapping):
        return [Problem((), "the file must be a mapping with sources and countries")]
    problems: list[Problem] = []
    sources = raw.get("sources")
    if not isinstance(sources, Mapping) or not sources:
        problems.append(Problem(("sources",), "needs a mapping of source keys to citations"))
        sources = {}
    else:
        for key, value in sources.items():
            if not isinstance(value, str) or not value.strip():
                problems.append(Problem(("sources", str(key)), "cite the source as text"))
    countries = raw.get("countries")
    if not isinstance(countries, Mapping):
        return [*problems, Problem(("countries",), "needs a mapping from country code to entry")]
    wanted = frozenset(codes) if codes is not None else iso_codes()
    for code in sorted(wanted - {c for c in countries if isinstance(c, str)}):
        problems.append(Problem(("countries",), f"{code} has no emergency number"))
    for code, entry in countries.items():
        if isinstance(code, bool):
            problems.append(
                Problem(("countries", str(code)), 'quote "NO": YAML reads a bare NO as false')
            )
            continue
        if str(code) not in wanted:
            problems.append(Problem(("countries", str(code)), "not an ISO 3166-1 code"))
            continue
        problems.extend(_validate_entry(str(code), entry, sources))
    return problems


def parse_emergency(raw: object) -> dict[str, Emergency]:
    """By country code. Assumes `validate_emergency(raw)` returned []."""
    if not isinstance(raw, Mapping):
        raise TypeError("run validate_emergency first")
    sources: Mapping[str, str] = raw["sources"]
    book: dict[str, Emergency] = {}
    for code, entry in raw["countries"].items():
        checked = _date(entry["checked"])
        if checked is None:
            raise TypeError(f"{code}: no checked date (run validate_emergency first)")
        note = entry.get("note")
        book[code] = Emergency(
            code=code,
            numbers=tuple(entry["call"].split(_SEPARATOR)),
            source=sources[entry["source"]],
            checked=checked,
            note=note.strip() if isinstance(note, str) else None,
        )
    return book


def disagreements(
    helplines: Mapping[str, Country], emergency: Mapping[str, Emergency]
) -> list[Problem]:
    """Where content/helplines.yaml's emergency line and this list part ways: the number
    people know must be among the helpline entry's, and each of those an emergency number."""
    problems: list[Problem] = []
    for code, country in helplines.items():
        listed = emergency.get(code)
        if listed is None:
            continue  # INTL and the parts of a country (GB-SCT)
        for index, line in enumerate(country.lines):
            if line.kind != LineKind.EMERGENCY:
                continue
            path: Path = (code, "lines", index, "phone")
            if listed.numbers[0] not in line.numbers:
                problems.append(
                    Problem(
                        path,
                        f"{listed.numbers[0]} is {code}'s emergency number in "
                        "emergency_numbers.yaml; list it here too",
                    )
                )
            for number in line.numbers:
                if known_to_libphonenumber(number, code) is False:
                    problems.append(
                        Problem(path, f"libphonenumber does not list {number} for {code}")
                    )
    return problems
