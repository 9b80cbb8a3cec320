"""The rules' false emergencies on hard calm messages (issue 22): a warning sign, a task the
person asks help with, the bot's own emergency button, hyperbole about bills and bosses,
an old threat told as the past; a help word said laughing, a code word with a friend who
calls the police, a question about the procedure, someone else's story at a support group,
recovery told ("I can say it now without shaking"), a word of one language that means
something else in another ("molestar", "viola"). Each of these got the emergency reply
before; the crisis beside each must still get it."""

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
    "SOCORRO o bolo solou de novo kkkkk",
    "auxilio que mañana es la fiesta del cole y no tengo disfraz jajaja",
    "au secours j'ai oublié l'anniversaire de ma belle-mère 😂",
    "help I have 40 cupcakes to ice by 8 lol",
    "hilfe, der Hund hat schon wieder die Fernbedienung gefressen haha",
    "my cousin and I agreed that if I send her a pizza emoji she calls the police",
    "si je lui envoie le mot 'parapluie', elle appelle le 17 pour moi",
    "combinamos que se eu mandar 'abacate' ela liga pro 190",
    "wenn ich ihr 'Gurke' schreibe, ruft sie die Polizei",
    "als ik 'tulp' stuur belt mijn zus de politie",
    "if he breaks the order do I ring the police or my solicitor first?",
    "perdona que te moleste, ¿puedo molestar con una pregunta sobre el horario?",
    "la maglietta viola è in lavatrice, la metto domani",
    "at group a woman shared how her ex strangled her years ago and how she got free",
    "my ex raped me while we were married. I've worked through it, I can talk about it "
    "now without shaking",
    "il mio gatto prova ad ammazzarmi ogni mattina sulle scale",
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
    "help he's outside",
    "socorro ele tá batendo na porta",
    "if I call the police he said he will kill me",
    "se chiamo la polizia mi ammazza, ha detto",
    "se eu ligar pra polícia ele me mata",
    "mi ex me violó anoche",
    "he strangled me last night",
    "molested me when I was asleep",
]


@pytest.mark.parametrize("message", CALM)
def test_hard_calm_gets_no_emergency_reply(detector: CrisisDetector, message: str) -> None:
    match = detector.detect(message)
    assert match is None or not match.certain, (message, match)


@pytest.mark.parametrize("message", CRISIS)
def test_the_crisis_beside_it_still_does(detector: CrisisDetector, message: str) -> None:
    match = detector.detect(message)
    assert match is not None and match.certain, (message, match)


# The rules' checks ("Are you safe right now?") on calm lines: a stalker in a podcast or a
# film, how to report harassment, a first-aid course, a help word before a small decision,
# "doesn't help", help one day in the future, an ordinary word a typo guess took for a
# crisis word ("geschlafen" is not "geschlagen").
CALM_NOTHING = [
    "listening to a podcast about a woman who caught her stalker, gripping",
    "vi una serie sobre acoso escolar, muy dura pero buena",
    "dans ce film il y a un stalker qui suit l'héroïne partout, j'ai eu peur pour elle",
    "gestern ein Buch über einen Stalker gelesen, spannend bis zum Ende",
    "ho visto un documentario su uno stalker, agghiacciante",
    "we keken een film over een stalker, best eng",
    "how do I report him for harassment at the office? just asking for the steps",
    "Erste-Hilfe-Kurs heute, jetzt kann ich eine stabile Seitenlage",
    "help I can't decide between pasta or pizza tonight",
    "ajuda, não sei se compro o vestido azul ou o verde",
    "esse remédio para dor de cabeça não ajuda nada",
    "si un jour j'ai besoin d'aide, c'est quel numéro ? juste pour savoir",
    "der Kleine hat heute endlich durchgeschlafen, die Kinder haben gut geschlafen",
]


@pytest.mark.parametrize("message", CALM_NOTHING)
def test_hard_calm_gets_no_check_either(detector: CrisisDetector, message: str) -> None:
    assert detector.detect(message) is None, message
