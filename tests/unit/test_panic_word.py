"""The panic and return words: keyed hashes only, whole-message matching after the crisis
normalisation, and a kind refusal for every word that would be unsafe or fire by accident."""

from __future__ import annotations

import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.content.loader import Content
from bot.content.panic_word import (
    MAX_CHARS,
    MAX_MESSAGE_CHARS,
    MAX_WORDS,
    MIN_LETTERS,
    PanicWords,
    WordKind,
    WordProblem,
    check_word,
    derive_word_key,
    word_digest,
)
from tests.conftest import shared_content

DATA_KEY = bytes(range(32))


@pytest.fixture(scope="module")
def content() -> Content:
    return shared_content()


def words(panic: str = "blueberry pancakes", back: str | None = "lemon tart") -> PanicWords:
    return PanicWords.create(DATA_KEY, panic, back)


@pytest.mark.parametrize(
    "typed",
    [
        "blueberry pancakes",
        "Blueberry Pancakes",
        "BLUEBERRY PANCAKES!",
        "  blueberry   pancakes. ",
        "blueberry-pancakes",
        "blueberry pancakes 🥞",
        "bluebery pancakes",  # doubled letters collapse, as for crisis words
        "blüeberry pancakes",  # accents are dropped
    ],
)
def test_the_whole_message_matches_after_normalisation(typed: str) -> None:
    assert words().match(typed) is WordKind.PANIC


@pytest.mark.parametrize(
    "typed",
    [
        "I had blueberry pancakes",  # inside a longer message: never (see the module doc)
        "blueberry pancakes please",
        "blueberry",
        "pancakes",
        "",
        "🥞",
        "blueberry pancakes" + " !" * MAX_MESSAGE_CHARS,  # too long to be read at all
    ],
)
def test_anything_else_does_not(typed: str) -> None:
    assert words().match(typed) is None


def test_return_word_matches_as_return() -> None:
    assert words().match("Lemon tart.") is WordKind.RETURN
    assert words(back=None).match("lemon tart") is None
    assert words().with_return_word(None).match("lemon tart") is None
    assert words(back=None).with_return_word("fig jam").match("FIG JAM") is WordKind.RETURN


def test_another_persons_key_does_not_match() -> None:
    other = PanicWords.create(os.urandom(32), "walnut bread")
    mine = PanicWords.create(DATA_KEY, "walnut bread")
    assert other.panic != mine.panic
    assert other.match("walnut bread") is WordKind.PANIC
    assert mine.match("walnut bread") is WordKind.PANIC


def test_nothing_kept_reveals_the_word_or_the_data_key() -> None:
    kept = words()
    assert derive_word_key(DATA_KEY) == kept.key != DATA_KEY
    assert kept.panic == word_digest(kept.key, "blueberry pancakes")
    assert len(kept.panic) == 32
    for blob in (kept.key, kept.panic, kept.back or b""):
        assert b"blueberry" not in blob and b"lemon" not in blob
    shown = repr(kept)
    assert kept.key.hex() not in shown and kept.panic.hex() not in shown
    assert "blueberry" not in shown


@given(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=12),
    st.sampled_from(["", "!", ".", " 🙂", "?!", " "]),
)
def test_any_casing_or_trailing_punctuation_matches(word: str, tail: str) -> None:
    kept = PanicWords.create(DATA_KEY, word)
    assert kept.match(word.upper() + tail) is WordKind.PANIC
    assert kept.match(f"so {word}") is None


def check(content: Content, word: str, panic_word: str | None = None) -> WordProblem | None:
    commands = content.texts.data["command_menu"]
    return check_word(
        word,
        crisis=content.detector,
        commands=commands,
        common=content.common_words,
        panic_word=panic_word,
    )


@pytest.mark.parametrize(
    ("word", "problem"),
    [
        ("", WordProblem.EMPTY),
        ("!!! 🙂", WordProblem.EMPTY),
        ("ab", WordProblem.TOO_SHORT),
        ("12345", WordProblem.TOO_SHORT),
        ("one two three four five", WordProblem.TOO_LONG),
        ("abcdefghij" * 5, WordProblem.TOO_LONG),
        ("/start", WordProblem.COMMAND),
        ("/lemon", WordProblem.COMMAND),
        ("settings", WordProblem.COMMAND),
        ("Worksheets", WordProblem.COMMAND),
        ("help", WordProblem.CRISIS),
        ("SOS", WordProblem.CRISIS),
        ("ayuda", WordProblem.CRISIS),
        ("hilfe bitte", WordProblem.CRISIS),
        ("au secours", WordProblem.CRISIS),
        ("ok", WordProblem.TOO_SHORT),
        ("okay", WordProblem.COMMON),
        ("Thank you!", WordProblem.COMMON),
        ("good night", WordProblem.COMMON),
        ("Gute Nacht", WordProblem.COMMON),
        ("buenas noches", WordProblem.COMMON),
        ("merci", WordProblem.COMMON),
        ("tired", WordProblem.COMMON),
        ("yes yes", WordProblem.COMMON),
    ],
)
def test_refusals(content: Content, word: str, problem: WordProblem) -> None:
    assert check(content, word) is problem


@pytest.mark.parametrize(
    "word",
    [
        "blueberry pancakes",
        "Pfannkuchen mit Zimt",
        "tarta de queso",
        "moulin rouge",
        "zebra",
        "fig",
    ],
)
def test_unusual_words_are_accepted(content: Content, word: str) -> None:
    assert check(content, word) is None


def test_return_word_differs_from_the_panic_word(content: Content) -> None:
    problem = check(content, "Blueberry pancakes!", panic_word="blueberry pancakes")
    assert problem is WordProblem.SAME_AS_PANIC
    assert check(content, "lemon tart", panic_word="blueberry pancakes") is None


def test_every_refusal_has_a_kind_explanation(content: Content) -> None:
    for problem in WordProblem:
        text = content.texts(
            problem.text_key, min=MIN_LETTERS, max_chars=MAX_CHARS, max_words=MAX_WORDS
        )
        assert text and "{" not in text


def test_stored_digests_stay_valid() -> None:
    """The normalisation is part of the stored format: a change to `normalize` (or to the
    key derivation) would silently stop every stored panic word from matching. If this
    fails on purpose, bump the key label's version and plan how people set their words
    again; do not just update the expected values."""
    key = derive_word_key(DATA_KEY)
    expected = {
        "Blueberry Pancakes!": "4091244799b757020123a880d43f8cb1119cc9471f03c39b8d136f19c9978c94",
        "Ça va, l’été?": "c8ecba5ea4069c220bde878cc2930c4e479a838bf08f862e100bf952400e6d5f",
    }
    for word, digest in expected.items():
        assert word_digest(key, word).hex() == digest, word
