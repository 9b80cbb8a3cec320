"""How old a check may be: a number someone read more than twelve months ago is due to be
read again (services change numbers, hours and owners; a 2019 study found one app in
twelve listing a wrong or dead helpline). Pure; `today` is always given, so tests choose
it."""

from __future__ import annotations

import datetime

MONTHS = 12


def oldest_allowed(today: datetime.date) -> datetime.date:
    """The same day twelve months earlier (28 February for a 29 February)."""
    try:
        return today.replace(year=today.year - 1)
    except ValueError:
        return today.replace(year=today.year - 1, day=28)


def freshness_problem(checked: datetime.date, today: datetime.date) -> str | None:
    """Why a `checked` date will not do on `today`, or None when it will."""
    if checked > today:
        return f"checked {checked.isoformat()} is after today ({today.isoformat()}): a typo?"
    if checked < oldest_allowed(today):
        return (
            f"checked {checked.isoformat()}, more than {MONTHS} months ago: read the source "
            "again and update `checked` (docs/helplines.md, Re-checking)"
        )
    return None
