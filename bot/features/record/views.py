"""What the record looks like: the menu, each step's question and buttons, the date and
hour pickers, a page of entries, one entry in full, the look-back offer. Pure: data and a
translator in, text and buttons out.

With neutral wording, the texts in `NEUTRAL` come from `record_neutral` instead: a glance
at the chat (or a notification) shows plain dated notes, nothing about what they record.
"""

from __future__ import annotations

import datetime as dt

from bot.content.texts import Tx
from bot.core.buttons import Button, Rows
from bot.core.rich_text import Rich
from bot.core.telegram_text import ELLIPSIS, MESSAGE_LIMIT, truncate, utf16_len
from bot.features.record.callbacks import RecordButton
from bot.features.record.dates import day_label, happened_label, short_day, written_label
from bot.features.record.service import FILES, STEPS, TEXT_STEPS, WHEN, FullEntry, Page

NEUTRAL = frozenset(
    {"menu", "btn_export", "q_seen", "q_hurt", "finished", "offer", "settings_offers_on",
     "settings_offers_off", "export_caption", "doc_title"}
)  # fmt: skip
PAGE_SIZE = 5
DAYS_PER_PAGE = 7
PREVIEW = 60  # characters of an entry's first words in the list


def word(tx: Tx, neutral: bool, key: str, **values: object) -> str:
    if neutral and key in NEUTRAL:
        return tx(f"record_neutral.{key}", **values)
    return tx(f"record.{key}", **values)


def _button(tx: Tx, key: str, action: str, entry_id: str = "", number: int = 0) -> Button:
    return (tx(f"record.{key}"), RecordButton(action, entry_id, number).encode())


# --- the menu -----------------------------------------------------------------------


def menu_view(tx: Tx, *, neutral: bool, count: int, unfinished: str | None) -> tuple[str, Rows]:
    text = word(tx, neutral, "menu")
    if count:
        text += "\n\n" + tx("record.menu_count", count=count)
    rows: Rows = []
    if unfinished:
        rows.append([_button(tx, "btn_resume", "resume", unfinished)])
    rows.append([_button(tx, "btn_new", "new")])
    if count:
        rows.append([_button(tx, "btn_list", "list", number=0)])
        rows.append([(word(tx, neutral, "btn_export"), RecordButton("exp").encode())])
        rows.append([_button(tx, "btn_delete_all", "delall")])
    rows.append([_button(tx, "btn_hide", "hide")])
    return text, rows


# --- the steps ----------------------------------------------------------------------


def question_view(
    tx: Tx, step: str, entry_id: str, *, neutral: bool, limit_mb: int
) -> tuple[str, Rows]:
    number = STEPS.index(step) + 1
    head = tx("record.step_of", number=number, total=len(STEPS))
    values = {"limit": limit_mb} if step == FILES else {}
    text = f"{head}\n\n{word(tx, neutral, f'q_{step}', **values)}"
    if step == WHEN:
        rows: Rows = [
            [_button(tx, "btn_now", "now", entry_id), _button(tx, "btn_today", "today", entry_id)],
            [_button(tx, "btn_other_day", "days", entry_id, 0)],
        ]
    elif step == FILES:
        rows = [[_button(tx, "btn_done", "done", entry_id)]]
    else:
        rows = []
    if step != FILES:
        rows.append([_button(tx, "btn_skip", "skip", entry_id, STEPS.index(step))])
    rows.append([_button(tx, "btn_pause", "pause")])
    return text, rows


def saved_view(tx: Tx, step: str, entry_id: str, count: int) -> tuple[str, Rows]:
    text = tx("record.saved") if count == 1 else tx("record.saved_many", count=count)
    return text, [
        [_button(tx, "btn_next", "next", entry_id, STEPS.index(step))],
        [_button(tx, "btn_pause", "pause")],
    ]


def continue_row(tx: Tx, step: str, entry_id: str) -> list[Button]:
    return [_button(tx, "btn_continue", "cont", entry_id, STEPS.index(step))]


def day_picker(tx: Tx, entry_id: str, today: dt.date, page: int, language: str) -> tuple[str, Rows]:
    """Seven days a page, yesterday first; "Earlier" goes a week further back."""
    rows: Rows = []
    row: list[Button] = []
    for back in range(1 + page * DAYS_PER_PAGE, 1 + (page + 1) * DAYS_PER_PAGE):
        day = today - dt.timedelta(days=back)
        row.append((short_day(day, language), RecordButton("day", entry_id, back).encode()))
        if len(row) == 4:
            rows.append(row)
            row = []
    if row:
        rows.append(row)
    moves = [_button(tx, "btn_earlier", "days", entry_id, page + 1)]
    if page:
        moves.insert(0, _button(tx, "btn_later", "days", entry_id, page - 1))
    rows.append(moves)
    rows.append([_button(tx, "btn_skip", "skip", entry_id, 0)])
    return tx("record.pick_day"), rows


def hour_picker(
    tx: Tx, entry_id: str, day: dt.date, days_back: int, last_hour: int, language: str
) -> tuple[str, Rows]:
    """Hours of that day (up to now, for today), six a row; the number is days*100 + hour."""
    rows: Rows = []
    row: list[Button] = []
    for hour in range(0, last_hour + 1):
        row.append(
            (f"{hour:02d}:00", RecordButton("hour", entry_id, days_back * 100 + hour).encode())
        )
        if len(row) == 6:
            rows.append(row)
            row = []
    if row:
        rows.append(row)
    rows.append([_button(tx, "btn_notime", "day", entry_id, days_back + 1000)])
    return tx("record.pick_hour", day=day_label(day, language)), rows


# --- reading ------------------------------------------------------------------------


def list_view(tx: Tx, page: Page, zone: dt.tzinfo, language: str) -> tuple[str, Rows]:
    if not page.entries:
        return tx("record.list_empty"), [[_button(tx, "btn_hide", "hide")]]
    first = page.offset + 1
    lines = [
        tx("record.list_title", first=first, last=page.offset + len(page.entries), total=page.total)
    ]
    rows: Rows = []
    numbers: list[Button] = []
    for index, entry in enumerate(page.entries):
        words = entry.first_words or tx("record.no_words")
        words = truncate(" ".join(words.split()), PREVIEW, marker=ELLIPSIS)
        if entry.finished_at is None:
            words += " " + tx("record.unfinished")
        when = happened_label(entry, zone, language) or tx("record.no_when")
        lines.append(tx("record.list_line", number=first + index, when=when, words=words))
        numbers.append((str(first + index), RecordButton("open", entry.entry_id).encode()))
    rows.append(numbers)
    moves: list[Button] = []
    if page.offset:
        moves.append(_button(tx, "btn_newer", "list", number=max(page.offset - PAGE_SIZE, 0)))
    if page.offset + PAGE_SIZE < page.total:
        moves.append(_button(tx, "btn_older", "list", number=page.offset + PAGE_SIZE))
    if moves:
        rows.append(moves)
    rows.append([_button(tx, "btn_hide", "hide")])
    return "\n\n".join(lines), rows


def entry_view(tx: Tx, entry: FullEntry, zone: dt.tzinfo, language: str) -> tuple[Rich, Rows]:
    rich = Rich()
    rich.add(
        tx("record.happened", when=happened_label(entry, zone, language) or tx("record.no_when")),
        "bold",
    )
    rich.add("\n" + tx("record.written", when=written_label(entry.written_at, zone, language)))
    for step in TEXT_STEPS:
        parts = entry.answers.get(step, ())
        if not parts:
            continue
        rich.add("\n\n")
        rich.add(tx(f"record.step_{step}"), "bold")
        rich.add("\n")
        rich.add("\n\n".join(p.text for p in parts), "blockquote")
    if entry.amendments:
        rich.add("\n\n")
        rich.add(tx("record.amendments"), "bold")
        for part in entry.amendments:
            when = written_label(part.at, zone, language)
            rich.add("\n" + tx("record.amended", when=when) + "\n")
            rich.add(part.text, "blockquote")
    if entry.files:
        rich.add("\n\n" + tx("record.files_count", count=len(entry.files)))
    rich = _fit(rich, tx("record.shortened"))
    rows: Rows = [[_button(tx, "btn_amend", "amend", entry.entry_id)]]
    if entry.files:
        rows.append([_button(tx, "btn_files", "files", entry.entry_id)])
    rows.append([_button(tx, "btn_delete", "del", entry.entry_id)])
    rows.append([_button(tx, "btn_hide", "hide")])
    return rich, rows


def _fit(rich: Rich, shortened: str) -> Rich:
    """A long entry is cut to one message, and `shortened` says so and where the whole is
    (the export holds it all); spans past the cut go."""
    if rich.length <= MESSAGE_LIMIT:
        return rich
    note = "\n\n" + shortened
    text = truncate(rich.text, MESSAGE_LIMIT - utf16_len(note), marker=ELLIPSIS)
    cut = Rich(text)
    for span in rich.spans:
        if span.offset + span.length <= cut.length - 1:
            cut.spans.append(span)
    return cut.add("\n\n").add(shortened, "italic")


def offer_view(
    tx: Tx, entry: FullEntry, *, neutral: bool, zone: dt.tzinfo, language: str
) -> tuple[str, Rows]:
    date = day_label(dt.datetime.fromtimestamp(entry.written_at, zone).date(), language)
    return word(tx, neutral, "offer", date=date), [
        [_button(tx, "btn_read", "look", entry.entry_id)],
        [_button(tx, "btn_not_now", "later"), _button(tx, "btn_no_offers", "nolook")],
    ]


def delete_view(tx: Tx, entry_id: str) -> tuple[str, Rows]:
    return tx("record.delete_confirm"), [
        [_button(tx, "btn_delete_yes", "delok", entry_id), _button(tx, "btn_delete_no", "delno")]
    ]


def delete_all_view(tx: Tx, count: int) -> tuple[str, Rows]:
    return tx("record.delete_all_confirm", count=count), [
        [_button(tx, "btn_delete_all_yes", "delallok"), _button(tx, "btn_delete_no", "delno")]
    ]


def file_saved_view(tx: Tx, entry_id: str, message_id: int, count: int) -> tuple[str, Rows]:
    return tx("record.file_saved", count=count), [
        [
            _button(tx, "btn_remove_file", "rmf", entry_id, message_id),
            _button(tx, "btn_keep_file", "keepf", entry_id, message_id),
        ]
    ]


def settings_row(tx: Tx, *, neutral: bool, enabled: bool) -> list[Button]:
    key = "settings_offers_on" if enabled else "settings_offers_off"
    action = "offoff" if enabled else "offon"
    return [(word(tx, neutral, key), RecordButton(action).encode())]


def amend_view(tx: Tx, entry_id: str) -> tuple[str, Rows]:
    return tx("record.amend_ask"), [[_button(tx, "btn_done", "amdone", entry_id)]]
