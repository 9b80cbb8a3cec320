"""content/helplines.yaml, its validator, and the per-country lookup.

The first half checks the real file: every line carries a source and a checked date, every
number has a dialable shape, the countries we promised are there. The second half feeds
the validator broken documents and checks each problem is reported at its path, because
`bot.content` turns that path into the file and line an author is sent to.
"""

from __future__ import annotations

import copy
import datetime
from pathlib import Path as FilePath
from typing import Any

import pytest
import yaml

from bot.content.helplines import (
    INTL,
    Country,
    Line,
    LineKind,
    entry_lines,
    lines_for,
    parse_helplines,
    phone_problem,
    validate_helplines,
)
from bot.core.problems import Problem

HELPLINES_FILE = FilePath(__file__).resolve().parents[3] / "content" / "helplines.yaml"
# Issue 9's list: every one of these has an emergency line and at least one support line.
REQUIRED_COUNTRIES = {
    "US", "CA", "MX", "BR", "AR", "GB", "IE", "AU", "NZ", "IN", "ZA",
    "DE", "AT", "CH", "FR", "BE", "ES", "PT", "IT", "NL", INTL,
}  # fmt: skip
GB_NATIONS = {"GB-ENG", "GB-SCT", "GB-WLS", "GB-NIR"}


def _raw() -> Any:
    with HELPLINES_FILE.open(encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _book() -> dict[str, Country]:
    return parse_helplines(_raw())


# --- the real file ------------------------------------------------------------------------


def test_real_file_is_valid() -> None:
    assert validate_helplines(_raw()) == []


def test_required_countries_are_present_and_nothing_unsourced() -> None:
    book = _book()
    assert set(book) == REQUIRED_COUNTRIES | GB_NATIONS
    for code in REQUIRED_COUNTRIES - {INTL}:
        kinds = {line.kind for line in entry_lines(book, code)}
        assert LineKind.EMERGENCY in kinds, code
        assert kinds - {LineKind.EMERGENCY, LineKind.OTHER}, code


def test_every_nation_of_the_uk_has_its_own_abuse_line_and_names() -> None:
    book = _book()
    for code in GB_NATIONS:
        nation = book[code]
        assert nation.part_of == "GB"
        assert {line.kind for line in nation.lines} >= {LineKind.DOMESTIC_ABUSE}, code
        assert set(nation.names) == {"en", "es", "fr", "de", "it", "nl", "pt"}
    # A nation inherits what it does not list: 999 and Samaritans in Scotland.
    scotland = [line.name for line in entry_lines(book, "GB-SCT")]
    assert scotland[0] == "Emergency"
    assert "Samaritans" in scotland
    assert "Men's Advice Line (Respect)" not in scotland  # Scotland lists its own abuse line


def test_at_least_one_sexual_violence_and_one_child_line() -> None:
    book = _book()
    kinds = [line.kind for c in book.values() for line in c.lines]
    assert kinds.count(LineKind.SEXUAL_VIOLENCE) >= 5
    assert kinds.count(LineKind.CHILD) >= 5


def test_south_africa_lists_sadags_suicide_crisis_line_first() -> None:
    crisis = [line for line in _book()["ZA"].lines if line.kind == LineKind.CRISIS]
    assert crisis[0].phone == "0800 567 567"


def test_every_line_has_source_and_checked_date() -> None:
    for country in _book().values():
        for line in country.lines:
            assert line.source.strip(), (country.code, line.name)
            assert isinstance(line.checked, datetime.date), (country.code, line.name)
            # Checked by the first audit, or again (or newly) for issue 9.
            assert line.checked in {datetime.date(2026, 11, 29), datetime.date(2026, 12, 1)}
            assert line.verified in {"yes", "partial"}


def test_every_phone_number_has_a_dialable_shape() -> None:
    phones = [line.phone for c in _book().values() for line in c.lines if line.phone]
    assert len(phones) > 30
    for phone in phones:
        assert phone_problem(phone) is None, phone


def test_lines_go_emergency_first_then_by_kind() -> None:
    order = list(LineKind)
    for country in _book().values():
        kinds = [line.kind for line in country.lines]
        if country.part_of is None:
            assert kinds[0] == LineKind.EMERGENCY, country.code
        assert kinds == sorted(kinds, key=order.index), country.code


def test_parsed_values() -> None:
    gb = _book()["GB"]
    assert gb.name == "United Kingdom"
    assert gb.lines[0] == Line(
        kind=LineKind.EMERGENCY,
        name="Emergency",
        phone="999",
        text=None,
        url=None,
        hours=None,
        notes=None,
        silent_option="If you can't speak, call 999 from a mobile and press 55 when asked.",
        source=(
            "centre56.org.uk/domestic-abuse; "
            "independentage.org/domestic-abuse-where-you-can-get-help; "
            "https://belfasttrust.hscni.net/service/adult-protection-gateway-team/"
            "domestic-abuse-sexual-violence-support/"
        ),
        checked=datetime.date(2026, 12, 1),
        verified="yes",
    )
    shout = next(line for line in gb.lines if line.name == "Shout")
    assert shout.text == "SHOUT to 85258"
    samaritans = next(line for line in gb.lines if line.name == "Samaritans")
    assert samaritans.free is True
    assert _book()["BR"].lines[2].whatsapp == "61 9610-0180"
    assert _book()["AU"].lines[0].phone == "000"  # quoted, so not the integer 0


def test_publication_dates_stay_in_source() -> None:
    us = _book()["US"]
    hotline = next(line for line in us.lines if line.name == "National Domestic Violence Hotline")
    assert "(pub 2022-01-20)" in hotline.source


# --- phone shapes ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "phone",
    [
        "17",
        "911",
        "000",
        "116 123",
        "0808 2000 247",
        "1-800-799-7233",
        "0800-2000",
        "0800 111 0 111 or 0800 111 0 222",
        "14416 or 1-800-891-4416",
        "110; 112",
        "17; 15; 18; 112",
        "+44 808 2000 247",
        "+353 1800 341 900",
    ],
)
def test_good_phone_shapes(phone: str) -> None:
    assert phone_problem(phone) is None


@pytest.mark.parametrize(
    "phone",
    [
        "",
        "1",
        "0800 ABC",
        "(0800) 123 456",
        "0800  123",
        " 999",
        "999 ",
        "112, 911",
        "112;112",
        "112 / 911",
        "110;  112",
        "++44 20",
        "44+ 20",
        "0800--123",
        "0800 123 ext 4",
        "1234567890123456",
        "999 or",
        "١١٢",
    ],
)
def test_bad_phone_shapes(phone: str) -> None:
    assert phone_problem(phone) is not None


# --- injected problems ----------------------------------------------------------------------


def _broken(mutate: Any) -> list[Problem]:
    raw = copy.deepcopy(_raw())
    mutate(raw)
    return validate_helplines(raw)


def _line(raw: Any, code: str, index: int) -> dict[str, Any]:
    line: dict[str, Any] = raw[code]["lines"][index]
    return line


def _set(code: str, index: int, key: str, value: Any) -> Any:
    return lambda raw: _line(raw, code, index).__setitem__(key, value)


def _drop(code: str, index: int, key: str) -> Any:
    return lambda raw: _line(raw, code, index).pop(key)


@pytest.mark.parametrize(
    ("mutate", "path", "words"),
    [
        (_drop("GB", 1, "source"), ("GB", "lines", 1), "missing 'source'"),
        (_drop("GB", 1, "checked"), ("GB", "lines", 1), "missing 'checked'"),
        (_drop("GB", 1, "verified"), ("GB", "lines", 1), "missing 'verified'"),
        (_drop("GB", 1, "name"), ("GB", "lines", 1), "missing 'name'"),
        (_set("GB", 1, "source", "  "), ("GB", "lines", 1, "source"), "non-empty"),
        (_set("GB", 1, "checked", "2026-02-30"), ("GB", "lines", 1, "checked"), "real date"),
        (_set("GB", 1, "checked", "29/11/2026"), ("GB", "lines", 1, "checked"), "real date"),
        (_set("GB", 1, "checked", "20261129"), ("GB", "lines", 1, "checked"), "real date"),
        (
            _set("GB", 1, "checked", datetime.datetime(2026, 11, 29, 10, 0)),
            ("GB", "lines", 1, "checked"),
            "real date",
        ),
        (_set("GB", 1, "kind", "hotline"), ("GB", "lines", 1, "kind"), "unknown kind"),
        (_set("GB", 1, "phone", 116123), ("GB", "lines", 1, "phone"), "quote phone"),
        (_set("GB", 1, "phone", "116-123 (free)"), ("GB", "lines", 1, "phone"), "phone number"),
        (_set("GB", 1, "url", "http://www.samaritans.org"), ("GB", "lines", 1, "url"), "https"),
        (_set("GB", 1, "url", "samaritans.org"), ("GB", "lines", 1, "url"), "https"),
        (_set("GB", 1, "verified", True), ("GB", "lines", 1, "verified"), "in quotes"),
        (_set("GB", 1, "verified", "NO"), ("GB", "lines", 1, "verified"), "must not ship"),
        (_set("GB", 1, "verified", "maybe"), ("GB", "lines", 1, "verified"), '"partial"'),
        (_set("GB", 1, "sms", "116 123"), ("GB", "lines", 1, "sms"), "did you mean 'text'"),
        (_set("GB", 1, "free", "yes"), ("GB", "lines", 1, "free"), "true or false"),
        (_set("GB", 1, "whatsapp", "+44 ab"), ("GB", "lines", 1, "whatsapp"), "phone number"),
        (_set("GB", 1, "chat", "http://x.org"), ("GB", "lines", 1, "chat"), "https"),
        (lambda raw: raw["GB-SCT"].pop("names"), ("GB-SCT", "names"), "names maps"),
        (lambda raw: raw["GB-SCT"]["names"].pop("nl"), ("GB-SCT", "names"), "'nl'"),
        (lambda raw: raw["GB-SCT"].update(part_of="IE"), ("GB-SCT", "part_of"), "part_of: GB"),
        (lambda raw: raw.update({"XX-ABC": raw.pop("GB-SCT")}), ("XX-ABC",), "no entry"),
        (_set("GB", 1, "hours", ["24/7"]), ("GB", "lines", 1, "hours"), "non-empty text"),
        (
            lambda raw: [_line(raw, "GB", 1).pop(k) for k in ("phone", "url")],
            ("GB", "lines", 1),
            "at least one of phone, text, whatsapp, chat or url",
        ),
        (
            lambda raw: raw["GB"]["lines"].reverse(),
            ("GB", "lines", 2, "kind"),
            "lines go in the order",
        ),
        (lambda raw: raw["DE"]["lines"].pop(0), ("DE", "lines"), "emergency line"),
        (lambda raw: raw["DE"].update(lines=[]), ("DE", "lines"), "non-empty list"),
        (lambda raw: raw["DE"].pop("name"), ("DE", "name"), "name"),
        (lambda raw: raw["DE"].update(flag="🇩🇪"), ("DE", "flag"), "unknown field"),
        (lambda raw: raw.update(UK=raw.pop("GB")), ("UK",), "use GB"),
        (lambda raw: raw.update(gb=raw.pop("GB")), ("gb",), "two-letter"),
        (lambda raw: raw.update(USA=raw.pop("US")), ("USA",), "two-letter"),
        (lambda raw: raw.update(PT="Portugal"), ("PT",), "mapping"),
        (lambda raw: raw["FR"]["lines"].__setitem__(0, "17"), ("FR", "lines", 0), "mapping"),
        (lambda raw: raw.pop(INTL), (), "INTL"),
    ],
)
def test_each_injected_problem_is_found(mutate: Any, path: tuple[Any, ...], words: str) -> None:
    problems = _broken(mutate)
    found = [p for p in problems if p.path == path]
    assert found, problems
    assert any(words in p.message for p in found), found


def test_top_level_must_be_a_mapping() -> None:
    assert [p.path for p in validate_helplines([])] == [()]


def test_checked_may_be_quoted() -> None:
    raw = _raw()
    raw["GB"]["lines"][1]["checked"] = "2026-11-29"
    assert validate_helplines(raw) == []
    assert parse_helplines(raw)["GB"].lines[1].checked == datetime.date(2026, 11, 29)


# --- lines_for --------------------------------------------------------------------------------


def test_lines_for_a_known_country_follows_the_order_of_kinds() -> None:
    found = lines_for(_book(), "GB", ["crisis", "emergency"])
    assert [line.kind for line in found] == ["crisis", "crisis", "emergency"]
    assert [line.name for line in found] == ["Samaritans", "Shout", "Emergency"]


def test_lines_for_is_case_insensitive() -> None:
    assert lines_for(_book(), "de", ["emergency"]) == lines_for(_book(), "DE", ["emergency"])


@pytest.mark.parametrize("country", [None, "", "JP", "XX", "portugal"])
def test_lines_for_falls_back_to_intl(country: str | None) -> None:
    found = lines_for(_book(), country, ["emergency", "other"])
    assert found == list(_book()[INTL].lines)


def test_lines_for_falls_back_when_the_country_has_none_of_those_kinds() -> None:
    # The US has no line of kind "other"; an empty reply would leave the person with nothing.
    found = lines_for(_book(), "US", ["other"])
    assert [line.name for line in found] == ["Find A Helpline"]


def test_lines_for_accepts_a_single_kind_string() -> None:
    assert [line.phone for line in lines_for(_book(), "FR", "domestic_abuse")] == ["3919"]
