"""Emergency numbers for every country: the model of content/emergency_numbers.yaml, its
checks, and the cross-check against libphonenumber.

The file is a verified table, not a generated one: each entry says what a person there
should call, the address of the page someone read that states it, and the day they read
it. An entry nobody could confirm says so (`verified: "no"`) and gives 112 and 911, which
mobile phones treat as emergency numbers everywhere, rather than a guess.

libphonenumber (the `phonenumbers` package) knows which short numbers a phone may dial as an
emergency number in each region. That is not what a service answers (it listed Sweden's
90000, retired in 1996), so it is a cross-check, not the authority: a verified number it
does not list is a difference for someone to look at (`review_differences`), not a
failure.

Nothing here reads files.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cache

from bot.content.helplines import (
    Country,
    LineKind,
    freshness_problem,
    operator_note_problem,
    phone_problem,
)
from bot.core.problems import Path, Problem
from bot.geo.tables import country_names

_FIELDS = ("call", "describe", "source", "checked", "verified", "note", "review")
_REQUIRED = ("call", "source", "checked", "verified")
_SEPARATOR = "; "
MAX_NUMBERS = 3
# What every mobile phone dials as an emergency call, SIM or not (3GPP TS 22.101 §10.1.1):
# shown where no national number was confirmed.
MOBILE_NUMBERS = ("112", "911")
_ADDRESS = re.compile(r"https?://[^\s/]+\.[^\s]+")


class Purpose(StrEnum):
    """What a number is for, in the words the file uses; the reply says them in the
    person's language (crisis_help.for_*)."""

    ANY = "any emergency"
    POLICE = "police"
    AMBULANCE = "ambulance"
    FIRE = "fire"
    POLICE_AMBULANCE = "police and ambulance"
    POLICE_FIRE = "police and fire"
    FIRE_AMBULANCE = "fire and ambulance"


@dataclass(frozen=True)
class Emergency:
    code: str
    numbers: tuple[str, ...]  # what to call, main first
    source: str  # the address of the page that states them
    checked: datetime.date
    verified: bool = True  # False: 112 and 911, with the line that says why
    purposes: tuple[tuple[str, Purpose], ...] = ()  # (number, what it is for), in call order
    note: str | None = None
    # `review`, the operator's field, is deliberately not here: the bot cannot show it.


def iso_codes() -> frozenset[str]:
    """Every ISO 3166-1 alpha-2 code (IANA's iso3166.tab, which ships with tzdata)."""
    return frozenset(country_names())


@cache
def _has_metadata(region: str) -> bool:
    # libphonenumber is for `content check` (and the cold build of content): a start from
    # the compiled content never loads it (issue 25).
    from phonenumbers.phonemetadata import PhoneMetadata  # noqa: PLC0415

    metadata = PhoneMetadata.short_metadata_for_region(region)
    return metadata is not None and metadata.emergency is not None


def known_to_libphonenumber(number: str, region: str) -> bool | None:
    """Whether libphonenumber lists `number` as an emergency number in `region`; None when
    it holds no emergency data for the region."""
    if not _has_metadata(region):
        return None
    from phonenumbers import shortnumberinfo  # noqa: PLC0415

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


def _verified(raw: Mapping[str, object], path: Path) -> tuple[bool | None, list[Problem]]:
    value = raw.get("verified")
    if isinstance(value, bool):
        word = "yes" if value else "no"
        return None, [
            Problem(
                (*path, "verified"),
                f'write "{word}" in quotes: YAML reads a bare {word} as a boolean',
            )
        ]
    if value == "yes":
        return True, []
    if value == "no":
        return False, []
    return None, [Problem((*path, "verified"), 'must be "yes" or "no"')]


def _validate_call(code: str, call: object, verified: bool | None, path: Path) -> list[Problem]:
    if not isinstance(call, str) or not call.strip():
        return [Problem((*path, "call"), 'write the numbers as text: "112; 110"')]
    reason = phone_problem(call)
    if reason:
        return [Problem((*path, "call"), reason)]
    numbers = call.split(_SEPARATOR)
    problems: list[Problem] = []
    if len(numbers) > MAX_NUMBERS or len(set(numbers)) != len(numbers):
        problems.append(
            Problem((*path, "call"), f"at most {MAX_NUMBERS} different numbers, main first")
        )
    if verified is False and tuple(numbers) != MOBILE_NUMBERS:
        problems.append(
            Problem(
                (*path, "call"),
                'an entry nobody confirmed shows "112; 911", never a number of its own; '
                "put a lead in `review`",
            )
        )
    return problems


def _validate_describe(
    raw: object, call: object, verified: bool | None, path: Path
) -> list[Problem]:
    here: Path = (*path, "describe")
    if verified is False:
        return [Problem(here, "an unconfirmed entry describes nothing")]
    if not isinstance(raw, Mapping) or not raw:
        return [Problem(here, 'map each number to what it is for: {"133": police}')]
    numbers = call.split(_SEPARATOR) if isinstance(call, str) else []
    problems: list[Problem] = []
    known = ", ".join(s.value for s in Purpose)
    for number, service in raw.items():
        if str(number) not in numbers:
            problems.append(Problem((*here, str(number)), "not one of the numbers in `call`"))
        if service not in {s.value for s in Purpose}:
            problems.append(Problem((*here, str(number)), f"say what it is for: {known}"))
    missing = [n for n in numbers if n not in {str(k) for k in raw}]
    if missing:
        problems.append(Problem(here, f"say what {', '.join(missing)} is for too"))
    return problems


def _validate_entry(code: str, raw: object) -> list[Problem]:
    path: Path = ("countries", code)
    if not isinstance(raw, Mapping):
        return [Problem(path, "an entry is a mapping with call, source, checked and verified")]
    problems = [Problem(path, f"missing {key!r}") for key in _REQUIRED if key not in raw]
    problems += [
        Problem((*path, str(key)), f"unknown field; use {', '.join(_FIELDS)}")
        for key in raw
        if key not in _FIELDS
    ]
    verified: bool | None = None
    if "verified" in raw:
        verified, found = _verified(raw, path)
        problems += found
    if "call" in raw:
        problems += _validate_call(code, raw["call"], verified, path)
    if "describe" in raw:
        problems += _validate_describe(raw["describe"], raw.get("call"), verified, path)
    source = raw.get("source")
    if "source" in raw and (not isinstance(source, str) or not _ADDRESS.fullmatch(source)):
        problems.append(
            Problem((*path, "source"), "the address of the page that states the numbers")
        )
    if "checked" in raw and _date(raw["checked"]) is None:
        problems.append(Problem((*path, "checked"), "must be a real date written YYYY-MM-DD"))
    for key in ("note", "review"):
        value = raw.get(key)
        if key in raw and (not isinstance(value, str) or not value.strip()):
            problems.append(Problem((*path, key), "must be non-empty text"))
    note = raw.get("note")
    if isinstance(note, str) and (reason := operator_note_problem(note)):
        problems.append(Problem((*path, "note"), reason))
    return problems


def validate_emergency(raw: object, codes: Iterable[str] | None = None) -> list[Problem]:
    """Every problem in the emergency-numbers document. `codes` are the countries that must
    be there (default: all of ISO 3166-1)."""
    if not isinstance(raw, Mapping) or set(raw) != {"countries"}:
        return [Problem((), "the file is one mapping, `countries:`, from code to entry")]
    countries = raw["countries"]
    if not isinstance(countries, Mapping):
        return [Problem(("countries",), "needs a mapping from country code to entry")]
    problems: list[Problem] = []
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
        problems.extend(_validate_entry(str(code), entry))
    return problems


def stale_entries(raw: object, today: datetime.date) -> list[Problem]:
    """Entries read more than twelve months before `today` (or dated after it). Assumes
    `validate_emergency(raw)` returned []."""
    if not isinstance(raw, Mapping):
        raise TypeError("run validate_emergency first")
    problems: list[Problem] = []
    for code, entry in raw["countries"].items():
        checked = _date(entry["checked"])
        reason = freshness_problem(checked, today) if checked else "no checked date"
        if reason:
            problems.append(Problem(("countries", code, "checked"), reason))
    return problems


def parse_emergency(raw: object) -> dict[str, Emergency]:
    """By country code. Assumes `validate_emergency(raw)` returned []."""
    if not isinstance(raw, Mapping):
        raise TypeError("run validate_emergency first")
    book: dict[str, Emergency] = {}
    for code, entry in raw["countries"].items():
        checked = _date(entry["checked"])
        if checked is None:
            raise TypeError(f"{code}: no checked date (run validate_emergency first)")
        note = entry.get("note")
        numbers = tuple(entry["call"].split(_SEPARATOR))
        describe = {str(k): Purpose(v) for k, v in (entry.get("describe") or {}).items()}
        book[code] = Emergency(
            code=code,
            numbers=numbers,
            source=entry["source"].strip(),
            checked=checked,
            verified=entry["verified"] == "yes",
            purposes=tuple((n, describe[n]) for n in numbers if n in describe),
            note=note.strip() if isinstance(note, str) else None,
        )
    return book


def review_differences(emergency: Mapping[str, Emergency]) -> list[Problem]:
    """Verified numbers libphonenumber does not list for their region: for someone to look
    at again (an upstream change, or a local override with its source), never a failure."""
    found: list[Problem] = []
    for code, entry in sorted(emergency.items()):
        if not entry.verified:
            continue
        for number in entry.numbers:
            if known_to_libphonenumber(number, code) is False:
                found.append(
                    Problem(
                        ("countries", code, "call"),
                        f"libphonenumber does not list {number} as an emergency number in "
                        f"{code}; the entry's source says it is (look again)",
                    )
                )
    return found


def _helpline_emergency_lines(
    helplines: Mapping[str, Country], emergency: Mapping[str, Emergency]
) -> Iterable[tuple[str, Path, Emergency, tuple[str, ...]]]:
    for code, country in helplines.items():
        listed = emergency.get(code)
        if listed is None:
            continue  # INTL and the parts of a country (GB-SCT)
        for index, line in enumerate(country.lines):
            if line.kind == LineKind.EMERGENCY:
                yield code, (code, "lines", index, "phone"), listed, line.numbers


def disagreements(
    helplines: Mapping[str, Country], emergency: Mapping[str, Emergency]
) -> list[Problem]:
    """Where content/helplines.yaml's emergency line and this list part ways: the list's
    main number must be on the helpline entry's emergency line, and a country we hold
    lines for must have a confirmed entry here."""
    problems: list[Problem] = []
    for code, path, listed, numbers in _helpline_emergency_lines(helplines, emergency):
        if not listed.verified:
            problems.append(
                Problem(path, f"{code} is unconfirmed in emergency_numbers.yaml; confirm it there")
            )
        elif listed.numbers[0] not in numbers:
            problems.append(
                Problem(
                    path,
                    f"{listed.numbers[0]} is {code}'s emergency number in "
                    "emergency_numbers.yaml; list it here too",
                )
            )
    return problems


def helpline_differences(
    helplines: Mapping[str, Country], emergency: Mapping[str, Emergency]
) -> list[Problem]:
    """The list's other numbers a helpline entry's emergency line leaves out (Spain's 091
    police beside 112): worth a look, not a failure, since a helpline line may keep to
    the number people know."""
    found: list[Problem] = []
    for code, path, listed, numbers in _helpline_emergency_lines(helplines, emergency):
        missing = [n for n in listed.numbers[1:] if n not in numbers]
        if listed.verified and missing:
            found.append(
                Problem(
                    path,
                    f"emergency_numbers.yaml also gives {', '.join(missing)} for {code}; "
                    "add them here if a person there needs them",
                )
            )
    return found
