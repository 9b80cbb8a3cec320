"""The model's second opinion on the rules' reply: a calm text that uses a crisis's words
goes one step down (the emergency reply a check, a check nothing), a crisis keeps its
reply, short pleas and texts the n-gram view finds worrying never wait, and the wait is
bounded: a model that is loading, slow or failing leaves the rules' reply as it is."""

from __future__ import annotations

import asyncio
import math
import threading

import numpy as np
import pytest

from bot.content.loader import load_content
from bot.features.crisis import screen as crisis_screen
from bot.features.crisis.screen import ModelScreen
from bot.matching import crisis_model
from bot.matching.crisis import CERTAIN, UNCERTAIN, CrisisDetector, CrisisKind, CrisisMatch
from bot.matching.crisis_model import (
    HEAD_FILE,
    KINDS,
    CrisisModel,
    Detect,
    Head,
    Thresholds,
    View,
    char_grams,
)
from bot.matching.model_gate import EMERGENCY_CALM_BELOW, EMERGENCY_WITHDRAWN_BELOW
from bot.matching.sentences import clauses
from tests.helpers.crisis_model import (
    CALM_CHECK,
    CALM_EMERGENCY,
    CALM_LAST_CLAUSE,
    CALM_WITHDRAWN,
    CRISES,
    DILUTED,
)

BUCKETS = 1 << 10
ROWS = 1 + len(KINDS) + 1
EMERGENCY = CrisisMatch(CrisisKind.DANGER, frozenset({CrisisKind.DANGER}), CERTAIN, "danger_now")
CHECK = CrisisMatch(CrisisKind.DANGER, frozenset({CrisisKind.DANGER}), UNCERTAIN, "stalking")


CALM_TEXT = "we practised the recovery position in class today"


def knife_model(calm_logit: float = -6.0) -> CrisisModel:
    """A char-only model: a text holding "knife" is a crisis (and worrying to the n-gram
    view), CALM_TEXT is calm with confidence (no n-gram of it counts)."""
    weights = np.zeros((ROWS, BUCKETS), np.float32)
    bias = np.zeros(ROWS, np.float32)
    bias[0] = calm_logit
    grams = np.setdiff1d(char_grams("knife", BUCKETS), char_grams(CALM_TEXT, BUCKETS))
    weights[0, grams] = 12.0 * np.sqrt(len(grams))
    head = Head(None, View(weights, bias), BUCKETS, Thresholds(0.5, 0.9, 0.5, 0.3), {})
    return CrisisModel(head, None)


def test_a_calm_text_goes_one_step_down_and_a_crisis_keeps_its_reply() -> None:
    model = knife_model(calm_logit=-3.2)  # P(crisis) of CALM_TEXT about 0.04
    down = model.second_opinion(CALM_TEXT, EMERGENCY)
    assert down is not None and down.tier == UNCERTAIN and down.kind == EMERGENCY.kind
    assert model.second_opinion(CALM_TEXT, CHECK) is None
    knife = "he has a knife and he is at the door"
    assert not model.needs_second_opinion(knife)  # worrying at a glance: it never waits
    assert model.second_opinion(knife, EMERGENCY) is EMERGENCY


def test_an_emergency_reply_read_as_surely_calm_is_withdrawn() -> None:
    model = knife_model()  # P(crisis) of CALM_TEXT about 0.0025
    score = model.score(CALM_TEXT)
    assert score is not None and score.crisis < EMERGENCY_WITHDRAWN_BELOW
    assert model.second_opinion(CALM_TEXT, EMERGENCY) is None
    near = knife_model(calm_logit=-3.8)  # about 0.022: just above, a check
    score = near.score(CALM_TEXT)
    assert score is not None and score.crisis >= EMERGENCY_WITHDRAWN_BELOW
    down = near.second_opinion(CALM_TEXT, EMERGENCY)
    assert down is not None and down.tier == UNCERTAIN


def test_a_check_needs_a_calmer_reading_to_be_withdrawn_than_an_emergency_to_be_asked() -> None:
    """Withdrawing a check leaves nothing, so it takes a surer reading than turning the
    emergency reply into a check: at P(crisis) 0.07 only the second happens."""
    model = knife_model(calm_logit=-2.6)  # P(crisis) of CALM_TEXT about 0.07
    score = model.score(CALM_TEXT)
    assert score is not None and 0.05 < score.crisis < 0.1
    down = model.second_opinion(CALM_TEXT, EMERGENCY)
    assert down is not None and down.tier == UNCERTAIN
    assert model.second_opinion(CALM_TEXT, CHECK) is CHECK


def test_short_pleas_never_wait_for_the_model() -> None:
    model = knife_model()
    for text in ("help", "help me", "please help me", "ayuda por favor ya"):
        assert not model.needs_second_opinion(text), text
        assert model.second_opinion(text, EMERGENCY) is EMERGENCY


def _shipped() -> tuple[CrisisDetector, CrisisModel]:
    """The shipped rules and model, its encoder loaded."""
    model = crisis_screen.shared_model(HEAD_FILE)
    assert model is not None and model.encoder is not None
    return load_content().detector, model


def test_the_shipped_model_weighs_the_shipped_rules() -> None:
    """With the real rules and encoder: the calm texts go down, the crises keep the
    emergency reply even when the encoder is asked about every one of them."""
    detector, model = _shipped()
    rules = detector.detect(CALM_EMERGENCY)
    assert rules is not None and rules.certain
    down = model.second_opinion(CALM_EMERGENCY, rules)
    assert down is not None and down.tier == UNCERTAIN
    rules = detector.detect(CALM_CHECK)
    assert rules is not None and not rules.certain
    assert model.second_opinion(CALM_CHECK, rules) is None
    rules = detector.detect(CALM_WITHDRAWN)
    assert rules is not None and rules.certain
    assert model.second_opinion(CALM_WITHDRAWN, rules) is None
    for text in CRISES:
        rules = detector.detect(text)
        assert rules is not None and rules.certain, text
        assert model.second_opinion(text, rules) is rules, text


def test_a_crisis_diluted_in_the_days_news_keeps_its_reply() -> None:
    """Read whole these are calm to the model; their last clause or their short sentence,
    read alone, is not (one such line of an older set went from the emergency reply to a
    check before the second opinion read them)."""
    detector, model = _shipped()
    for text in DILUTED:
        rules = detector.detect(text)
        assert rules is not None and rules.certain, text
        whole = model.score(text)
        assert whole is not None and whole.crisis < EMERGENCY_CALM_BELOW, text
        assert model.needs_second_opinion(text), text
        assert model.second_opinion(text, rules, detector.detect) is rules, text


def test_a_last_clause_without_the_rules_words_is_not_read_alone() -> None:
    """Read alone, "how do i help him understand" sounds like a plea; it is read alone only
    where the rules find their crisis in it, so these calm texts go one step down."""
    detector, model = _shipped()
    for text in CALM_LAST_CLAUSE:
        rules = detector.detect(text)
        assert rules is not None and rules.certain, text
        last = clauses(text)[-1]
        assert detector.detect(last) is None, text
        alone = model.score(last)
        assert alone is not None and alone.crisis >= EMERGENCY_CALM_BELOW, text
        assert model.needs_second_opinion(text), text
        down = model.second_opinion(text, rules, detector.detect)
        assert down is None or down.tier == UNCERTAIN, text


def test_crises_keep_their_reply_when_the_encoder_reads_them_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    detector, model = _shipped()
    monkeypatch.setattr(crisis_model, "SECOND_OPINION_ABOVE", math.inf)
    for text in CRISES:
        assert model.needs_second_opinion(text)
        rules = detector.detect(text)
        assert rules is not None
        assert model.second_opinion(text, rules) is rules, text


async def test_the_screen_gives_the_second_opinion_first_in_the_queue() -> None:
    release = threading.Event()
    read: list[str] = []

    class Recording(CrisisModel):
        def assess(self, text: str, rules: CrisisMatch | None) -> CrisisMatch | None:
            release.wait(5)
            read.append(text)
            return super().assess(text, rules)

        def weigh(
            self, text: str, rules: CrisisMatch, detect: Detect | None = None
        ) -> CrisisMatch | None:
            read.append(text)
            return super().weigh(text, rules, detect)

    base = knife_model(calm_logit=-3.2)  # CALM_TEXT one step down, not withdrawn
    screen = ModelScreen(Recording(base.head, None), budget=10.0)
    screen.second_wait = 10.0
    blocker = asyncio.create_task(screen.assess("first in", None, 1))
    await asyncio.sleep(0.05)  # the worker holds it
    waiting = [asyncio.create_task(screen.assess(f"a knife {i}", None, i)) for i in range(5)]
    weighing = asyncio.create_task(screen.second_opinion(CALM_TEXT, EMERGENCY, 7))
    await asyncio.sleep(0.05)
    release.set()
    down = await weighing
    assert down is not None and down.tier == UNCERTAIN
    await asyncio.gather(blocker, *waiting)
    assert read.index(CALM_TEXT) == 1  # next after the one being read
    assert screen.lowered == 1


async def test_a_slow_loading_or_failing_model_leaves_the_rules_reply_as_it_is() -> None:
    release = threading.Event()

    class Slow(CrisisModel):
        def weigh(
            self, text: str, rules: CrisisMatch, detect: Detect | None = None
        ) -> CrisisMatch | None:
            release.wait(5)
            return None

    base = knife_model()
    screen = ModelScreen(Slow(base.head, None))
    screen.second_wait = 0.05
    assert await screen.second_opinion(CALM_TEXT, CHECK) is CHECK  # past its wait: as it is
    release.set()

    class Failing(CrisisModel):
        def weigh(
            self, text: str, rules: CrisisMatch, detect: Detect | None = None
        ) -> CrisisMatch | None:
            raise RuntimeError("the encoder broke")

    screen = ModelScreen(Failing(base.head, None))
    assert await screen.second_opinion(CALM_TEXT, CHECK) is CHECK

    loading = threading.Event()
    screen = ModelScreen(load=lambda: (loading.wait(5), knife_model())[1])
    screen.start()
    # While the model loads, the rules' reply is not held: it comes back at once.
    assert await asyncio.wait_for(screen.second_opinion(CALM_TEXT, EMERGENCY), 1) is EMERGENCY
    loading.set()
