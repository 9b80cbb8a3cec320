"""When something happened, typed in words: "12 March 21:30", "gestern 14h", "3/11",
"samedi", "2026-03-12 9pm". Pure; the words come from CLDR through Babel (month and
weekday names, "today" and "yesterday", in every language the bot speaks), so no list of
names is kept here.

What is understood, in any order within the message:
- a date: ISO (2026-03-12); day and month in numbers (12.3., 12/03/2026; month first for
  people in the United States); a day and a month name, full or short ("12 mars",
  "March 12th", "12 de marzo"), with or without a year; "today", "yesterday" or "the day
  before yesterday"; a weekday (the most recent one, today excluded);
- a time: 21:30, 21.30, 21h30, 21h, 9pm, 9 pm.

A date without a year is the most recent one that is not in the future. A time alone
means today. Nothing found: None (the caller asks again, kindly).

Why not dateparser: it would understand more phrasings, but it brings its own regex
engine and timezone packages and about 40 MB of language data for 200 languages; Babel is
already here for the time-zone question, and what a person types into a date step is short.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Protocol

from babel import Locale
from babel.dates import format_time

from bot.core import local_format

_TIME = re.compile(
    r"(?<![0-9])([01]?[0-9]|2[0-3])(?:[:.h]([0-5][0-9])|h|\s?(am|pm|a\.m\.|p\.m\.))(?![0-9])"
)
_ISO = re.compile(r"(?<![0-9])([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?![0-9])")
_NUMERIC = re.compile(r"(?<![0-9:])([0-9]{1,2})[./]([0-9]{1,2})(?:[./]([0-9]{2,4}))?\.?(?![0-9:])")
_YEAR = re.compile(r"(?<![0-9])((?:19|20)[0-9]{2})(?![0-9])")
_DAY_NUMBER = re.compile(r"(?<![0-9])([0-9]{1,2})(?:st|nd|rd|th|er|e|º|°|\.)?(?![0-9])")
_MONTH_FIRST = frozenset({"US"})


@dataclass(frozen=True)
class Typed:
    day: dt.date
    time: dt.time | None  # None: only the day was given


def _fold(text: str) -> str:
    """Lowercase without accents: "März" and "marz", "février" and "fevrier" meet."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@dataclass(frozen=True)
class _Words:
    months: dict[str, int]  # folded name or abbreviation -> 1..12
    weekdays: dict[str, int]  # folded name -> 0 (Monday) .. 6
    relative: dict[str, int]  # "yesterday" -> -1, "today" -> 0


@cache
def _words(languages: tuple[str, ...]) -> _Words:
    months: dict[str, int] = {}
    weekdays: dict[str, int] = {}
    relative: dict[str, int] = {}
    for language in languages:
        locale = Locale.parse(language)
        for context in ("format", "stand-alone"):
            for width in ("wide", "abbreviated"):
                for number, name in locale.months[context][width].items():
                    folded = _fold(name).rstrip(".")
                    if len(folded) >= 3:
                        months.setdefault(folded, int(number))
                for number, name in locale.days[context][width].items():
                    folded = _fold(name).rstrip(".")
                    if len(folded) >= 3:
                        weekdays.setdefault(folded, int(number))
        day_fields = locale._data["date_fields"]["day"]["relative"]
        for offset, name in dict(day_fields).items():
            if int(offset) <= 0:
                relative.setdefault(_fold(str(name)), int(offset))
    return _Words(months, weekdays, relative)


def _most_recent(month: int, day: int, today: dt.date) -> dt.date | None:
    for year in (today.year, today.year - 1):
        try:
            candidate = dt.date(year, month, day)
        except ValueError:
            continue
        if candidate <= today:
            return candidate
    return None


def _date(year: int | None, month: int, day: int, today: dt.date) -> dt.date | None:
    if year is None:
        return _most_recent(month, day, today)
    if year < 100:
        year += 2000
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def _time(found: re.Match[str]) -> dt.time:
    hour = int(found.group(1))
    minute = int(found.group(2) or 0)
    suffix = (found.group(3) or "").replace(".", "")
    if suffix == "pm" and hour < 12:
        hour += 12
    elif suffix == "am" and hour == 12:
        hour = 0
    return dt.time(hour, minute)


def parse_when(
    text: str, languages: Iterable[str], today: dt.date, *, country: str | None = None
) -> Typed | None:
    """The day (and time, if given) that `text` names; None if it names none."""
    words = _words(tuple(dict.fromkeys(languages)))
    folded = _fold(text)
    time: dt.time | None = None
    found_time = _TIME.search(folded)
    if found_time is not None:
        time = _time(found_time)
        folded = folded[: found_time.start()] + " " + folded[found_time.end() :]
    day = _find_day(folded, words, today, month_first=country in _MONTH_FIRST)
    if day is None:
        return Typed(today, time) if time is not None else None
    return Typed(day, time)


def _find_day(folded: str, words: _Words, today: dt.date, *, month_first: bool) -> dt.date | None:
    iso = _ISO.search(folded)
    if iso is not None:
        return _date(int(iso.group(1)), int(iso.group(2)), int(iso.group(3)), today)
    numeric = _NUMERIC.search(folded)
    if numeric is not None:
        first, second = int(numeric.group(1)), int(numeric.group(2))
        day, month = (second, first) if month_first else (first, second)
        year = int(numeric.group(3)) if numeric.group(3) else None
        return _date(year, month, day, today)
    tokens = re.findall(r"[0-9]+(?:st|nd|rd|th|er|e)?\.?|[^\W\d_]+\.?", folded)
    for index, token in enumerate(tokens):
        named = words.months.get(token.rstrip("."))
        number = _day_near(tokens, index) if named is not None else None
        if named is None or number is None:
            continue
        year_found = _YEAR.search(folded)
        found_year = int(year_found.group(1)) if year_found else None
        return _date(found_year, named, number, today)
    # Longest first: "the day before yesterday" and "avant-hier" before "yesterday", "hier".
    for phrase, offset in sorted(words.relative.items(), key=lambda kv: -len(kv[0])):
        if re.search(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", folded):
            return today + dt.timedelta(days=offset)
    for token in tokens:
        weekday = words.weekdays.get(token.rstrip("."))
        if weekday is not None:
            back = (today.weekday() - weekday) % 7 or 7
            return today - dt.timedelta(days=back)
    return None


def _day_near(tokens: list[str], index: int) -> int | None:
    """The day number just before a month name, or just after it ("12 mars", "March 12th",
    "12 de marzo")."""
    candidates = [index - 1, index - 2, index + 1]
    for position in candidates:
        if 0 <= position < len(tokens):
            found = _DAY_NUMBER.fullmatch(tokens[position])
            if found is not None and 1 <= int(found.group(1)) <= 31:
                if position == index - 2 and tokens[index - 1] not in ("de", "di", "del"):
                    continue
                return int(found.group(1))
            if position == index + 1 and tokens[position].isdigit():
                continue
    return None


# --- showing dates ----------------------------------------------------------------------

# Precision of a moment (stored as a number, so a stolen copy shows no more than that).
NOT_SAID, DAY, HOUR, MINUTE = 0, 1, 2, 3


# `language` below is a CLDR locale (`Context.formats`: "en_GB", "de"), narrowed by country
# where CLDR knows the pair; the fields come from local_format, as every date shown does.


def day_label(day: dt.date, language: str) -> str:
    return local_format.long_day(day, language)


def short_day(day: dt.date, language: str) -> str:
    return local_format.short_day(day, language)


def moment_label(local: dt.datetime, language: str) -> str:
    return f"{day_label(local.date(), language)}, {format_time(local, 'HH:mm', locale=language)}"


def written_label(timestamp: int, zone: dt.tzinfo, language: str) -> str:
    return moment_label(dt.datetime.fromtimestamp(timestamp, zone), language)


def happened_label(entry: _Dated, zone: dt.tzinfo, language: str) -> str:
    """When it happened, as precisely as the person said ("12 March 2026, ~21:00"); ""
    when they did not say."""
    if entry.happened_at is None or entry.precision == NOT_SAID:
        return ""
    local = dt.datetime.fromtimestamp(entry.happened_at, zone)
    if entry.precision == HOUR:
        return (
            f"{day_label(local.date(), language)}, ~{format_time(local, 'HH:mm', locale=language)}"
        )
    if entry.precision == MINUTE:
        return moment_label(local, language)
    return day_label(local.date(), language)


class _Dated(Protocol):
    @property
    def happened_at(self) -> int | None: ...

    @property
    def precision(self) -> int: ...
