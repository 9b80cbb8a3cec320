"""The pure views: text and buttons from data and a translator, no Telegram."""

from __future__ import annotations

from bot.core.buttons import Rows
from bot.core.callbacks import CallbackData
from bot.core.telegram_text import MESSAGE_LIMIT, utf16_len
from bot.features.checkins import views as journal_views
from bot.features.checkins.callbacks import DailyButton
from bot.features.checkins.prefs import CheckinPrefs
from bot.features.progress.callbacks import MoodButton
from bot.features.setup import views as settings_views
from bot.features.setup.callbacks import DayButton, SettingsButton
from bot.features.urge.callbacks import UrgeButton
from bot.features.worksheets import views
from bot.features.worksheets.callbacks import WorksheetButton
from bot.features.worksheets.service import Answer
from bot.people.profile import Profile
from tests.helpers.bot import shared_content

KINDS: tuple[type[CallbackData], ...] = (
    WorksheetButton,
    DailyButton,
    SettingsButton,
    DayButton,
    MoodButton,
    UrgeButton,
)


def tx(key: str, **values: object) -> str:
    return shared_content().texts(key, **values)


def decoded(rows: Rows) -> list[CallbackData]:
    """Every button's data decodes with its own codec: views never hand-build data."""
    out = []
    for row in rows:
        for _, data in row:
            prefix, _, rest = data.partition(":")
            kind = next(k for k in KINDS if prefix == k.PREFIX)
            value = kind.decode(rest)
            assert value is not None, data
            out.append(value)
    return out


def test_step_buttons_carry_the_position_they_were_made_for() -> None:
    ws = next(iter(shared_content().worksheets.values()))
    first = decoded(views.step_buttons(tx, ws, 0, answered=False))
    assert [b.action for b in first if isinstance(b, WorksheetButton)] == ["next", "pause"]
    later = decoded(views.step_buttons(tx, ws, 2, answered=True, clear=True))
    assert WorksheetButton("back", ws.id, 2) in later
    assert WorksheetButton("clr", ws.id, 2) in later


def test_a_long_saved_answer_is_quoted_within_one_message() -> None:
    ws = next(iter(shared_content().worksheets.values()))
    view = views.question_view(tx, ws, 0, ["🌿 word " * 2000])
    assert utf16_len(view.text) <= MESSAGE_LIMIT
    assert any(span.kind == "blockquote" for span in view.spans)
    assert tx("worksheets.quote_shortened") in view.text


def test_review_pages_split_a_long_answer_and_keep_all_of_it() -> None:
    ws = next(iter(shared_content().worksheets.values()))
    question = ws.questions[0]
    text = "sentence " * 1200
    pages = views.review_pages(tx, ws, {question.id: Answer(question, (text,), 0)})
    assert len(pages) > 1
    assert all(utf16_len(p.rich.text) <= views.MESSAGE_BUDGET for p in pages)
    quoted = "".join(p.rich.text for p in pages)
    assert quoted.count("sentence") == 1200


def test_settings_buttons_set_the_opposite_value() -> None:
    profile = Profile(silent=False).holding(
        CheckinPrefs(paused=True, daily_enabled=True, daily_time="07:30")
    )
    text, rows = settings_views.settings_view(
        tx, profile, "Ireland", worksheet_waiting=True, extra=[]
    )
    assert "Ireland" in text and tx("settings.worksheet_waiting") in text
    buttons = decoded(rows)
    assert SettingsButton("pause:off") in buttons and SettingsButton("silent:on") in buttons


def test_days_view_marks_the_chosen_days() -> None:
    _, rows = settings_views.days_view(tx, (0, 2))
    labels = [label for row in rows for label, _ in row]
    assert labels[0].startswith("✓ ") and not labels[1].startswith("✓ ")
    assert DayButton("done") in decoded(rows)


def test_prompt_buttons_name_their_date() -> None:
    rows = journal_views.prompt_buttons(tx, "2026-12-01", show=True)
    assert DailyButton("show", "2026-12-01") in decoded(rows)
    assert DailyButton("pause") in decoded(rows)
    hidden = journal_views.prompt_text(tx, "A prompt", neutral=True)
    assert "A prompt" not in hidden
