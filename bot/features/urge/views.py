"""What the urge flow, My reasons, no-contact days and the mood tap look like. Pure: data and
a translator in, text and buttons out."""

from __future__ import annotations

import datetime as dt

from bot.content.texts import Tx
from bot.content.urge_model import FOLLOW_UP_DELAY, MAX_STRENGTH, check_back_key
from bot.content.urge_texts import trigger_buttons
from bot.core import local_format
from bot.core.buttons import Button, Rows
from bot.core.telegram_text import MESSAGE_LIMIT, pieces, utf16_len
from bot.features.progress.callbacks import MoodButton, NoContactButton
from bot.features.progress.no_contact import MarkKind, NoContact, State, allowed
from bot.features.urge.callbacks import UrgeAction, UrgeButton

FOLLOW_UP_MINUTES = int(FOLLOW_UP_DELAY.total_seconds() // 60)


def in_parts(head: str, words: str, tail: str = "") -> list[str]:
    """`head`, the person's own `words` and `tail` as messages: one when all three fit
    Telegram's limit, else the words go on over as many as they need, every word kept
    (the head opens the first, the tail closes the last: buttons belong under it)."""
    whole = _join(head, words, tail)
    if utf16_len(whole) <= MESSAGE_LIMIT:
        return [whole]
    gap = 2  # the blank line between head, words and tail
    parts = pieces(words, MESSAGE_LIMIT - utf16_len(head) - gap)
    parts[0] = _join(head, parts[0])
    if utf16_len(parts[-1]) + gap + utf16_len(tail) <= MESSAGE_LIMIT:
        parts[-1] = _join(parts[-1], tail)
    elif tail:
        parts.append(tail)
    return parts


def _join(*blocks: str) -> str:
    return "\n\n".join(block for block in blocks if block)


def draft_shown_text(tx: Tx, day: str, text: str) -> list[str]:
    return in_parts(tx("urge.draft.shown", date=day), text)


def reasons_text(tx: Tx, reasons: str | None, *, tail: str = "") -> list[str]:
    if not reasons:
        return [_join(tx("urge.after.reasons_none"), tail)]
    return in_parts(tx("reasons.heading"), reasons, tail)


def safe_people_text(tx: Tx, people: list[str], *, tail: str = "") -> list[str]:
    if not people:
        return [_join(tx("urge.after.safe_person_none"), tail)]
    return in_parts(tx("urge.after.safe_person_intro"), "\n\n".join(people), tail)


def _scale(action: UrgeAction, item: str = "") -> Rows:
    """0-10 in two rows (six and five): thumb-sized on a phone."""
    cells = [(str(n), UrgeButton(action, item, str(n)).encode()) for n in range(MAX_STRENGTH + 1)]
    return [cells[:6], cells[6:]]


def offer_view(tx: Tx) -> tuple[str, Rows]:
    return tx("urge.offer"), [
        [(tx("urge.btn_start"), UrgeButton(UrgeAction.START).encode())],
        [
            (tx("urge.btn_not_now"), UrgeButton(UrgeAction.NOT_NOW).encode()),
            (tx("urge.btn_never"), UrgeButton(UrgeAction.NEVER).encode()),
        ],
    ]


def strength_view(tx: Tx) -> tuple[str, Rows]:
    return f"{tx('urge.intro')}\n\n{tx('urge.ask_strength')}", _scale(UrgeAction.STRENGTH)


def trigger_view(tx: Tx, urge_id: str) -> tuple[str, Rows]:
    buttons = [
        (label, UrgeButton(UrgeAction.TRIGGER, urge_id, tid).encode())
        for tid, label in trigger_buttons(tx)
    ]
    return tx("urge.ask_trigger"), [buttons[i : i + 2] for i in range(0, len(buttons), 2)]


def typed_trigger_view(tx: Tx, urge_id: str) -> tuple[str, Rows]:
    return tx("urge.ask_trigger_typed"), [
        [(tx("urge.btn_skip"), UrgeButton(UrgeAction.SKIP_TRIGGER, urge_id).encode())]
    ]


def draft_offer_view(tx: Tx, urge_id: str, *, named: bool) -> tuple[str, Rows]:
    text = tx("urge.draft.offer")
    if named:
        text = f"{tx('urge.trigger_named')}\n\n{text}"
    return text, [
        [
            (tx("urge.draft.btn_write"), UrgeButton(UrgeAction.WRITE_DRAFT, urge_id).encode()),
            (tx("urge.draft.btn_no"), UrgeButton(UrgeAction.NO_DRAFT, urge_id).encode()),
        ]
    ]


def surf_view(tx: Tx, steps: tuple[str, ...], urge_id: str, index: int) -> tuple[str, Rows]:
    """Step `index` (0-based) of the urge surfing; Next moves on, the last goes to the menu."""
    nxt = UrgeButton(UrgeAction.SURF_STEP, urge_id, str(index + 1)).encode()
    stop = UrgeButton(UrgeAction.STOP_SURF, urge_id).encode()
    return steps[index], [[(tx("urge.surf.btn_next"), nxt)], [(tx("urge.surf.btn_stop"), stop)]]


def after_view(tx: Tx, urge_id: str, *, shown: str = "") -> tuple[str, Rows]:
    """What might help next; `shown`: "reasons" or "safe" puts that above the question
    (built by the caller with `reasons_text` / `safe_people_text`)."""

    def button(key: str, choice: str) -> Button:
        return (tx(f"urge.after.btn_{key}"), UrgeButton(UrgeAction.AFTER, urge_id, choice).encode())

    return shown or tx("urge.after.ask"), [
        [button("reasons", "reasons"), button("safe_person", "safe")],
        [button("again", "again")],
        [button("done", "done")],
    ]


def done_text(tx: Tx, *, promised: bool) -> str:
    text = tx("urge.after.done")
    if promised:
        text += "\n\n" + tx("urge.followup.promise", minutes=FOLLOW_UP_MINUTES)
    return text


def follow_up_view(tx: Tx, urge_id: str, *, neutral: bool) -> tuple[str, Rows]:
    """The check-back: on its own in the chat, so a lock screen may show it."""
    text = (
        tx("urge.followup.ask_neutral")
        if neutral
        else tx("urge.followup.ask", minutes=FOLLOW_UP_MINUTES)
    )
    rows = _scale(UrgeAction.FOLLOW_UP, urge_id)
    rows.append(
        [
            (
                tx("urge.followup.btn_not_now"),
                UrgeButton(UrgeAction.FOLLOW_UP_NOT_NOW, urge_id).encode(),
            )
        ]
    )
    return text, rows


def compare_text(tx: Tx, before: int, after: int) -> str:
    line = tx("urge.followup.compare", before=before, after=after)
    return f"{line}\n\n{tx(f'urge.followup.{check_back_key(before, after)}')}"


def draft_offer_back_view(tx: Tx, draft_id: str, *, neutral: bool) -> tuple[str, Rows]:
    text = tx("urge.draft.offer_back_neutral") if neutral else tx("urge.draft.offer_back")
    return text, draft_buttons(tx, draft_id)


def draft_buttons(tx: Tx, draft_id: str, *, read: bool = True) -> Rows:
    first: list[Button] = []
    if read:
        first.append(
            (tx("urge.draft.btn_read"), UrgeButton(UrgeAction.READ_DRAFT, draft_id).encode())
        )
    return [
        first,
        [
            (tx("urge.draft.btn_keep"), UrgeButton(UrgeAction.KEEP_DRAFT, draft_id).encode()),
            (tx("urge.draft.btn_delete"), UrgeButton(UrgeAction.DELETE_DRAFT, draft_id).encode()),
        ],
    ]


def reasons_view(tx: Tx, reasons: str | None) -> tuple[list[str], Rows]:
    """The messages showing them (more than one only for reasons longer than a message;
    the button goes under the last) and the button."""
    if not reasons:
        return [tx("reasons.none")], [
            [(tx("reasons.btn_write"), UrgeButton(UrgeAction.EDIT_REASONS).encode())]
        ]
    return in_parts(tx("reasons.heading"), reasons), [
        [(tx("reasons.btn_edit"), UrgeButton(UrgeAction.EDIT_REASONS).encode())]
    ]


_MARK_BUTTONS: tuple[tuple[MarkKind, str, str], ...] = (
    (MarkKind.START, "nocontact.btn_start", "start"),
    (MarkKind.PAUSE, "nocontact.btn_pause", "pause"),
    (MarkKind.RESUME, "nocontact.btn_resume", "resume"),
    (MarkKind.RESET, "nocontact.btn_reset", "reset"),
    (MarkKind.STOP, "nocontact.btn_stop", "stop"),
)


def no_contact_view(
    tx: Tx, count: NoContact, *, lead: str | None = None, in_checkin: bool = False
) -> tuple[str, Rows]:
    """The count and the buttons its state accepts (never a button that would do nothing)."""
    if count.state is State.RUNNING:
        status = tx("nocontact.running", day=count.day)
    elif count.state is State.PAUSED:
        status = tx("nocontact.paused_status", day=count.day)
    else:
        status = tx("nocontact.offer")
    text = status if lead is None else f"{lead}\n\n{status}"
    ok = allowed(count.state)
    row = [
        (tx(key), NoContactButton(value).encode())
        for kind, key, value in _MARK_BUTTONS
        if kind in ok
    ]
    rows: Rows = [row[:2], row[2:]] if len(row) > 2 else [row]
    if count.state is State.OFF:
        rows.append([(tx("nocontact.btn_earlier"), NoContactButton("earlier").encode())])
    if count.state is not State.OFF:
        toggle = (
            ("inoff", "nocontact.btn_checkin_off")
            if in_checkin
            else ("inon", "nocontact.btn_checkin_on")
        )
        rows.append([(tx(toggle[1]), NoContactButton(toggle[0]).encode())])
    return text, rows


EARLIER_DAYS = (1, 2, 3, 4, 5, 6, 7, 14)


def earlier_view(
    tx: Tx, today: dt.date, formats: str, *, lead: str | None = None
) -> tuple[str, Rows]:
    """Which day was day 1: a day of the last two weeks to tap, or one typed after
    /nocontact ("/nocontact 3 November", in the person's own way of writing dates)."""
    example = local_format.long_day(today - dt.timedelta(days=10), formats)
    ask = tx("nocontact.earlier_ask", example=f"/nocontact {example}")
    days = [today - dt.timedelta(days=n) for n in EARLIER_DAYS]
    buttons: list[Button] = [
        (
            tx("nocontact.btn_yesterday") if n == 1 else local_format.short_day(day, formats),
            NoContactButton(f"from:{day.isoformat()}").encode(),
        )
        for n, day in zip(EARLIER_DAYS, days, strict=True)
    ]
    rows: Rows = [buttons[i : i + 2] for i in range(0, len(buttons), 2)]
    rows.append([(tx("nocontact.btn_start"), NoContactButton("start").encode())])
    return (ask if lead is None else f"{lead}\n\n{ask}"), rows


def reset_confirm_view(tx: Tx) -> tuple[str, Rows]:
    return tx("nocontact.reset_confirm"), [
        [
            (tx("nocontact.btn_reset_yes"), NoContactButton("resetok").encode()),
            (tx("nocontact.btn_reset_no"), NoContactButton("resetno").encode()),
        ]
    ]


def mood_row(tx: Tx, local_date: str) -> list[Button]:
    """The optional 1-5 tap under a check-in: how the day was."""
    labels = {1: tx("mood.btn_low"), 5: tx("mood.btn_high")}
    return [(labels.get(n, str(n)), MoodButton(local_date, n).encode()) for n in range(1, 6)]


def checkin_rows(tx: Tx, local_date: str) -> Rows:
    """What the check-in offers from this feature: the day's mood, and "A hard moment"."""
    return [
        mood_row(tx, local_date),
        [(tx("urge.label"), UrgeButton(UrgeAction.FROM_CHECKIN).encode())],
    ]
