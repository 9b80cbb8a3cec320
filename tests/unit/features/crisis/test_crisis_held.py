"""The rule for crisis text inside an answer or a journal reply, with the real detector."""

from __future__ import annotations

import json

import pytest

from bot.features.crisis.held import (
    HELD_LIMIT,
    Held,
    HeldDecision,
    decide,
    held_texts,
    hold,
    replace_text,
    take,
)
from bot.matching.crisis import CrisisDetector
from bot.people.profile import Profile
from tests.helpers.bot import shared_content


@pytest.fixture(scope="module")
def detector() -> CrisisDetector:
    return shared_content().detector


def capture(detector: CrisisDetector, text: str, *, safety_plan: bool = False) -> HeldDecision:
    return decide(detector.detect(text), text, detector.covers, safety_plan=safety_plan)


@pytest.mark.parametrize(
    "text",
    [
        "help",
        "HEEELP!!!",
        "Help!!",
        "help me please",
        "I need help",
        "I need help please",
        "ayuda",
        "socorro",
        "au secours",
        "hilfe",
        "aiuto",
        "hulp",
        "sos",
        "🆘",
        "danger",
        "gevaar",
        "peligro",
        "call the police",
    ],
)
def test_only_a_crisis_word_is_discarded(detector: CrisisDetector, text: str) -> None:
    assert capture(detector, text) is HeldDecision.DISCARD
    assert capture(detector, text, safety_plan=True) is HeldDecision.DISCARD


@pytest.mark.parametrize(
    "text",
    [
        "he raped me",  # every word a term, but a sentence of their own: asked, not dropped
        "he is outside",
        "I want to die",
        "most days I feel unsafe at home",
        "honestly I can't cope with any of this",
        "my answer is help",
        "help, I think he is outside the house and I don't know what to do",
        "I was in danger back then but I'm safe now",
    ],
)
def test_longer_text_asks(detector: CrisisDetector, text: str) -> None:
    assert capture(detector, text) is HeldDecision.ASK


def test_no_match_keeps(detector: CrisisDetector) -> None:
    assert capture(detector, "I went for a walk and felt calmer") is HeldDecision.KEEP
    assert (
        decide(None, "help", detector.covers) is HeldDecision.KEEP
    )  # no match given: nothing to do


def test_safety_plan_answers(detector: CrisisDetector) -> None:
    # The held-out set's safety-plan lines: the detector finds nothing, so plain "Saved".
    for text in (
        "my sister could help if things feel unsafe",
        "I'd go to my friend's house if I felt unsafe",
        "my safety plan: call Anna, go to mum's, keep my bag by the door",
    ):
        assert capture(detector, text, safety_plan=True) is HeldDecision.KEEP
    # Tier 2 inside the safety plan: the quiet line, not the check.
    assert capture(detector, "I'm scared of him", safety_plan=True) is HeldDecision.KEEP_QUIETLY
    assert capture(detector, "I'm scared of him") is HeldDecision.ASK
    # Tier 1 stays the emergency reply, and the choice.
    assert capture(detector, "he said he'd kill me", safety_plan=True) is HeldDecision.ASK


def test_covers_follows_normalisation(detector: CrisisDetector) -> None:
    assert detector.covers("H E L P")
    assert detector.covers("hééélp!!!")
    assert not detector.covers("please help me understand this question")
    assert not detector.covers("I want to die")  # "I" is outside the term: still asked
    assert not detector.covers("")


def test_held_texts_round_trip_through_the_profile_json() -> None:
    profile = Profile()
    hold(profile, Held(5, "text one", worksheet_id="bond_or_love", question_id="q1"))
    hold(profile, Held(6, "text two", prompt_id="p1", journal=True))
    hold(profile, Held(7, "free journal", journal=True))
    again = Profile.from_json(profile.to_json())
    assert held_texts(again) == [
        Held(5, "text one", worksheet_id="bond_or_love", question_id="q1"),
        Held(6, "text two", prompt_id="p1", journal=True),
        Held(7, "free journal", journal=True),
    ]
    assert replace_text(again, 6, "edited")
    assert not replace_text(again, 99, "nothing")
    assert take(again, 6) == Held(6, "edited", prompt_id="p1", journal=True)
    assert take(again, 6) is None  # a second press finds nothing
    assert [h.message_id for h in held_texts(again)] == [5, 7]


def test_held_texts_are_bounded_and_bad_entries_ignored() -> None:
    profile = Profile()
    for n in range(HELD_LIMIT + 3):
        hold(profile, Held(n, f"t{n}", worksheet_id="w", question_id="q"))
    hold(profile, Held(5, "again", worksheet_id="w", question_id="q"))  # same message: replaced
    ids = [h.message_id for h in held_texts(profile)]
    assert len(ids) == HELD_LIMIT and ids[-1] == 5 and ids.count(5) == 1
    malformed = [{"m": "x", "t": 1}, {"m": 1, "t": "no place"}, "text", None]  # dropped
    stored = json.loads(profile.to_json())
    stored["parts"]["held"]["texts"] += malformed
    assert held_texts(Profile.from_json(json.dumps(stored))) == held_texts(profile)
    # The flat layout (written before records) holds them at the top: read alike.
    flat = {"revision": 3, "held": [h.to_raw() for h in held_texts(profile)] + malformed}
    assert held_texts(Profile.from_json(json.dumps(flat))) == held_texts(profile)
    for shape in ({"texts": "not a list"}, {}):
        stored["parts"]["held"] = shape
        assert held_texts(Profile.from_json(json.dumps(stored))) == []
