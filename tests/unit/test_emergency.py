"""content/emergency_numbers.yaml: every ISO 3166-1 country, every number confirmed against
libphonenumber, and the checks that keep it so."""

from __future__ import annotations

import copy
import datetime
from pathlib import Path
from typing import Any

import yaml

from bot.content.emergency import (
    disagreements,
    known_to_libphonenumber,
    parse_emergency,
    validate_emergency,
)
from bot.geo import lookup as geo
from tests.conftest import shared_content

FILE = Path(__file__).resolve().parents[2] / "content" / "emergency_numbers.yaml"


def _raw() -> Any:
    return yaml.safe_load(FILE.read_text(encoding="utf-8"))


def test_real_file_is_valid_and_covers_every_iso_country() -> None:
    raw = _raw()
    assert validate_emergency(raw) == []
    book = parse_emergency(raw)
    assert set(book) == set(geo.country_names())
    assert len(book) == 249


def test_every_number_is_an_emergency_number_where_libphonenumber_knows() -> None:
    unchecked = []
    for code, entry in parse_emergency(_raw()).items():
        assert entry.source and entry.checked == datetime.date(2026, 12, 1)
        for number in entry.numbers:
            known = known_to_libphonenumber(number, code)
            if known is None:
                unchecked.append(code)
            else:
                assert known, (code, number)
    # Regions libphonenumber has no emergency data for: all but two are uninhabited or
    # nearly so, and they carry the GSM source (112 and 911 from any mobile).
    assert set(unchecked) <= {"AQ", "BV", "GN", "GQ", "GS", "HM", "IO", "PN", "TF", "TK", "UM"}


def test_the_number_people_know_comes_first() -> None:
    book = parse_emergency(_raw())
    for code, number in {
        "US": "911", "CA": "911", "MX": "911", "AR": "911", "BR": "190", "GB": "999",
        "IE": "999", "AU": "000", "NZ": "111", "DE": "112", "FR": "112", "IN": "112",
        "ZA": "10111", "JP": "110", "NL": "112",
    }.items():  # fmt: skip
        assert book[code].numbers[0] == number, code


def test_problems_are_reported_at_their_entry() -> None:
    def broken(mutate: Any) -> list[Any]:
        raw = copy.deepcopy(_raw())
        mutate(raw)
        return validate_emergency(raw)

    assert any(
        p.path == ("countries",) and "DE has no emergency number" in p.message
        for p in broken(lambda raw: raw["countries"].pop("DE"))
    )
    for key in ("source", "checked", "call"):
        found = broken(lambda raw, key=key: raw["countries"]["DE"].pop(key))
        assert any(p.path == ("countries", "DE") and key in p.message for p in found), key
    found = broken(lambda raw: raw["countries"]["DE"].update(call="999"))
    assert any("does not list 999" in p.message for p in found)
    found = broken(lambda raw: raw["countries"]["DE"].update(source="memory"))
    assert any(p.path == ("countries", "DE", "source") for p in found)
    found = broken(lambda raw: raw["countries"].update({False: raw["countries"].pop("NO")}))
    assert any('quote "NO"' in p.message for p in found)
    found = broken(lambda raw: raw["countries"].update(XX={"call": "112"}))
    assert any(p.path == ("countries", "XX") for p in found)


def test_helplines_and_emergency_list_agree() -> None:
    content = shared_content()
    assert disagreements(content.helplines, content.emergency) == []
