"""Issue 23: a check-in time typed the local way, per language. One table per language of
what its people write, with what it must mean; then what must stay refused."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.core.typed_time import LANGUAGES, day_periods, parse_time_of_day

T = dt.time
BY_LANGUAGE: dict[str, list[tuple[str, dt.time]]] = {
    "en": [
        ("8pm", T(20)),
        ("8:30 p.m.", T(20, 30)),
        ("at 9", T(9)),
        ("21:30", T(21, 30)),
        ("9 at night", T(21)),
        ("7 in the morning", T(7)),
        ("noon", T(12)),
    ],
    "es": [
        ("9 de la noche", T(21)),
        ("a las 9 de la noche", T(21)),
        ("21:30", T(21, 30)),
        ("8 de la tarde", T(20)),
        ("7 de la mañana", T(7)),
        ("21 h", T(21)),
        ("a las 21", T(21)),
        ("las 20.30", T(20, 30)),
        ("21 horas", T(21)),
    ],
    "fr": [
        ("20h30", T(20, 30)),
        ("21h", T(21)),
        ("à 21h", T(21)),
        ("9 h du soir", T(21)),
        ("21 heures", T(21)),
        ("vers 20h", T(20)),
        ("minuit", T(0)),
        ("7h du matin", T(7)),
    ],
    "de": [
        ("20 Uhr", T(20)),
        ("um 20 Uhr", T(20)),
        ("20:30 Uhr", T(20, 30)),
        ("20 Uhr 30", T(20, 30)),
        ("9 Uhr abends", T(21)),
        ("7 Uhr morgens", T(7)),
        ("21.30", T(21, 30)),
        ("gegen 21 Uhr", T(21)),
    ],
    "it": [
        ("alle 21", T(21)),
        ("alle 21:30", T(21, 30)),
        ("ore 21", T(21)),
        ("alle 9 di sera", T(21)),
        ("21.30", T(21, 30)),
        ("mezzogiorno", T(12)),
    ],
    "nl": [
        ("om 21 uur", T(21)),
        ("21.30 uur", T(21, 30)),
        ("21u", T(21)),
        ("om 9 uur 's avonds", T(21)),
        ("9 uur ’s avonds", T(21)),
        ("middernacht", T(0)),
    ],
    "pt": [
        ("às 21h", T(21)),
        ("às 21h30", T(21, 30)),
        ("21 horas", T(21)),
        ("9 da noite", T(21)),
        ("8 da manhã", T(8)),
        ("as 20:30", T(20, 30)),
        ("meia-noite", T(0)),
        ("3 da tarde", T(15)),
    ],
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [(text, expected) for rows in BY_LANGUAGE.values() for text, expected in rows],
)
def test_a_local_time_is_read(text: str, expected: dt.time) -> None:
    assert parse_time_of_day(text) == expected


def test_every_language_has_its_table() -> None:
    assert set(BY_LANGUAGE) == set(LANGUAGES)


@pytest.mark.parametrize(
    "text",
    [
        "21 de la mañana",  # a 24-hour hour in a part of the day it is not in
        "12 de la noche",  # midnight or noon: ask again
        "0 de la noche",
        "11 Uhr nachts",  # CLDR's "nachts" ends at 4: not guessed
        "13pm",
        "0730pm",
        "21h61",
        "730",
        "7:5",
        "alle",
        "de la noche",
        "9 de la noche de la noche",
        "8pm de la noche",
        "a" * 200,
    ],
)
def test_what_stays_refused(text: str) -> None:
    assert parse_time_of_day(text) is None


def test_the_parts_of_the_day_come_from_cldr_for_every_language() -> None:
    periods = day_periods()
    for phrase in ("de la noche", "du soir", "abends", "di sera", "'s avonds", "da noite"):
        assert phrase in periods and 21 in periods[phrase]
