"""The sealed profile's records (bot/people/profile.py): a real flat-layout row opens
unchanged and is written in the records' layout, nothing unclaimed is lost, and a record is
decoded only when asked for."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

from bot.features.checkins.prefs import CheckinPrefs
from bot.features.crisis.held import HeldTexts
from bot.features.urge.prefs import UrgePrefs
from bot.framework.hub import Hub
from bot.people.profile import PARTS, Profile, Record, check_record
from tests.helpers.old_profile import (
    EXPECTED,
    FLAT_ROW,
    SHARED,
    UNCLAIMED,
    flat_field_names,
    registered_records,
    stored,
)


def shared_of(profile: Profile) -> dict[str, Any]:
    return {name: getattr(profile, name) for name in SHARED}


def test_every_feature_registers_its_record_once() -> None:
    kinds = registered_records()
    assert set(kinds) == {type(record) for record in EXPECTED}
    assert len({kind.KEY for kind in kinds}) == len(kinds)


def test_a_flat_row_opens_with_every_field_where_its_record_reads_it() -> None:
    profile = Profile.from_json(FLAT_ROW)
    assert shared_of(profile) == SHARED
    for record in EXPECTED:
        assert profile.part(type(record)) == record


def test_a_save_writes_the_records_layout_and_keeps_what_no_record_claims() -> None:
    kinds = registered_records()
    profile = Profile.from_json(FLAT_ROW)
    profile.part(UrgePrefs).urge_offers = True  # one record read and changed, the rest not
    written = stored(profile.to_json(kinds))
    top = set(written) - {PARTS}
    # Only the shared fields and the unclaimed key stay at the top; every flat field of a
    # record moved into its part (also the records nobody asked for this time).
    assert top == set(SHARED) | set(UNCLAIMED)
    assert written["zz_removed_feature"] == UNCLAIMED["zz_removed_feature"]
    assert set(written[PARTS]) == {kind.KEY for kind in kinds}
    assert not (flat_field_names() - set(SHARED)) & top
    again = Profile.from_json(profile.to_json(kinds))
    assert shared_of(again) == SHARED
    for record in EXPECTED:
        want = UrgePrefs(urge_offers=True, urge_offered_on="2026-11-28")
        assert again.part(type(record)) == (want if isinstance(record, UrgePrefs) else record)
    assert stored(again.to_json(kinds)) == written  # the new layout reads back as written


def test_a_record_no_feature_registers_stays_as_it_was() -> None:
    """A save by code that knows no record (a tool, a feature removed) loses nothing: the
    flat fields stay at the top, and a part it does not know stays in `parts`."""
    flat = Profile.from_json(FLAT_ROW)
    assert stored(flat.to_json()) == {**stored(FLAT_ROW), PARTS: {}}
    written = Profile.from_json(FLAT_ROW).to_json(registered_records())
    assert stored(Profile.from_json(written).to_json()) == stored(written)
    raw = stored(written)
    raw[PARTS]["gone"] = {"anything": [1]}
    raw[PARTS]["urge"]["a_field_dropped_since"] = "still here"
    profile = Profile.from_json(json.dumps(raw))
    profile.part(UrgePrefs).urge_offers = True
    again = stored(profile.to_json(registered_records()))
    assert again[PARTS]["gone"] == {"anything": [1]}
    assert again[PARTS]["urge"]["a_field_dropped_since"] == "still here"
    assert again[PARTS]["urge"]["urge_offers"] is True


def test_a_new_person_has_every_records_defaults() -> None:
    profile = Profile()
    assert profile.part(CheckinPrefs) == CheckinPrefs()
    assert profile.part(HeldTexts).texts == ()
    assert stored(Profile().to_json(registered_records()))[PARTS] == {}  # nothing to move
    profile.part(CheckinPrefs).daily_time = "07:00"
    assert Profile.from_json(profile.to_json()).part(CheckinPrefs).daily_time == "07:00"


@dataclass
class Counted(Record):
    KEY: ClassVar[str] = "counted"
    decoded: ClassVar[int] = 0

    value: int = 0

    @classmethod
    def decode(cls, values: dict[str, Any]) -> Counted:
        cls.decoded += 1
        return super().decode(values)


def test_a_record_is_decoded_only_when_asked_for_and_once() -> None:
    text = Profile().holding(Counted(value=3)).to_json()
    Counted.decoded = 0
    profile = Profile.from_json(text)
    assert Counted.decoded == 0
    profile.part(CheckinPrefs)
    assert Counted.decoded == 0
    assert profile.part(Counted).value == 3 and profile.part(Counted).value == 3
    assert Counted.decoded == 1
    stored(profile.to_json([Counted]))
    assert Counted.decoded == 1  # a save does not decode it again
    Profile.from_json(text).to_json([Counted])
    assert Counted.decoded == 1  # nor one that was never read


@dataclass
class Clashing(Record):
    KEY: ClassVar[str] = "urge"


@dataclass
class Shared(Record):
    KEY: ClassVar[str] = "mine"

    country: str = ""


def test_a_record_needs_a_key_and_fields_of_its_own() -> None:
    hub = Hub()
    hub.profile_record(UrgePrefs)
    with pytest.raises(ValueError, match="two profile records"):
        hub.profile_record(Clashing)
    with pytest.raises(ValueError, match="shared fields"):
        check_record(Shared, [])
    with pytest.raises(ValueError, match="KEY"):
        check_record(Record, [])


def test_a_part_that_is_not_an_object_does_not_open() -> None:
    raw = stored(Profile().holding(UrgePrefs()).to_json())
    raw[PARTS]["urge"] = [1, 2]
    profile = Profile.from_json(json.dumps(raw))
    with pytest.raises(TypeError):
        profile.part(UrgePrefs)
    with pytest.raises(TypeError):
        Profile.from_json("[1]")
