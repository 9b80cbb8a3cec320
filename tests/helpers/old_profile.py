"""A person's settings as the flat layout sealed them (before per-feature records,
bot/people/profile.py): the JSON below is what main's `Profile.to_json()` wrote at
8898970, every field set away from its default, plus one key no record claims (a removed
feature's). What each record must read from it is beside it."""

from __future__ import annotations

import json
from typing import Any

from bot.features.checkins.prefs import CheckinPrefs
from bot.features.crisis.held import Held, HeldTexts
from bot.features.discretion.prefs import DiscretionPrefs
from bot.features.progress.prefs import NoContactPrefs
from bot.features.record.prefs import RecordPrefs
from bot.features.setup.prefs import SetupPrefs
from bot.features.urge.prefs import UrgePrefs
from bot.features.worksheets.prefs import WorksheetPrefs
from bot.people.profile import Record
from tests.helpers.codecs import installed

HELD_CANARY = "OLD-LAYOUT-HELD-CANARY"

FLAT_ROW = (
    '{"active_worksheet":"safety_plan","country":"ES","cover":true,"cover_day":"2026-11-30",'
    '"cover_language":"es","cover_replies":2,"cover_sequence":3,"daily_days":[0,2,4],'
    '"daily_enabled":true,"daily_time":"20:15","decoy_theme":"recipe","discreet":true,'
    '"held":[{"m":11,"q":"q1","t":"' + HELD_CANARY + '","w":"safety_plan"},'
    '{"j":"p3","m":12,"t":"a journal reply"},{"m":"bad"}],'
    '"journal_closed":"2026-11-29","language":"es","neutral_wording":true,'
    '"nocontact_in_checkin":true,"onboarded":true,'
    '"panic_digest":"abababababababababababababababababababababababababababababababab",'
    '"panic_erases":true,"paused":true,"pending_worksheet":"boundaries",'
    '"record_offered_on":"2026-11-27","record_offers":false,'
    '"return_digest":"cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd",'
    '"revision":5,"settings_message":77,"shared_device":true,"silent":true,'
    '"skip_date":"2026-11-30","timezone":"Europe/Madrid","urge_offered_on":"2026-11-28",'
    '"urge_offers":false,"word_key":null,"zz_removed_feature":{"kept":[1,2]}}'
)
# The shared fields it holds.
SHARED = {
    "language": "es",
    "country": "ES",
    "timezone": "Europe/Madrid",
    "onboarded": True,
    "revision": 5,
    "discreet": True,
    "neutral_wording": True,
    "silent": True,
    "cover": True,
}
UNCLAIMED = {"zz_removed_feature": {"kept": [1, 2]}}
EXPECTED: tuple[Record, ...] = (
    CheckinPrefs(
        daily_time="20:15",
        daily_days=(0, 2, 4),
        daily_enabled=True,
        paused=True,
        skip_date="2026-11-30",
        journal_closed="2026-11-29",
    ),
    SetupPrefs(shared_device=True, settings_message=77),
    WorksheetPrefs(active_worksheet="safety_plan", pending_worksheet="boundaries"),
    UrgePrefs(urge_offers=False, urge_offered_on="2026-11-28"),
    NoContactPrefs(nocontact_in_checkin=True),
    RecordPrefs(record_offers=False, record_offered_on="2026-11-27"),
    DiscretionPrefs(
        panic_digest="ab" * 32,
        return_digest="cd" * 32,
        word_key=None,
        decoy_theme="recipe",
        panic_erases=True,
        cover_sequence=3,
        cover_replies=2,
        cover_day="2026-11-30",
        cover_language="es",
    ),
    # The malformed third one is dropped when read, as before records.
    HeldTexts(
        (
            Held(11, HELD_CANARY, worksheet_id="safety_plan", question_id="q1"),
            Held(12, "a journal reply", prompt_id="p3", journal=True),
        )
    ),
)


def registered_records() -> list[type[Record]]:
    """The records the bot's features register, as bot/wiring.py collects them."""
    return installed().records


def flat_field_names() -> set[str]:
    return set(json.loads(FLAT_ROW)) - set(UNCLAIMED)


def stored(text: str) -> dict[str, Any]:
    raw: dict[str, Any] = json.loads(text)
    return raw
