"""content/emergency_numbers.yaml: a verified table for every ISO 3166-1 country, each
entry with the address of the page that states its numbers and the day someone read it;
what nobody could confirm shows 112 and 911, never a guess. libphonenumber cross-checks
and flags, it does not decide."""

from __future__ import annotations

import copy
import dataclasses
import datetime
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.content.emergency import (
    MOBILE_NUMBERS,
    Emergency,
    Purpose,
    disagreements,
    helpline_differences,
    parse_emergency,
    review_differences,
    stale_entries,
    validate_emergency,
)
from bot.geo import lookup as geo
from tests.helpers.bot import shared_content

FILE = Path(__file__).resolve().parents[3] / "content" / "emergency_numbers.yaml"
CHECKED = datetime.date(2026, 12, 1)


def _raw() -> Any:
    return yaml.safe_load(FILE.read_text(encoding="utf-8"))


def _broken(mutate: Any) -> list[Any]:
    raw = copy.deepcopy(_raw())
    mutate(raw)
    return validate_emergency(raw)


def _entry(**fields: Any) -> dict[str, Any]:
    entry = {
        "call": "112; 110",
        "describe": {"112": "any emergency", "110": "police"},
        "source": "https://www.example.org/notruf",
        "checked": CHECKED,
        "verified": "yes",
    }
    entry.update(fields)
    return {key: value for key, value in entry.items() if value is not None}


def _with_de(**fields: Any) -> list[Any]:
    return _broken(lambda raw: raw["countries"].update(DE=_entry(**fields)))


# --- the real file --------------------------------------------------------------------------


def test_real_file_is_valid_and_covers_every_iso_country() -> None:
    raw = _raw()
    assert validate_emergency(raw) == []
    book = parse_emergency(raw)
    assert set(book) == set(geo.country_names())
    assert len(book) == 249


def test_every_entry_names_a_page_and_the_day_it_was_read() -> None:
    for code, entry in parse_emergency(_raw()).items():
        assert re.fullmatch(r"https?://\S+\.\S+", entry.source), code
        assert entry.checked == CHECKED, code


def test_what_nobody_confirmed_shows_112_and_911_and_nothing_invented() -> None:
    book = parse_emergency(_raw())
    unconfirmed = [entry for entry in book.values() if not entry.verified]
    assert unconfirmed  # uninhabited places at least (Bouvet Island…)
    for entry in unconfirmed:
        assert entry.numbers == MOBILE_NUMBERS, entry.code
        assert entry.purposes == () and entry.note is None, entry.code


def test_the_examples_of_the_audit_are_corrected() -> None:
    book = parse_emergency(_raw())
    wrong = {
        "SE": "90000",  # retired in 1996
        "CZ": "151",  # not an emergency number
        "LT": "011",  # switched off in 2022
        "GE": "022",  # never Georgian
        "HN": "199",  # now 911
        "DK": "114",  # the police's non-emergency line
    }
    for code, number in wrong.items():
        assert number not in book[code].numbers, code
    assert book["SE"].numbers[0] == "112"
    assert {"112", "158", "155"} <= set(book["CZ"].numbers)
    assert book["CL"].numbers == ("133", "131", "132")
    assert dict(book["CL"].purposes) == {
        "133": Purpose.POLICE,
        "131": Purpose.AMBULANCE,
        "132": Purpose.FIRE,
    }
    assert book["DK"].numbers[0] == "112"
    assert book["GH"].numbers[0] == "112"  # since 2020
    assert book["HN"].numbers[0] == "911"


def test_the_operators_review_field_never_reaches_the_model() -> None:
    # What the bot can show is what Emergency holds; `review` is for us only.
    assert "review" not in {field.name for field in dataclasses.fields(Emergency)}
    raw = _raw()
    assert any("review" in entry for entry in raw["countries"].values())


def test_helplines_and_emergency_list_agree() -> None:
    content = shared_content()
    assert disagreements(content.helplines, content.emergency) == []


# --- the rules, each with a failing case ----------------------------------------------------


def test_a_verified_entry_may_differ_from_libphonenumber_and_is_listed_for_review() -> None:
    # 999 is not an emergency number for Germany in libphonenumber: once that failed the
    # check; now the entry's own source is the authority and the difference is listed.
    assert _with_de(call="112; 999", describe={"112": "any emergency", "999": "police"}) == []
    raw = copy.deepcopy(_raw())
    raw["countries"]["DE"] = _entry(
        call="112; 999", describe={"112": "any emergency", "999": "police"}
    )
    found = review_differences(parse_emergency(raw))
    germany = [p for p in found if p.path == ("countries", "DE", "call")]
    assert len(germany) == 1 and "999" in germany[0].message


def test_an_unconfirmed_entry_shows_112_and_911_only() -> None:
    found = _with_de(verified="no", describe=None)
    assert any(p.path == ("countries", "DE", "call") and "112; 911" in p.message for p in found)
    assert _with_de(verified="no", describe=None, call="112; 911") == []
    found = _with_de(verified="no", call="112; 911", describe={"112": "any emergency"})
    assert any(p.path == ("countries", "DE", "describe") for p in found)


@pytest.mark.parametrize(
    ("fields", "path", "words"),
    [
        ({"source": "libphonenumber"}, ("countries", "DE", "source"), "address"),
        ({"source": None}, ("countries", "DE"), "source"),
        ({"checked": None}, ("countries", "DE"), "checked"),
        ({"checked": "2026-13-01"}, ("countries", "DE", "checked"), "real date"),
        ({"verified": None}, ("countries", "DE"), "verified"),
        ({"verified": True}, ("countries", "DE", "verified"), 'write "yes" in quotes'),
        ({"verified": "partial"}, ("countries", "DE", "verified"), '"yes" or "no"'),
        ({"call": "112; 110; 116; 118"}, ("countries", "DE", "call"), "at most 3"),
        ({"call": "112; 112", "describe": None}, ("countries", "DE", "call"), "different"),
        ({"describe": {"112": "any emergency"}}, ("countries", "DE", "describe"), "110"),
        ({"describe": {"112": "any", "110": "police"}},
         ("countries", "DE", "describe", "112"), "police"),
        ({"describe": {"112": "any emergency", "110": "police", "999": "fire"}},
         ("countries", "DE", "describe", "999"), "not one of the numbers"),
        ({"note": "Hours were last seen in 2020."}, ("countries", "DE", "note"), "review"),
        ({"review": ""}, ("countries", "DE", "review"), "non-empty"),
        ({"colour": "red"}, ("countries", "DE", "colour"), "unknown field"),
    ],
)  # fmt: skip
def test_each_rule_fails_where_it_should(fields: dict[str, Any], path: Any, words: str) -> None:
    found = _with_de(**fields)
    assert any(p.path == path and words in p.message for p in found), found


def test_a_shared_sources_key_is_gone() -> None:
    found = _broken(lambda raw: raw.update(sources={"libphonenumber": "the package"}))
    assert any(p.path == () for p in found)


def test_missing_country_and_yaml_pitfalls() -> None:
    assert any(
        p.path == ("countries",) and "DE has no emergency number" in p.message
        for p in _broken(lambda raw: raw["countries"].pop("DE"))
    )
    found = _broken(lambda raw: raw["countries"].update({False: raw["countries"].pop("NO")}))
    assert any('quote "NO"' in p.message for p in found)
    found = _broken(lambda raw: raw["countries"].update(XX=_entry()))
    assert any(p.path == ("countries", "XX") for p in found)


def test_freshness_against_an_injected_today() -> None:
    raw = copy.deepcopy(_raw())
    assert stale_entries(raw, datetime.date(2027, 12, 1)) == []  # twelve months to the day
    late = stale_entries(raw, datetime.date(2027, 12, 2))
    assert len(late) == 249
    assert ("countries", "SE", "checked") in {p.path for p in late}
    assert all("more than 12 months" in p.message for p in late)
    raw["countries"]["SE"]["checked"] = datetime.date(2027, 1, 1)
    early = stale_entries(raw, datetime.date(2026, 12, 31))
    assert [p.path for p in early] == [("countries", "SE", "checked")]
    assert "after today" in early[0].message


def test_a_leap_day_today_reaches_back_to_the_28th() -> None:
    raw = copy.deepcopy(_raw())
    for entry in raw["countries"].values():
        entry["checked"] = datetime.date(2027, 2, 28)
    assert stale_entries(raw, datetime.date(2028, 2, 29)) == []
    raw["countries"]["SE"]["checked"] = datetime.date(2027, 2, 27)
    assert len(stale_entries(raw, datetime.date(2028, 2, 29))) == 1


def test_a_helpline_line_missing_the_main_number_fails_other_numbers_are_listed() -> None:
    content = shared_content()
    spain = content.helplines["ES"]
    emergency = dict(content.emergency)
    emergency["ES"] = dataclasses.replace(emergency["ES"], numbers=("091", "112"))
    helplines = {"ES": spain}
    assert any(
        "091 is ES's emergency number" in p.message for p in disagreements(helplines, emergency)
    )
    emergency["ES"] = dataclasses.replace(emergency["ES"], numbers=("112", "091"))
    assert disagreements(helplines, emergency) == []
    assert any("091" in p.message for p in helpline_differences(helplines, emergency))
    emergency["ES"] = dataclasses.replace(emergency["ES"], verified=False)
    assert any("unconfirmed" in p.message for p in disagreements(helplines, emergency))
