"""The words people steer with (bot/content/conversation.py), on the real content."""

from __future__ import annotations

import pytest

from bot.content.conversation import Intent, validate_words, wordless
from bot.content.worksheet_model import Worksheet
from bot.core.telegram_text import ELLIPSIS, truncate
from bot.features.conversation.views import menu_view, stop_view
from bot.features.worksheets.views import finished_buttons
from tests.helpers.bot import shared_content

CONTENT = shared_content()
WORDS = CONTENT.words
tx = CONTENT.texts


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("stop", Intent.STOP),
        ("STOP!!", Intent.STOP),
        ("Stop please", Intent.STOP),
        ("basta", Intent.STOP),
        ("arrête", Intent.STOP),
        ("Hör auf", Intent.STOP),
        ("pause", Intent.PAUSE),
        ("pauze", Intent.PAUSE),
        ("cancel", Intent.CANCEL),
        ("never mind", Intent.CANCEL),
        ("laisse tomber", Intent.CANCEL),
        ("annuleren", Intent.CANCEL),
        ("back", Intent.BACK),
        ("Zurück", Intent.BACK),
        ("atrás", Intent.BACK),
        ("menú", Intent.MENU),
        ("hi", Intent.HELLO),
        ("hiii", Intent.HELLO),
        ("hi Steady", Intent.HELLO),
        ("Olá!", Intent.HELLO),
        ("thanks", Intent.THANKS),
        ("d'accord", Intent.THANKS),
        ("danke schön", Intent.THANKS),
        ("what can you do?", Intent.QUESTION),
        ("¿Qué puedes hacer?", Intent.QUESTION),
        ("qu'est-ce que tu peux faire ?", Intent.QUESTION),
        ("o que você pode fazer?", Intent.QUESTION),
    ],
)
def test_whole_messages_are_understood(text: str, intent: Intent) -> None:
    assert WORDS.intent(text) is intent


@pytest.mark.parametrize(
    "text",
    [
        "I can't stop thinking about it",
        "stop by the shop later",
        "hi, today was hard",
        "thanks to her I got out",
        "back pain again",
        "what can you do when nobody believes you?",
        "please",
        "",
    ],
)
def test_sentences_that_contain_the_words_are_not_them(text: str) -> None:
    assert WORDS.intent(text) is None


def test_wordless() -> None:
    assert wordless("😭😭😭") and wordless("👍") and wordless("...") and wordless("❤️ 🙏")
    assert not wordless("ok 👍") and not wordless("   ") and not wordless("3")


def test_validation_names_gaps_and_collisions() -> None:
    raw = {
        "intents": {
            "stop": {"en": ["stop", "halt"]},
            "cancel": {"en": ["Halt!"]},
            "nonsense": {"en": ["x"]},
        },
        "polite": {"en": ["please"], "xx": ["y"]},
    }
    messages = [p.message for p in validate_words(raw)]
    assert any("'halt' is also under 'stop'" in m for m in messages)
    assert any("unknown intent 'nonsense'" in m for m in messages)
    assert any("missing 'menu'" in m for m in messages)
    assert any("missing language 'es'" in m for m in messages)
    assert any("unknown language 'xx'" in m for m in messages)


def test_the_content_is_valid() -> None:
    assert validate_words(CONTENT.texts.data["conversation_words"]) == []


def test_every_reply_has_a_way_on() -> None:
    text, rows = menu_view(tx, ["worksheets", "journal"], lead="Hi.", worksheet_waiting=True)
    labels = [label for row in rows for label, _ in row]
    assert text.startswith("Hi.") and "/worksheets" in text
    assert labels[0] == tx("conversation.btn_resume") and tx("conversation.btn_support") in labels
    offer = stop_view(tx, lead="", on=True, paused=False)
    assert offer is not None and len(offer[1]) == 3
    assert stop_view(tx, lead="", on=False, paused=False) is None


def test_no_review_of_answers_that_are_gone() -> None:
    sheet: Worksheet = next(iter(CONTENT.worksheets.values()))
    labels = [label for row in finished_buttons(tx, sheet, answered=False) for label, _ in row]
    assert labels == [tx("worksheets.btn_again")]
    assert tx("worksheets.btn_review") in [
        label for row in finished_buttons(tx, sheet) for label, _ in row
    ]


def test_excerpts_end_on_a_whole_word() -> None:
    assert truncate("The kettle, the window, a blue mug.", 20, marker=ELLIPSIS) == (
        "The kettle, the…"
    )
    assert truncate("one two three", 7) == "one two"  # the cut falls at a word's end
