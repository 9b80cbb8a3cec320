"""The crisis detector against the real terms file, the old hand-written corpora and the
evaluation sets.

tests/data/crisis_must_trigger.txt and crisis_must_not_trigger.txt are the first detector's
regression lists (kind and tier per message). tests/data/crisis_eval.tsv (development) and
crisis_eval_heldout.tsv (written before any tuning, never tuned on) give each message a
language, a category and the tier it should get; the run prints recall and false alarms per
language and per category. Property tests take literal terms from the file and mangle them the
way people type under stress and check they are still found.
"""

from __future__ import annotations

import collections
import copy
import functools
import re
from pathlib import Path as FilePath
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.content.crisis_terms import validate_terms
from bot.core.languages import LANGUAGES
from bot.core.problems import Problem
from bot.matching.crisis import (
    CERTAIN,
    ROLES,
    UNCERTAIN,
    WORDS,
    CrisisDetector,
    CrisisKind,
    CrisisMatch,
    normalize,
    parse_categories,
)
from bot.matching.model_gate import temper
from bot.matching.patterns import PatternError, compile_pattern
from tests.helpers.reporting import report

ROOT = FilePath(__file__).resolve().parents[3]
TERMS_FILE = ROOT / "content" / "crisis_terms.yaml"
DATA = ROOT / "tests" / "data"
# Every category of the guide, in every language.
REQUIRED = {
    "help", "danger_now", "threat", "strangulation", "sexual_violence", "child", "stalking",
    "suicide", "suicide_plan", "suicide_indirect", "overdose", "self_harm", "slang", "distress",
}  # fmt: skip


@functools.cache
def _raw_terms() -> Any:
    # Read once: hypothesis draws call this for every example. Callers that change it copy.
    with TERMS_FILE.open(encoding="utf-8") as handle:
        return yaml.load(handle, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


@functools.cache
def _detector() -> CrisisDetector:
    return CrisisDetector.from_terms(_raw_terms())


def _tier(message: str) -> int:
    match = _detector().detect(message)
    return 0 if match is None else match.tier


def _corpus_lines(name: str) -> list[tuple[int, str]]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [
        (number, line)
        for number, line in enumerate(lines, start=1)
        if line.strip() and not line.lstrip().startswith("#")
    ]


def _must_trigger() -> list[tuple[int, CrisisKind, int, str]]:
    cases = []
    for number, line in _corpus_lines("crisis_must_trigger.txt"):
        kind, tier, message = line.split("\t", 2)
        cases.append((number, CrisisKind(kind), int(tier), message))
    return cases


_SYNTAX = re.compile(r"[*|\[\]@^$=<>]|\.\.|_")


@functools.cache
def _literal_terms() -> list[tuple[str, CrisisKind, str]]:
    """Patterns that are plain phrases (no pattern syntax), with their category's kind."""
    raw = _raw_terms()
    categories = parse_categories(raw["categories"])
    return [
        (language, categories[role].kind, term)
        for language, by_role in raw["languages"].items()
        for role, terms in by_role.items()
        if role in categories
        for term in terms
        if not _SYNTAX.search(term)
    ]


# --- the real terms file ------------------------------------------------------------------


def test_terms_file_is_valid() -> None:
    assert validate_terms(_raw_terms()) == []


def test_every_language_has_every_category() -> None:
    languages = _raw_terms()["languages"]
    assert set(languages) == set(LANGUAGES)
    for language, by_role in languages.items():
        missing = REQUIRED - set(by_role)
        assert not missing, (language, missing)
        assert {"not_crisis", "past", "safe_now"} <= set(by_role), language


@pytest.mark.parametrize(("language", "kind", "term"), _literal_terms())
def test_every_literal_term_finds_itself(language: str, kind: CrisisKind, term: str) -> None:
    match = _detector().detect(term)
    assert match is not None, (language, term)
    assert kind in match.kinds


# --- the first detector's corpora, kept as regression tests ---------------------------------


def test_corpora_are_big_enough() -> None:
    assert len(_must_trigger()) >= 170
    assert len(_corpus_lines("crisis_must_not_trigger.txt")) >= 170


def test_recall_on_must_trigger_is_complete() -> None:
    detector = _detector()
    failures = []
    for number, kind, tier, message in _must_trigger():
        match = detector.detect(message)
        got = (match.kind, match.tier) if match else None
        if got != (kind, tier):
            failures.append(f"line {number}: {message!r} expected {(kind, tier)}, got {got}")
    total = len(_must_trigger())
    report(
        f"crisis regression list: {total - len(failures)}/{total} with the expected kind and tier"
    )
    assert not failures, "\n".join(failures)


def test_false_triggers_on_must_not_trigger() -> None:
    detector = _detector()
    lines = _corpus_lines("crisis_must_not_trigger.txt")
    hits = []
    for number, message in lines:
        match = detector.detect(message)
        if match is not None:
            hits.append(f"line {number}: {message!r} -> tier {match.tier} {match.category}")
    rate = len(hits) / len(lines)
    report(f"crisis regression must-not list: {len(hits)}/{len(lines)} = {rate:.1%} triggered")
    assert not hits, "\n".join(hits)


# --- the evaluation sets -------------------------------------------------------------------


def _eval_rows(name: str) -> list[tuple[int, str, str, int, str]]:
    rows = []
    for number, line in _corpus_lines(name):
        language, category, tier, message = line.split("\t")
        rows.append((number, language, category, int(tier), message))
    return rows


def _summary(rows: list[tuple[int, str, str, int, str]]) -> dict[str, float]:
    tiers = [(expected, _tier(message)) for _, _, _, expected, message in rows]
    positives = [got for expected, got in tiers if expected]
    urgent = [got for expected, got in tiers if expected == 1]
    calm = [got for expected, got in tiers if not expected]
    return {
        "n+": len(positives),
        "n-": len(calm),
        "recall": sum(1 for g in positives if g) / len(positives) if positives else 1.0,
        "tier1": sum(1 for g in urgent if g == 1) / len(urgent) if urgent else 1.0,
        "alarm": sum(1 for g in calm if g == 1) / len(calm) if calm else 0.0,
        "check": sum(1 for g in calm if g == 2) / len(calm) if calm else 0.0,
    }


def _line(label: str, s: dict[str, float]) -> str:
    return (
        f"  {label:<18} n={int(s['n+']):>3}+/{int(s['n-']):>3}-  recall {s['recall']:6.1%}"
        f"  tier1 {s['tier1']:6.1%}  emergency-on-calm {s['alarm']:5.1%}"
        f"  check-on-calm {s['check']:5.1%}"
    )


def _report_set(title: str, rows: list[tuple[int, str, str, int, str]]) -> dict[str, float]:
    overall = _summary(rows)
    report(f"crisis eval, {title}:")
    report(_line("all", overall))
    by_language: dict[str, list[Any]] = collections.defaultdict(list)
    by_category: dict[str, list[Any]] = collections.defaultdict(list)
    for row in rows:
        by_language[row[1]].append(row)
        by_category[row[2]].append(row)
    for language in sorted(by_language):
        report(_line(f"lang {language}", _summary(by_language[language])))
    for category in sorted(by_category):
        report(_line(f"cat {category}", _summary(by_category[category])))
    return overall


def test_eval_sets_are_big_and_cover_every_language() -> None:
    rows = _eval_rows("crisis_eval.tsv") + _eval_rows("crisis_eval_heldout.tsv")
    assert sum(1 for r in rows if r[3]) >= 400
    assert sum(1 for r in rows if not r[3]) >= 300
    assert {r[1] for r in rows} == set(LANGUAGES)
    assert all(r[3] in (0, 1, 2) for r in rows)


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("crisis_eval.tsv", "development set (tuned on)"),
        ("crisis_eval_heldout.tsv", "held-out set (never tuned on)"),
    ],
)
def test_eval_meets_the_targets(name: str, title: str) -> None:
    s = _report_set(title, _eval_rows(name))
    assert s["recall"] >= 0.95
    assert s["tier1"] >= 0.90
    assert s["alarm"] <= 0.02
    assert s["check"] <= 0.05


# --- borderline decisions, pinned (docs/crisis.md explains each) ---------------------------


@pytest.mark.parametrize(
    ("message", "tier"),
    [
        ("this was helpful", 0),
        ("unhelpful comments", 0),
        ("the helper was kind", 0),
        ("dangerously tired", 0),
        ("I helped my sister move", 0),
        ("dying to see the show", 0),
        ("the film killed it", 0),
        ("I killed it at work today", 0),
        ("In the end it all worked out", 0),
        ("I want to take my life back", 0),
        ("ich bin nicht sicher", 0),
        ("no estoy segura", 0),
        ("j'ai aidé ma sœur", 0),
        ("thanks for the help", 0),
        ("help me understand the worksheet", 0),
        ("help me understand why I miss him", 0),
        ("my sister could help if things feel unsafe", 0),
        ("we drove 20 kms to the coast", 0),
        ("he followed me on Instagram, I blocked him", 0),
        ("I was scared of him back then", 0),
        ("help", 1),
        ("kms", 1),
        ("i might just kms tonight", 1),
        ("I hurt myself at the gym", 1),
        ("help, he has a knife and I want to die", 1),
        ("he grabbed my neck", 1),
        ("he choked me two years ago", 1),
        ("he raped me", 1),
        ("I felt in danger back then, but I'm safe now", 2),
        ("he choked me years ago, I'm safe now", 2),
        ("I used to want to die", 2),
        ("I'm not ok", 2),
        ("😭😭😭", 2),
        ("I'm scared of him", 2),
        ("I could use some help with the boxes", 2),
        ("sucide", 2),  # a typo guess is a weak match: ask
    ],
)
def test_borderline_decisions(message: str, tier: int) -> None:
    assert _tier(message) == tier


def test_match_reports_every_kind_and_the_most_urgent() -> None:
    match = _detector().detect("help, I want to die, he's outside")
    assert match is not None
    assert match.kind == CrisisKind.DANGER
    assert match.tier == 1
    assert match.kinds == {CrisisKind.DANGER, CrisisKind.SELF_HARM, CrisisKind.GENERAL}
    assert {"danger_now", "suicide"} <= match.categories


def test_sexual_violence_has_its_own_kind() -> None:
    for message in ["he raped me", "me violó", "il m'a violée", "ich wurde vergewaltigt",
                    "mi ha violentata", "ik ben verkracht", "fui estuprada"]:  # fmt: skip
        match = _detector().detect(message)
        assert match is not None and match.kind == CrisisKind.SEXUAL_VIOLENCE, message
        assert match.tier == 1


def test_the_past_is_scoped_to_its_sentence() -> None:
    # "years ago" lowers only its own sentence; the present one keeps tier 1.
    assert _tier("He hurt me years ago. Now he's outside my door.") == 1
    assert _tier("Years ago he threatened to kill me.") == 2


def test_a_class_a_story_or_a_job_frames_its_sentence() -> None:
    # A sentence about a class, a story or the writer's work asks instead of alarming; the
    # frame's own sentence only, and never the help word.
    for message in [
        "at krav maga tonight we practised what to do when someone grabs you by the neck",
        "nurse here, rough shift, two overdoses tonight, just venting",
        "estoy leyendo una novela negra donde el asesino estrangula a las víctimas",
        "na aula de jiu-jitsu hoje treinamos estrangulamento",
        "bij judo werd ik gewurgd door mijn trainingsmaatje tot ik moest afkloppen",
    ]:
        assert _tier(message) == 2, message
    assert _tier("I watched a film last night. He choked me after it.") == 1
    assert _tier("he choked me last night") == 1
    assert _tier("y m'a étranglée tantôt") == 1  # "tantôt" is not the German "Tatort"
    assert _tier("il m'a forcée cette nuit") == 1  # "m'a" is not "mma" once letters collapse
    assert _tier("help") == 1


def test_sos_as_a_phones_feature_or_a_lines_name_is_no_plea() -> None:
    for message in [
        "can i put an sos button on my dad's old phone",
        "écoutante à sos amitié depuis deux ans",
        "quero ser voluntária na sos voz amiga",
        "kan ik een sos knop instellen op zijn nokia",
        "wie stell ich ein was bei notfall auf dem sperrbildschirm steht",
    ]:
        assert _tier(message) == 0, message
    assert _tier("sos") == 1
    assert _tier("notfall") == 1


def test_a_haircut_or_a_power_cut_is_not_self_harm() -> None:
    assert _tier("he pedido cita para cortarme el pelo corto, qué nervios") == 0
    assert _tier("se me cortó la luz en medio de la receta") == 0
    assert _tier("me corté el pelo y me corté el brazo otra vez") == 1


def test_a_wish_to_die_in_german_is_not_read_as_a_threat() -> None:
    # "mich umbringen" stood among the threats, so the wish to die got the danger reply alone.
    for message in ["ich will mich umbringen. heute noch", "ich werde mich heute umbringen"]:
        match = _detector().detect(message)
        assert match is not None and match.certain and match.kind == CrisisKind.SELF_HARM
        assert match.kinds == {CrisisKind.SELF_HARM}, message
    match = _detector().detect("er hat gesagt dass er mich umbringt")
    assert match is not None and match.certain and match.kind == CrisisKind.DANGER


def test_a_strangling_said_laughing_asks() -> None:
    assert _tier("my mum said she'd strangle me if i forgot the milk again lol") == 2
    assert _tier("he strangled me last night") == 1


def test_a_frame_tempers_the_model_too() -> None:
    # The rules know the frame, so the model's emergency reply there becomes a check.
    assert _detector().tempered("watched a documentary about suicide in class today")
    assert not _detector().tempered("he is outside my door with a knife")


def test_a_crisis_sentence_inside_a_long_message() -> None:
    filler = "Today I went to the shop, made soup, called my mum and folded laundry. " * 40
    assert _tier(filler + "He is outside with a knife. " + filler) == 1


def test_spaced_letters_and_mixed_languages() -> None:
    assert _tier("k i l l  m y s e l f") == 1
    assert _tier("h e l p") == 1
    assert _tier("ok so hoy fue horrible and honestly quiero morir") == 1


def test_a_single_match_keeps_the_old_shape_for_callers() -> None:
    # Existing callers build CrisisMatch(kind, kinds): tier 1, category "help" by default.
    match = CrisisMatch(CrisisKind.GENERAL, frozenset())
    assert match.tier == 1 and match.certain


def test_empty_and_wordless_messages() -> None:
    detector = _detector()
    for message in ["", "   ", "!!!", "😀😀", "\u200b"]:
        assert detector.detect(message) is None


# --- normalisation --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("HELP", "help"),
        ("heeelp", "help"),
        ("hellllp", "help"),
        ("kill", "kil"),
        ("kiiill myself", "kil myself"),
        ("socorro", "socoro"),
        ("Hilfe", "hilfe"),
        ("Urgência", "urgencia"),
        ("Straße", "strase"),
        ("sœur", "soeur"),
        ("ＨＥＬＰ", "help"),
        ("𝐇𝐄𝐋𝐏", "help"),
        ("İ", "i"),
        ("🆘help🆘", "sos help sos"),
        ("he's", "hes"),
        ("he’s", "hes"),
        ("he‘s", "hes"),
        ("he`s", "hes"),
        ("he´s", "hes"),
        ("heʼs", "hes"),
        ("I'll", "il"),
        ("qu'une", "qune"),
        ("'quoted'", "quoted"),
        ("self-harm", "self harm"),
        ("  want,to...die  ", "want to die"),
        ("he\u00adlp", "help"),
        ("112", "112"),
        ("!!!", ""),
    ],
)
def test_normalize(text: str, expected: str) -> None:
    assert normalize(text) == expected


_CATEGORIES = {"help": {"kind": "general", "tier": 1}}


def _tiny(by_role: dict[str, Any]) -> CrisisDetector:
    return CrisisDetector.from_terms({"categories": _CATEGORIES, "languages": {"fr": by_role}})


def test_elision_is_read_both_ways() -> None:
    detector = _tiny({"help": ["aide"]})
    assert detector.detect("besoin d'aide") is not None
    assert detector.detect("besoin d’aide") is not None


def test_from_terms_rejects_a_bare_string() -> None:
    with pytest.raises(TypeError):
        _tiny({"help": "aide"})


# --- the pattern language -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "message", "found"),
    [
        ("suicid*", "thinking about suicidal stuff", True),
        ("suicid*", "suicide", True),
        ("he .. my neck", "he grabbed my neck", True),
        ("he .. my neck", "he came in and then hurt my neck", False),  # four words apart
        ("he ... my neck", "he came in and then hurt my neck", True),
        ("i [really] need help", "i need help", True),
        ("i [really] need help", "i really need help", True),
        ("hit|punch* me", "he punched me", True),
        ("at_the_door|outside now", "he is at the door now", True),
        ("^ help $", "help", True),
        ("^ help $", "help me understand", False),
        ("<number> kms", "we did 20 kms", True),
        ("<number> kms", "kms", False),
        ("@he hit me", "my ex hit me", True),
        # A phrase trails off across "...", inside one alternative ("matar-me") too.
        ("kill myself", "i want to kill... myself", True),
        ("matar-me", "quero matar... me", True),
        ("matar-me", "quero matar. Me", True),
        ("matar-me", "matar meus planos", False),
    ],
)
def test_pattern_language(pattern: str, message: str, found: bool) -> None:
    detector = CrisisDetector(
        parse_categories(_CATEGORIES), [("help", pattern, {"he": ["he", "my ex"]})]
    )
    assert (detector.detect(message) is not None) == found


@pytest.mark.parametrize(
    ("pattern", "words"),
    [
        ("", "empty"),
        (".. help", "between two words"),
        ("help ..", "between two words"),
        ("help .. .. me", "two gaps"),
        ("ki*", "3 letters"),
        ("he*lp", "only end a stem"),
        ("[help]", "must be required"),
        ("help ^", "must come first"),
        ("$ help", "must come last"),
        ("@nobody help", "no such list"),
        ("!!! help|!!", "no letters"),
    ],
)
def test_pattern_errors_are_explained(pattern: str, words: str) -> None:
    with pytest.raises(PatternError, match=re.escape(words)):
        compile_pattern(pattern, {})


def test_a_not_crisis_span_removes_only_what_it_touches() -> None:
    detector = _tiny({"help": ["help"], "not_crisis": ["help me understand"]})
    assert detector.detect("help me understand the worksheet") is None
    assert detector.detect("help me understand. help") is not None


def test_typo_guesses_are_tier_two_and_skip_inflections() -> None:
    detector = CrisisDetector(
        parse_categories({"s": {"kind": "self_harm", "tier": 1}}), [("s", "overdose", {})]
    )
    assert detector.detect("overdose") == CrisisMatch(
        CrisisKind.SELF_HARM, frozenset({CrisisKind.SELF_HARM}), 1, "s", frozenset({"s"})
    )
    guessed = detector.detect("overdoze")
    assert guessed is not None and guessed.tier == 2
    assert detector.detect("overdosed") is None  # an ending added is inflection, not a typo
    assert detector.detect("ovrdose") is not None  # a letter missing inside is a typo


# --- the typing people do under stress ------------------------------------------------------

_SEPARATORS = [" ", "  ", ", ", "... ", " 😢 ", "-", "\n", "!! ", " - "]
_AROUND = ["", "", "!", "!!!", "?", ".", "…", "¡", "¿", '"', "(", ")", "*", "🆘", "😭", "🙏🙏"]
_APOSTROPHE_FORMS = ["'", "’", "‘", "`", "´", "ʼ", ""]
_FILLER = [
    "I don't know how to say this but",
    "sorry for the long message,",
    "ok so",
    "hoy fue un día largo y",
    "aujourd'hui",
    "ich weiß nicht,",
]


@st.composite
def mangled_terms(draw: st.DrawFn) -> tuple[CrisisKind, str, str]:
    _language, kind, term = draw(st.sampled_from(_literal_terms()))
    rng = draw(st.randoms(use_true_random=False))
    words = term.replace("-", " ").split()
    mangled_words = []
    for word in words:
        chars = []
        for original in word:
            if original == "'":
                chars.append(rng.choice(_APOSTROPHE_FORMS))
                continue
            char = original.upper() if rng.random() < 0.5 else original.lower()
            if char.isalpha() and rng.random() < 0.2:
                char *= rng.randint(2, 5)
            if char.isalpha() and rng.random() < 0.1:
                char += "\u0301"  # a stray combining accent
            chars.append(char)
        mangled_words.append("".join(chars))
    text = mangled_words[0]
    for word in mangled_words[1:]:
        text += rng.choice(_SEPARATORS) + word
    text = rng.choice(_AROUND) + text + rng.choice(_AROUND)
    if rng.random() < 0.3:
        text = rng.choice(_FILLER) + rng.choice([" ", "\n", "  "]) + text + " thanks."
    return kind, term, text


@settings(max_examples=400, deadline=None)
@given(mangled_terms())
def test_mangled_terms_still_match(case: tuple[CrisisKind, str, str]) -> None:
    kind, term, text = case
    match = _detector().detect(text)
    assert match is not None, (term, text)
    assert kind in match.kinds, (term, text, match)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_detect_never_fails_on_arbitrary_text(text: str) -> None:
    match = _detector().detect(text)
    assert match is None or match.kind in match.kinds


def test_long_messages_are_read_whole() -> None:
    # Their cost is measured in bench/bench_crisis.py (4,096-character entries), not here.
    detector = _detector()
    long_message = ("I walked to the shop and back, then made tea. " * 100)[:4096]
    unicode_message = ("Ça a été une journée très longue, épuisante. " * 100)[:4096]
    repeated = "a" * 4096
    for message in (long_message, unicode_message, repeated):
        assert detector.detect(message) is None
    buried = long_message[:3000] + " I want to die. " + long_message[:1000]
    found = detector.detect(buried)
    assert found is not None and found.kind == CrisisKind.SELF_HARM


# --- validate_terms on broken documents ----------------------------------------------------


def _paths(problems: list[Problem]) -> set[tuple[str | int, ...]]:
    return {p.path for p in problems}


def _broken(mutate: Any) -> list[Problem]:
    raw = copy.deepcopy(_raw_terms())
    mutate(raw)
    return validate_terms(raw, required=LANGUAGES)


def test_top_level_must_be_a_mapping() -> None:
    assert _paths(validate_terms(["help"])) == {()}
    assert _paths(validate_terms({"en": {"help": ["help"]}})) == {()}


def _languages(raw: Any) -> Any:
    return raw["languages"]


@pytest.mark.parametrize(
    ("mutate", "path", "words"),
    [
        (
            lambda raw: _languages(raw).update({"EN": {"help": ["x"]}}),
            ("languages", "EN"),
            "ISO 639-1",
        ),
        (
            lambda raw: _languages(raw).update({"eng": {"help": ["hola"]}}),
            ("languages", "eng"),
            "ISO 639-1",
        ),
        (lambda raw: _languages(raw).update({"sv": ["hjälp"]}), ("languages", "sv"), "must map"),
        (
            lambda raw: _languages(raw).update({False: {"help": ["hjelp"]}}),
            ("languages", "False"),
            "quote the code",
        ),
        (
            lambda raw: _languages(raw)["de"].update({"dangr": ["x"]}),
            ("languages", "de", "dangr"),
            "unknown category",
        ),
        (
            lambda raw: _languages(raw)["de"].update({"threat": "Gefahr"}),
            ("languages", "de", "threat"),
            "list",
        ),
        (
            lambda raw: _languages(raw)["de"]["threat"].insert(3, ""),
            ("languages", "de", "threat", 3),
            "non-empty",
        ),
        (
            lambda raw: _languages(raw)["de"]["threat"].insert(3, 42),
            ("languages", "de", "threat", 3),
            "non-empty",
        ),
        (
            lambda raw: _languages(raw)["it"]["help"].insert(0, "!!!"),
            ("languages", "it", "help", 0),
            "no letters",
        ),
        (
            lambda raw: _languages(raw)["it"]["help"].insert(0, "aiuto .."),
            ("languages", "it", "help", 0),
            "gap",
        ),
        (
            lambda raw: _languages(raw)["en"]["help"].insert(0, "@nope help"),
            ("languages", "en", "help", 0),
            "no such list",
        ),
        (
            lambda raw: _languages(raw)["en"].update({WORDS: {"he": "he"}}),
            ("languages", "en", WORDS),
            "lists of phrases",
        ),
        (
            lambda raw: raw["categories"].update({"bad": {"kind": "x", "tier": 1}}),
            ("categories", "bad", "kind"),
            "use one of",
        ),
        (
            lambda raw: raw["categories"].update({"bad": {"kind": "danger", "tier": 3}}),
            ("categories", "bad", "tier"),
            "1 (certain) or 2",
        ),
        (
            lambda raw: raw["categories"].update(
                {"bad": {"kind": "danger", "tier": 1, "lowered_by": ["x"]}}
            ),
            ("categories", "bad", "lowered_by"),
            "list of",
        ),
        (
            lambda raw: raw["categories"].update({"past": {"kind": "danger", "tier": 1}}),
            ("categories", "past"),
            "other than",
        ),
        (
            lambda raw: raw["categories"].update(
                {"bad": {"kind": "danger", "tier": 1, "colour": 1}}
            ),
            ("categories", "bad"),
            "unknown keys",
        ),
        (
            lambda raw: _languages(raw).pop("nl"),
            ("languages",),
            "no crisis words for 'nl'",
        ),
        (
            lambda raw: _languages(raw)["en"]["help"].append("SOS!!"),
            ("languages", "en", "help", len(_raw_terms()["languages"]["en"]["help"])),
            "duplicates languages.en.help.",
        ),
    ],
)
def test_each_injected_problem_is_found(mutate: Any, path: tuple[Any, ...], words: str) -> None:
    problems = _broken(mutate)
    found = [p for p in problems if p.path == path]
    assert found, problems
    assert any(words in p.message for p in found), found


def test_roles_are_not_categories() -> None:
    assert set(ROLES) & set(_raw_terms()["categories"]) == set()


def test_the_same_term_in_two_languages_is_fine() -> None:
    # "socorro" is Spanish and Portuguese; "help" English and Dutch.
    raw = {
        "categories": _CATEGORIES,
        "languages": {"es": {"help": ["socorro"]}, "pt": {"help": ["socorro"]}},
    }
    assert validate_terms(raw) == []


@pytest.mark.parametrize(
    ("text", "tempered"),
    [
        # The model's false emergencies on the held-out set v8: the rules' own spans.
        (
            "my mate thinks her boyfriend is controlling, how do i help her without pushing"
            " her away",
            True,
        ),
        ("estoy viendo una serie de narcos y hay cada balacera jaja", True),
        ("ce partiel de droit va me tuer 😭", True),
        ("he is coming up the stairs with a hammer", False),
        ("mon mari va me tuer", False),
        ("tengo una cuerda en el coche y esta noche lo hago", False),
    ],
)
def test_the_rules_say_where_they_read_crisis_words_as_no_crisis(text: str, tempered: bool) -> None:
    assert _detector().tempered(text) is tempered


def test_the_models_emergency_reply_becomes_a_check_where_the_rules_temper_it() -> None:
    emergency = CrisisMatch(CrisisKind.DANGER, frozenset({CrisisKind.DANGER}), tier=CERTAIN)
    check = CrisisMatch(CrisisKind.DANGER, frozenset({CrisisKind.DANGER}), tier=UNCERTAIN)
    lowered = temper(emergency, "anything", lambda text: True)
    assert lowered is not None and lowered.tier == UNCERTAIN and lowered.kind == CrisisKind.DANGER
    assert temper(emergency, "anything", lambda text: False) is emergency
    assert temper(check, "anything", lambda text: True) is check
    asked: list[str] = []

    def scan(text: str) -> bool:
        asked.append(text)
        return True

    assert temper(None, "anything", scan) is None
    assert not asked  # no scan unless the model would send the emergency reply
