"""The urge flow's pure views (bot/features/urge/views.py): buttons that decode, texts that fit."""

from __future__ import annotations

from bot.core.callbacks import NoContactButton, UrgeButton
from bot.core.telegram_text import MESSAGE_LIMIT, utf16_len
from bot.features.progress.no_contact import NoContact, State
from bot.features.urge import views
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


def test_long_words_of_a_person_still_fit_one_message() -> None:
    emoji = "😔" * 4000  # 8,000 UTF-16 units
    for text in (
        views.reasons_text(tx, emoji, tail=tx("urge.after.ask")),
        views.draft_shown_text(tx, "2026-12-01", emoji),
        views.safe_people_text(tx, [emoji, emoji]),
        views.reasons_view(tx, emoji)[0],
    ):
        assert utf16_len(text) <= MESSAGE_LIMIT
        assert text.rstrip().endswith(("…", tx("urge.after.ask")))


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
