"""Dates, times and numbers as a person's language writes them (Babel's CLDR data):
"1 dic 2026", "1. Dez. 2026", "21:00" or "9:00 PM". One place, so replies and exports agree.

Each function takes a CLDR locale tag: the person's language, narrowed by their country
where CLDR knows the pair (`locale_for`): English in London writes "Tue 1 Dec, 07:50", in
New York "Tue, Dec 1, 7:50 AM"."""

from __future__ import annotations

from datetime import date, datetime
from datetime import time as clock_time
from functools import cache

from babel import Locale, UnknownLocaleError
from babel.dates import format_date, format_skeleton, format_time
from babel.numbers import format_decimal


@cache
def locale_for(language: str, country: str | None) -> str:
    """`es` + `AR` -> "es_AR" when CLDR has it; else the language alone."""
    region = (country or "").split("-", 1)[0]
    if region:
        try:
            Locale.parse(f"{language}_{region}")
        except (UnknownLocaleError, ValueError):
            return language
        return f"{language}_{region}"
    return language


def day(value: date, language: str) -> str:
    return format_date(value, format="medium", locale=language)


def long_day(value: date, language: str) -> str:
    """ "27 November 2026", "27. November 2026", "27 de noviembre de 2026"."""
    return _skeleton("yMMMMd", value, language)


def short_day(value: date, language: str) -> str:
    """A button's day: "Fri 27 Nov", "Fr., 27. Nov."."""
    return _skeleton("MMMEd", value, language)


def day_month(value: date, language: str) -> str:
    """A chart's tick: "1 Dec", "Dec 1", "1. Dez."."""
    return _skeleton("MMMd", value, language)


def _skeleton(skeleton: str, value: date, language: str) -> str:
    # CLDR skeletons: each locale orders and punctuates the fields its own way.
    return str(format_skeleton(skeleton, datetime.combine(value, clock_time()), locale=language))


def moment(value: datetime, language: str) -> str:
    return f"{day(value.date(), language)}, {time_of_day(value.time(), language)}"


def time_of_day(value: clock_time, language: str) -> str:
    return format_time(value, format="short", locale=language)


def number(value: int | float, language: str) -> str:
    return format_decimal(value, locale=language)


def hh_mm(value: str, language: str) -> str:
    """A stored "HH:MM" as the language writes a time of day ("7:30 AM", "07:30")."""
    hours, _, minutes = value.partition(":")
    try:
        return time_of_day(clock_time(int(hours), int(minutes)), language)
    except ValueError:
        return value


def weekday_moment(value: datetime, language: str, *, with_year: bool) -> str:
    """A journal entry's heading: "Tue, Dec 1, 9:00 AM", "mar, 1 dic, 9:00"."""
    skeleton = "yMMMEd" if with_year else "MMMEd"
    when = format_skeleton(skeleton, value, locale=language)
    return f"{when}, {time_of_day(value.time(), language)}"
