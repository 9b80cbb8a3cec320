"""The rules' false emergencies on hard calm messages (issue 22): a warning sign, a task the
person asks help with, the bot's own emergency button, hyperbole about bills and bosses,
an old threat told as the past. Each of these got the emergency reply before; the crisis
beside each must still get it."""

from __future__ import annotations

import pytest
import yaml

from bot.content.loader import content_dir
from bot.matching.crisis import CrisisDetector


@pytest.fixture(scope="module")
def detector() -> CrisisDetector:
    terms = yaml.safe_load((content_dir() / "crisis_terms.yaml").read_text(encoding="utf-8"))
    return CrisisDetector.from_terms(terms)


CALM = [
    "the gate at the quarry has a DANGER KEEP OUT sign and my daughter wants a photo with it",
    "en la carretera hay un cartel de peligro de desprendimientos, fuimos despacio",
    "panneau danger travaux devant l'école, la rue est fermée jusqu'à vendredi",
    "al lago c'è il cartello pericolo di annegamento, abbiamo fatto solo il picnic",
    "bij de sloot staat een bordje gevaar voor ijs, de kinderen vonden het spannend",
    "placa de perigo de queda na trilha, a gente tirou foto de longe",
    "ayúdame a escribir un mensaje para la guardería sobre quién recoge a los niños",
    "hilf mir mal zu verstehen, was in dem Brief vom Jugendamt steht",
    "was passiert wenn ich den notfall knopf drücke? nur damit ich es weiß",
    "esta factura del gas me va a matar jaja",
    "ce dossier va me tuer, encore deux heures de boulot",
    "diese Klausur bringt mich um, morgen um acht",
    "essa prova vai me matar, estudei a noite toda",
    "mijn baas vermoordt me als ik weer te laat ben",
    "il caldo mi ammazzerà, 38 gradi in ufficio",
    "he threatened to kill me back in 2018. he was convicted and I moved cities",
]

CRISIS = [
    "danger",
    "il va me tuer",
    "me va a matar, está en la puerta",
    "er bringt mich um",
    "ele vai me matar",
    "hij gaat me vermoorden",
    "mi ammazzerà stasera",
    "he threatened to kill me tonight",
]


@pytest.mark.parametrize("message", CALM)
def test_hard_calm_gets_no_emergency_reply(detector: CrisisDetector, message: str) -> None:
    match = detector.detect(message)
    assert match is None or not match.certain, (message, match)


@pytest.mark.parametrize("message", CRISIS)
def test_the_crisis_beside_it_still_does(detector: CrisisDetector, message: str) -> None:
    match = detector.detect(message)
    assert match is not None and match.certain, (message, match)
