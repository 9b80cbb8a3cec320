"""Helplines: the typed model of content/helplines.yaml, its checks, and the per-country lookup.

A helpline entry is only useful if it is right, so the checks are strict about provenance
(every entry names its source and the date it was checked) and about the shape of what a
person will dial. `validate_helplines` reports every problem in one pass, each with a path
into the document; `parse_helplines` builds the frozen model and assumes the checks passed.
Nothing here reads files.

Phone numbers. A `phone` value is one or more numbers joined by "; " or " or " (the two
separators the source table uses: "110; 112", "14416 or 1-800-891-4416"). Each number is an
optional leading "+", then groups of digits separated by a single space or hyphen
("116 123", "1-800-799-7233", "0800 111 0 111"), with 2 to 15 digits in all (2 for France's
"17", 15 being the E.164 maximum). Anything else (letters, brackets, extensions, two spaces)
is a problem: the string is shown as it is, and people copy it into a dialler.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from urllib.parse import urlsplit

from bot.core.languages import LANGUAGES
from bot.core.problems import Path, Problem

INTL = "INTL"


class LineKind(StrEnum):
    EMERGENCY = "emergency"
    CRISIS = "crisis"
    DOMESTIC_ABUSE = "domestic_abuse"
    SEXUAL_VIOLENCE = "sexual_violence"
    CHILD = "child"  # child protection and young people's lines
    OTHER = "other"


# Lines are listed most urgent first so a short reply can take the head of the list.
_KIND_ORDER = {kind: rank for rank, kind in enumerate(LineKind)}

_VERIFIED = ("yes", "partial")
_REQUIRED = ("kind", "name", "source", "checked", "verified")
_TEXT_FIELDS = (
    "name",
    "about",
    "phone",
    "text",
    "whatsapp",
    "chat",
    "url",
    "hours",
    "notes",
    "silent_option",
    "source",
)
_ALLOWED = frozenset((*_REQUIRED, *_TEXT_FIELDS, "free"))
_CONTACT_FIELDS = ("phone", "text", "whatsapp", "chat", "url")
_DIALLED_FIELDS = ("phone", "whatsapp")
_URL_FIELDS = ("url", "chat")

# The languages people may type a country's name in; a part of a country (GB-SCT) names
# itself in each of them, since CLDR names countries but not their nations.

# Fields people carry over from other tables; a pointer beats "unknown field".
_FIELD_HINTS = {"sms": "text", "website": "url", "tel": "phone", "webchat": "chat"}

# Codes that look right but are not ISO 3166-1 alpha-2.
_CODE_HINTS = {"UK": "GB", "EL": "GR"}

_COUNTRY_CODE = re.compile(r"[A-Z]{2}")
_PART_CODE = re.compile(r"([A-Z]{2})-[A-Z0-9]{1,3}")  # ISO 3166-2, e.g. GB-SCT
_PHONE_SEPARATOR = re.compile(r"; | or ")
# Groups need a separator between them, so there is exactly one way to match: no backtracking.
_PHONE_NUMBER = re.compile(r"\+?[0-9]+(?:[ -][0-9]+)*")
_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
PHONE_MIN_DIGITS = 2
PHONE_MAX_DIGITS = 15


@dataclass(frozen=True)
class Line:
    kind: LineKind
    name: str
    phone: str | None
    text: str | None
    url: str | None
    hours: str | None
    notes: str | None
    silent_option: str | None
    source: str
    checked: datetime.date
    verified: str
    whatsapp: str | None = None
    chat: str | None = None
    free: bool | None = None
    about: str | None = None  # who or what it is for, in our words: "young people"

    @property
    def numbers(self) -> tuple[str, ...]:
        """Each number in `phone`, as dialled ("110; 112" gives two)."""
        return tuple(_PHONE_SEPARATOR.split(self.phone)) if self.phone else ()


@dataclass(frozen=True)
class Country:
    code: str
    name: str
    lines: tuple[Line, ...]
    part_of: str | None = None  # GB for GB-SCT: its lines fill the kinds this one lacks
    names: Mapping[str, str] = field(default_factory=dict)  # by language, parts only


def phone_problem(phone: str) -> str | None:
    """Why a `phone` value is not dialable as written, or None when it is."""
    for number in _PHONE_SEPARATOR.split(phone):
        if not _PHONE_NUMBER.fullmatch(number):
            return (
                f"{number!r} is not a phone number: use digits in groups separated by one "
                'space or hyphen, an optional leading "+", and join numbers with "; " or " or "'
            )
        digits = sum(c in "0123456789" for c in number)
        if not PHONE_MIN_DIGITS <= digits <= PHONE_MAX_DIGITS:
            return (
                f"{number!r} has {digits} digits; a number has "
                f"{PHONE_MIN_DIGITS} to {PHONE_MAX_DIGITS}"
            )
    return None


def _checked_date(value: object) -> datetime.date | None:
    # YAML turns an unquoted 2026-11-29 into a date and a quoted one into a string; both are
    # fine. A datetime is a date subclass, but a time of day here means a typo.
    if isinstance(value, datetime.datetime):
        return None
    if isinstance(value, datetime.date):
        return value
    if isinstance(value, str) and _ISO_DATE.fullmatch(value.strip()):
        try:
            return datetime.date.fromisoformat(value.strip())
        except ValueError:
            return None
    return None


def _validate_line(raw: object, path: Path) -> tuple[list[Problem], LineKind | None]:
    if not isinstance(raw, Mapping):
        return [Problem(path, "a line must be a mapping of fields")], None
    problems: list[Problem] = []

    for key in raw:
        if key not in _ALLOWED:
            hint = _FIELD_HINTS.get(str(key))
            advice = f"; did you mean {hint!r}?" if hint else ""
            problems.append(Problem((*path, str(key)), f"unknown field{advice}"))
    for key in _REQUIRED:
        if key not in raw:
            problems.append(Problem(path, f"missing {key!r}"))

    for key in _TEXT_FIELDS:
        if key not in raw:
            continue
        value = raw[key]
        if key == "phone" and isinstance(value, int) and not isinstance(value, bool):
            problems.append(
                Problem((*path, key), 'quote phone numbers ("000"): YAML reads them as integers')
            )
        elif not isinstance(value, str) or not value.strip():
            problems.append(Problem((*path, key), "must be non-empty text"))

    kind: LineKind | None = None
    if "kind" in raw:
        try:
            kind = LineKind(raw["kind"])
        except ValueError:
            known = ", ".join(k.value for k in LineKind)
            problems.append(Problem((*path, "kind"), f"unknown kind; use one of: {known}"))

    if not any(key in raw for key in _CONTACT_FIELDS):
        problems.append(Problem(path, "needs at least one of phone, text, whatsapp, chat or url"))

    for key in _DIALLED_FIELDS:
        phone = raw.get(key)
        if isinstance(phone, str) and phone.strip():
            reason = phone_problem(phone)
            if reason:
                problems.append(Problem((*path, key), reason))

    for key in _URL_FIELDS:
        url = raw.get(key)
        if isinstance(url, str) and url.strip():
            parts = urlsplit(url)
            # The link opens on a phone that may be watched; plain http shows the page to
            # the network as well.
            if parts.scheme != "https" or not parts.netloc or any(c.isspace() for c in url):
                problems.append(Problem((*path, key), "must be a full https:// address"))

    if "free" in raw and not isinstance(raw["free"], bool):
        problems.append(Problem((*path, "free"), "write true or false"))

    if "checked" in raw and _checked_date(raw["checked"]) is None:
        problems.append(
            Problem((*path, "checked"), "must be a real date written YYYY-MM-DD (e.g. 2026-11-29)")
        )

    if "verified" in raw:
        verified = raw["verified"]
        if verified is True:
            problems.append(
                Problem((*path, "verified"), 'write "yes" in quotes: YAML reads a bare yes as true')
            )
        elif verified is False or (isinstance(verified, str) and verified.lower() == "no"):
            problems.append(
                Problem((*path, "verified"), "unverified lines must not ship: find a source first")
            )
        elif verified not in _VERIFIED:
            problems.append(Problem((*path, "verified"), 'must be "yes" or "partial"'))

    return problems, kind


def _validate_names(code: str, raw: object) -> list[Problem]:
    path: Path = (code, "names")
    if not isinstance(raw, Mapping):
        return [Problem(path, "names maps a language (en, es, …) to the name in it")]
    problems: list[Problem] = []
    for language in LANGUAGES:
        value = raw.get(language)
        if not isinstance(value, str) or not value.strip():
            problems.append(Problem(path, f"needs the name in {language!r}"))
    for language in raw:
        if language not in LANGUAGES:
            problems.append(Problem((*path, str(language)), "not a language people type here"))
    return problems


def _validate_country(code: str, raw: object, part_of: str | None) -> list[Problem]:
    if not isinstance(raw, Mapping):
        return [Problem((code,), "a country must be a mapping with name and lines")]
    problems: list[Problem] = []
    allowed = ("name", "lines", "part_of", "names") if part_of else ("name", "lines")
    for key in raw:
        if key not in allowed:
            problems.append(Problem((code, str(key)), f"unknown field; use {', '.join(allowed)}"))
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.append(Problem((code, "name"), "needs the country's name in English"))
    if part_of:
        if raw.get("part_of") != part_of:
            problems.append(Problem((code, "part_of"), f"write part_of: {part_of}"))
        problems.extend(_validate_names(code, raw.get("names")))

    lines = raw.get("lines")
    if not isinstance(lines, list) or not lines:
        problems.append(Problem((code, "lines"), "needs a non-empty list of lines"))
        return problems

    kinds: list[LineKind] = []
    for index, line in enumerate(lines):
        path: Path = (code, "lines", index)
        line_problems, kind = _validate_line(line, path)
        problems.extend(line_problems)
        if kind is None:
            continue
        if kinds and _KIND_ORDER[kind] < _KIND_ORDER[kinds[-1]]:
            order = ", ".join(k.value for k in LineKind)
            problems.append(Problem((*path, "kind"), f"lines go in the order {order}"))
        kinds.append(kind)
    # A part of a country dials its country's emergency number: it inherits that line.
    if LineKind.EMERGENCY not in kinds and not part_of:
        problems.append(Problem((code, "lines"), "every country needs an emergency line"))
    return problems


def validate_helplines(raw: object) -> list[Problem]:
    """Every problem in a parsed helplines document; [] means `parse_helplines` is safe."""
    if not isinstance(raw, Mapping):
        return [Problem((), "the file must be a mapping from country code to country")]
    problems: list[Problem] = []
    for code, country in raw.items():
        if not isinstance(code, str):
            problems.append(Problem((str(code),), "country codes are text, e.g. GB"))
            continue
        part = _PART_CODE.fullmatch(code)
        parent = part.group(1) if part else None
        if code in _CODE_HINTS:
            problems.append(
                Problem((code,), f"not an ISO 3166-1 alpha-2 code; use {_CODE_HINTS[code]}")
            )
        elif parent is not None and parent not in raw:
            problems.append(Problem((code,), f"a part of {parent}, which has no entry"))
        elif code != INTL and parent is None and not _COUNTRY_CODE.fullmatch(code):
            problems.append(
                Problem(
                    (code,),
                    f"use a two-letter ISO 3166-1 code in capitals (or GB-SCT for a part), "
                    f"or {INTL}",
                )
            )
        problems.extend(_validate_country(code, country, parent))
    if INTL not in raw:
        problems.append(Problem((), f"needs an {INTL} entry: it is the fallback for everyone else"))
    return problems


def _optional(raw: Mapping[str, object], key: str) -> str | None:
    value = raw.get(key)
    return value.strip() if isinstance(value, str) else None


def _required(raw: Mapping[str, object], key: str) -> str:
    value = raw[key]
    if not isinstance(value, str):
        raise TypeError(f"{key} must be text; run validate_helplines first")
    return value.strip()


def _parse_line(raw: Mapping[str, object]) -> Line:
    checked = _checked_date(raw["checked"])
    if checked is None:
        raise ValueError("checked must be a date; run validate_helplines first")
    free = raw.get("free")
    return Line(
        kind=LineKind(_required(raw, "kind")),
        name=_required(raw, "name"),
        phone=_optional(raw, "phone"),
        text=_optional(raw, "text"),
        url=_optional(raw, "url"),
        hours=_optional(raw, "hours"),
        notes=_optional(raw, "notes"),
        silent_option=_optional(raw, "silent_option"),
        source=_required(raw, "source"),
        checked=checked,
        verified=_required(raw, "verified"),
        whatsapp=_optional(raw, "whatsapp"),
        chat=_optional(raw, "chat"),
        free=free if isinstance(free, bool) else None,
        about=_optional(raw, "about"),
    )


def parse_helplines(raw: object) -> dict[str, Country]:
    """The helpline book, by country code. Assumes `validate_helplines(raw)` returned []."""
    if not isinstance(raw, Mapping):
        raise TypeError("helplines must be a mapping; run validate_helplines first")
    book: dict[str, Country] = {}
    for code, country in raw.items():
        names = country.get("names") or {}
        book[code] = Country(
            code=code,
            name=country["name"].strip(),
            lines=tuple(_parse_line(line) for line in country["lines"]),
            part_of=country.get("part_of"),
            names={str(k): str(v).strip() for k, v in names.items()},
        )
    return book


def parts_of(book: Mapping[str, Country], code: str) -> list[Country]:
    """The parts of a country that have lines of their own (GB: England, Scotland, …)."""
    return [entry for entry in book.values() if entry.part_of == code]


def entry_lines(book: Mapping[str, Country], code: str) -> list[Line]:
    """A country's lines; for a part of one, its own lines, then its country's lines of every
    kind it does not list itself (Scotland: its own abuse line, the UK's 999 and Samaritans).
    In kind order, file order within a kind."""
    entry = book.get(code)
    if entry is None:
        return []
    own = list(entry.lines)
    parent = book.get(entry.part_of) if entry.part_of else None
    if parent is not None:
        mine = {line.kind for line in own}
        own += [line for line in parent.lines if line.kind not in mine]
    # sorted() is stable, so lines of one kind keep the file's order.
    return sorted(own, key=lambda line: _KIND_ORDER[line.kind])


def lines_for(book: Mapping[str, Country], country: str | None, kinds: Sequence[str]) -> list[Line]:
    """The lines of the given kinds for a country, in the order of `kinds`, then file order.

    Falls back to INTL when the country is missing, not in the book, or has no line of those
    kinds: whoever asks gets something to call rather than an empty reply.
    """
    wanted = (kinds,) if isinstance(kinds, str) else tuple(kinds)
    rank = {kind: position for position, kind in enumerate(wanted)}

    def pick(code: str) -> list[Line]:
        found = [line for line in entry_lines(book, code) if line.kind in rank]
        return sorted(found, key=lambda line: rank[line.kind])

    code = country.strip().upper() if country else None
    found = pick(code) if code else []
    if found or code == INTL:
        return found
    return pick(INTL)
