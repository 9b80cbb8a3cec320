"""Dates, times, country and language names as each language writes them (Babel/CLDR)."""

from __future__ import annotations

from datetime import date, datetime, time

import pytest

from bot.content.locales import endonym
from bot.content.places import name_in
from bot.core import local_format
from bot.features.setup.callbacks import LanguageButton, SettingsButton
from bot.features.setup.views import language_view, settings_view
from bot.people.profile import Profile
from tests.helpers.bot import shared_content


@pytest.mark.parametrize(
    ("language", "country", "expected"),
    [
        ("en", "GB", "en_GB"),
        ("en", "US", "en_US"),
        ("es", "AR", "es_AR"),
        ("de", None, "de"),
        ("en", "GB-SCT", "en_GB"),
        ("fr", "XX", "fr"),
    ],
)
def test_locale_is_the_language_narrowed_by_country(
    language: str, country: str | None, expected: str
) -> None:
    assert local_format.locale_for(language, country) == expected


def test_times_and_dates_follow_the_locale() -> None:
    assert local_format.hh_mm("19:45", "en_US") == "7:45\u202fPM"
    assert local_format.hh_mm("19:45", "en_GB") == "19:45"
    assert local_format.hh_mm("07:05", "de") == "07:05"
    assert local_format.day(date(2026, 12, 1), "es") == "1 dic 2026"
    moment = datetime(2026, 12, 1, 7, 50)
    assert local_format.weekday_moment(moment, "en_GB", with_year=False) == "Tue 1 Dec, 07:50"
    assert local_format.weekday_moment(moment, "de", with_year=True) == "Di., 1. Dez. 2026, 07:50"
    assert local_format.time_of_day(time(21, 0), "fr") == "21:00"
    assert local_format.number(1234.5, "de") == "1.234,5"


def test_countries_and_languages_named_in_their_language() -> None:
    book = shared_content().helplines
    assert name_in("DE", book, "es") == "Alemania"
    assert name_in("GB", book, "en") == "United Kingdom"
    assert name_in("GB-SCT", book, "fr") != "Scotland"  # the part's own name in French
    assert [endonym(c) for c in ("en", "es", "de", "pt")] == [
        "English",
        "Español",
        "Deutsch",
        "Português",
    ]


def test_the_language_row_and_picker() -> None:
    def tx(key: str, **values: object) -> str:
        return key

    _, rows = settings_view(
        tx, Profile(), None, worksheet_waiting=False, extra=[], language="Español"
    )
    assert [("🌐 Español", SettingsButton("language").encode())] in rows
    _, alone = settings_view(tx, Profile(), None, worksheet_waiting=False, extra=[])
    assert all(SettingsButton("language").encode() not in [d for _, d in r] for r in alone)
    text, picker = language_view(tx, [("en", "English"), ("es", "Español"), ("de", "Deutsch")])
    assert text == "language.ask"
    assert picker == [
        [("English", LanguageButton("en").encode()), ("Español", LanguageButton("es").encode())],
        [("Deutsch", LanguageButton("de").encode())],
    ]
    assert LanguageButton.decode("es") == LanguageButton("es")
    assert LanguageButton.decode("../x") is None
