"""Dates, times and numbers as a person's language writes them (Babel's CLDR data):
"1 dic 2026", "1. Dez. 2026", "21:00" or "9:00 PM". One place, so replies and exports agree."""

from __future__ import annotations

from datetime import date, datetime
from datetime import time as clock_time

from babel.dates import format_date, format_time
from babel.numbers import format_decimal


def day(value: date, language: str) -> str:
    return format_date(value, format="medium", locale=language)


def moment(value: datetime, language: str) -> str:
    return f"{day(value.date(), language)}, {time_of_day(value.time(), language)}"


def time_of_day(value: clock_time, language: str) -> str:
    return format_time(value, format="short", locale=language)


def number(value: int | float, language: str) -> str:
    return format_decimal(value, locale=language)
