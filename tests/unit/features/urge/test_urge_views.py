"""The urge flow's pure views (bot/features/urge/views.py): buttons that decode, texts that fit."""

from __future__ import annotations

from bot.core.telegram_text import MESSAGE_LIMIT, utf16_len
from bot.features.progress.callbacks import NoContactButton
from bot.features.progress.no_contact import NoContact, State
from bot.features.urge import views
from bot.features.urge.callbacks import UrgeButton
from tests.helpers.bot import shared_content

URGE_ID = "0123456789abcdef01234567"


def tx(key: str, **values: object) -> str:
    return shared_content().texts(key, **values)


def test_the_strength_scale_is_zero_to_ten_in_two_rows() -> None:
    _, rows = views.strength_view(tx)
    assert [len(r) for r in rows] == [6, 5]
    decoded = [UrgeButton.decode(d.partition(":")[2]) for row in rows for _, d in row]
    assert [b.number for b in decoded if b is not None] == list(range(11))


def test_the_check_back_names_no_subject_with_neutral_wording() -> None:
    text, rows = views.follow_up_view(tx, URGE_ID, neutral=True)
    assert text.startswith(tx("urge.label") + "\n")
    assert "pull" not in text and "urge" not in text.lower()
    assert rows[-1] == [(tx("urge.followup.btn_not_now"), f"urg:fx:{URGE_ID}")]
    plain, _ = views.follow_up_view(tx, URGE_ID, neutral=False)
    assert "20 minutes" in plain


def test_both_numbers_side_by_side() -> None:
    assert views.compare_text(tx, 8, 3).startswith("Before: 8   Now: 3\n\n")
    assert tx("urge.followup.higher") in views.compare_text(tx, 4, 6)


def test_long_words_of_a_person_come_whole_over_several_messages() -> None:
    """Issue 27 (minor): the words were cut to one message; now every word reaches the
    person, each message fits Telegram, the heading opens and the tail closes."""
    words = " ".join(f"word{n}😔" for n in range(700))  # about 6,300 UTF-16 units
    ask = tx("urge.after.ask")
    cases = [
        (views.reasons_text(tx, words, tail=ask), tx("reasons.heading"), ask, words),
        (
            views.draft_shown_text(tx, "2026-12-01", words),
            tx("urge.draft.shown", date="2026-12-01"),
            "",
            words,
        ),
        (
            views.safe_people_text(tx, [words, "Ana"], tail=ask),
            tx("urge.after.safe_person_intro"),
            ask,
            words + "\n\nAna",
        ),
        (views.reasons_view(tx, words)[0], tx("reasons.heading"), "", words),
    ]
    for parts, head, tail, kept in cases:
        assert len(parts) >= 2
        assert all(utf16_len(p) <= MESSAGE_LIMIT for p in parts)
        assert parts[0].startswith(head)
        assert parts[-1].endswith(tail)
        body = " ".join(parts).removeprefix(head).removesuffix(tail)
        assert body.split() == kept.split()  # every word, in order, none cut
    short = views.reasons_text(tx, "I am safe now.", tail=ask)
    assert short == [f"{tx('reasons.heading')}\n\nI am safe now.\n\n{ask}"]


def test_words_that_fit_alone_but_not_with_the_tail_get_the_tail_apart() -> None:
    words = "x" * (MESSAGE_LIMIT - 40)
    tail = "A tail that does not fit beside them. " * 2
    assert views.in_parts("Head", words, tail) == [f"Head\n\n{words}", tail]


def test_no_contact_buttons_are_only_those_that_do_something() -> None:
    off = NoContact(State.OFF, 0, None, ())
    _, rows = views.no_contact_view(tx, off)
    assert [d for row in rows for _, d in row] == [
        NoContactButton("start").encode(),
        NoContactButton("earlier").encode(),
    ]
    paused = NoContact(State.PAUSED, 3, None, ())
    text, rows = views.no_contact_view(tx, paused, in_checkin=True)
    assert "day 3" in text
    assert [d for row in rows for _, d in row] == ["nc:resume", "nc:reset", "nc:stop", "nc:inoff"]
