"""A time of day as a person types it, in any of the languages the bot speaks: "7:30",
"8pm", "20h30", "21h", "20 Uhr", "alle 21", "21.30", "9 de la noche", "om 21 uur",
"às 21h", "9 Uhr abends", "minuit". Pure; the one parser for a typed time of day (the
check-in time in onboarding and /settings).

The words for parts of the day ("de la noche", "’s avonds", "du soir", "da noite") and
the hours each covers come from CLDR through Babel (the "B" day-period format), so no
list of them is kept here: "9 de la noche" is the hour 9 or 21 that CLDR calls "de la
noche" in Spanish. Every language's words are accepted for everyone: people switch
languages, and no word means one hour in one language and another elsewhere.

What stays out: anything ambiguous or easy to mistype. Three digits ("730"), one-digit
minutes ("7:5"), seconds, hours past 23, "13pm", a 24-hour hour with a part of the day
it is not in ("21 de la mañana"). The caller echoes the time back to confirm.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from functools import cache

from babel.dates import format_time

__all__ = ["LANGUAGES", "day_periods", "parse_time_of_day"]

# The bot's languages, and the CLDR locales whose day-period words differ from them.
LANGUAGES: tuple[str, ...] = ("en", "es", "fr", "de", "it", "nl", "pt")
_LOCALES: tuple[str, ...] = (*LANGUAGES, "pt_PT")

# Words before a time that say "at": "a las 9", "à 21h", "um 20 Uhr", "alle 21", "om 21
# uur", "às 21h", "ore 21". Folded (lower case, no accents).
_AT = re.compile(
    r"^(?:at|around|a\s+las|a\s+la|las|a|vers|um|gegen|alle|all'|verso|ore|om|rond|"
    r"tegen|as|pelas|por\s+volta\s+das|sobre\s+las)\s+"
)
# A unit after the number: "21h", "20 Uhr", "21 uur", "21u", "21 horas", "21 heures", "21 ore".
_UNIT = r"(?:h|hs|hrs|hr|u|uhr|uur|horas|hora|heures|heure|ore)"
_TIME = re.compile(
    rf"""
    ^(?:
        (?P<hour>\d{{1,2}}) (?: \s* (?: [:.] | h | uhr | uur ) \s* (?P<minute>\d{{2}}) )?
      | (?P<hhmm>\d{{4}})
    )
    \s* (?: {_UNIT} \.? )?
    \s* (?: (?P<half>[ap]) \.? \s* m \.? )? $
    """,
    re.VERBOSE,
)
_ALONE = {"noon": dt.time(12, 0), "midday": dt.time(12, 0), "midnight": dt.time(0, 0)}
_LONGEST = 40  # a typed time is short; odd input never reaches the expressions


def _fold(text: str) -> str:
    """Lower case, no accents, one kind of apostrophe and space: "’s Avonds" meets "'s avonds"."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    plain = plain.replace("\u2019", "'").replace("\u00a0", " ")
    return " ".join(plain.split())


@cache
def day_periods() -> dict[str, frozenset[int]]:
    """Each folded day-period phrase of every language (wide and abbreviated, "du soir"
    and "soir") with the hours (0-23) CLDR gives it."""
    found: dict[str, set[int]] = {}
    for locale in _LOCALES:
        for pattern in ("h B", "h BBBB"):
            for hour in range(24):
                shown = format_time(dt.time(hour), pattern, locale=locale)
                phrase = _fold(shown.split(" ", 1)[1]) if " " in shown else ""
                if phrase:
                    found.setdefault(phrase, set()).add(hour)
    return {phrase: frozenset(hours) for phrase, hours in found.items()}


def _period_of(text: str) -> tuple[str, frozenset[int] | None]:
    """The text without a day-period phrase at its end or start, and that phrase's hours."""
    for phrase in sorted(day_periods(), key=len, reverse=True):
        hours = day_periods()[phrase]
        if text.endswith(" " + phrase):
            return text[: -len(phrase) - 1].strip(), hours
        if text.startswith(phrase + " "):
            return text[len(phrase) + 1 :].strip(), hours
    return text, None


def parse_time_of_day(text: str) -> dt.time | None:
    """The time of day `text` names, or None when it names none (or is ambiguous)."""
    cleaned = _fold(text)
    if not cleaned or len(cleaned) > _LONGEST:
        return None
    if cleaned in _ALONE:
        return _ALONE[cleaned]
    alone = day_periods().get(cleaned)
    if alone is not None and len(alone) == 1:  # "minuit", "mezzogiorno", "meia-noite"
        return dt.time(next(iter(alone)), 0)
    rest, period = _period_of(cleaned)
    rest = _AT.sub("", rest, count=1)
    match = _TIME.match(rest)
    if match is None:
        return None
    if match["hhmm"] is not None:
        if match["half"] is not None or period is not None:
            return None  # "0730pm" mixes two conventions; better to ask again
        hour, minute = int(match["hhmm"][:2]), int(match["hhmm"][2:])
    else:
        hour = int(match["hour"])
        minute = int(match["minute"]) if match["minute"] is not None else 0
    if match["half"] is not None:
        if period is not None or not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if match["half"] == "p" else 0)
    elif period is not None:
        within = _in_period(hour, period)
        if within is None:
            return None
        hour = within
    if not (0 <= hour <= 23 and 0 <= minute <= 59):
        return None
    return dt.time(hour, minute)


def _in_period(hour: int, period: frozenset[int]) -> int | None:
    """The hour a clock-face number names within a part of the day: 9 "de la noche" is 21,
    21 "abends" is 21, 21 "de la mañana" is nothing. CLDR's edges are not everyone's
    ("8 de la tarde" is 20:00 to most, CLDR's "tarde" ends at 19): a part of the day that
    lies wholly after noon takes any hour from 1 to 11 as an afternoon or evening one."""
    after_noon = min(period) >= 12
    if hour > 12:
        return hour if hour in period or after_noon else None
    candidates = {h for h in (hour % 12, hour % 12 + 12) if h in period}
    if len(candidates) == 1:
        return candidates.pop()
    if not candidates and after_noon and 1 <= hour <= 11:  # 12 "de la noche" is not noon
        return hour + 12
    return None
