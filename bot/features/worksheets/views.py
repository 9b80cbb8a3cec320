"""What a worksheet looks like in the chat: its intro, a question (with any saved answer
quoted), review pages, and every button of the flow. Pure: data and a translator in, text
and buttons out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.content.texts import Tx
from bot.content.worksheet_model import MESSAGE_HEADROOM, Worksheet
from bot.core.buttons import Button, Rows
from bot.core.rich_text import Rich
from bot.core.telegram_text import MESSAGE_LIMIT, truncate, utf16_len
from bot.features.worksheets.callbacks import WorksheetButton
from bot.features.worksheets.service import Answer
from bot.storage.worksheets import ProgressRow

# The same reserve content validation keeps under Telegram's limit, for our own lines.
MESSAGE_BUDGET = MESSAGE_LIMIT - MESSAGE_HEADROOM
# A quoted answer in a question view is cut here; Review shows all of it.
QUOTE_BUDGET = 1500
# An answer is not started at the foot of a page with less room than this.
_MIN_PIECE = 200


# --- text with entities -----------------------------------------------------------------


# --- views ------------------------------------------------------------------------------


def status_label(tx: Tx, worksheet: Worksheet, row: ProgressRow | None) -> str:
    if row is None:
        return tx("worksheets.status_new")
    if row.finished:
        return tx("worksheets.status_finished")
    return tx(
        "worksheets.status_progress",
        done=min(row.position, worksheet.question_count),
        total=worksheet.question_count,
    )


def intro_view(worksheet: Worksheet, tx: Tx | None = None, *, discreet: bool = False) -> Rich:
    """With `tx`: a line on what happens to the answers in the chat in the person's mode."""
    rich = Rich().add(worksheet.title, "bold").add("\n\n")
    rich.add(worksheet.intro).add("\n\n").add(worksheet.before_you_start)
    if tx is not None:
        key = "discretion.intro_discreet" if discreet else "discretion.intro_normal"
        rich.add("\n\n").add(tx(key))
        if not discreet and any(q.sensitive for q in worksheet.questions):
            rich.add(" ").add(tx("discretion.intro_sensitive"))
    return rich


def question_view(
    tx: Tx, worksheet: Worksheet, position: int, parts: Sequence[str], *, lead: str = ""
) -> Rich:
    """A question, with its section's framing when it opens one and any saved answer quoted."""
    question = worksheet.questions[position]
    rich = Rich()
    if lead:
        rich.add(lead).add("\n\n")
    if worksheet.starts_section(position):
        section = worksheet.section_of(position)
        rich.add(section.title, "bold").add("\n").add(section.framing).add("\n\n")
    total = worksheet.question_count
    rich.add(tx("worksheets.question_number", n=position + 1, total=total), "italic").add("\n")
    rich.add(question.text, "bold")
    if question.hint:
        rich.add("\n").add(question.hint, "italic")
    if question.sensitive:
        rich.add("\n\n").add(tx("discretion.sensitive_hint"))
        if parts:
            # Never quoted back: the point is that the detail does not lie in the chat.
            rich.add("\n\n").add(tx("discretion.sensitive_saved"), "italic")
        return rich
    if parts:
        rich.add("\n\n").add(tx("worksheets.your_answer")).add("\n")
        whole = "\n\n".join(parts)
        quoted = truncate(whole, min(QUOTE_BUDGET, MESSAGE_BUDGET - rich.length - 200))
        rich.add(quoted, "blockquote")
        if quoted != whole:
            rich.add("\n").add(tx("worksheets.quote_shortened"), "italic")
        rich.add("\n").add(tx("worksheets.add_more"))
    return rich


@dataclass(frozen=True)
class ReviewPage:
    section: int
    rich: Rich


def review_pages(
    tx: Tx, worksheet: Worksheet, answers: Mapping[str, Answer], budget: int = MESSAGE_BUDGET
) -> list[ReviewPage]:
    """One page per section with answers; a section too long for one message goes on over
    several pages, and an answer too long for what is left of a page is split across them."""
    pages: list[ReviewPage] = []
    for index, section in enumerate(worksheet.sections):
        answered = [answers[q.id] for q in section.questions if q.id in answers]
        if not answered:
            continue
        heading = tx("worksheets.review_heading", title=worksheet.title, section=section.title)

        def fresh(*, continued: bool) -> Rich:
            page = Rich().add(heading, "bold")  # noqa: B023 - used within this iteration
            if continued:
                page.add("\n\n").add(tx("worksheets.review_continued"), "italic")
            return page

        page = fresh(continued=False)
        bare = page.length
        for answer in answered:
            text = "\n\n".join(answer.parts)
            block = utf16_len(answer.question.text) + utf16_len(text) + 4
            if page.length > bare and page.length + block > budget:
                pages.append(ReviewPage(index, page))
                page = fresh(continued=False)
            page.add("\n\n").add(answer.question.text, "bold").add("\n")
            rest = text
            while rest:
                if budget - page.length < _MIN_PIECE:
                    pages.append(ReviewPage(index, page))
                    page = fresh(continued=True).add("\n")
                piece = truncate(rest, budget - page.length) or rest[0]
                # Telegram trims a message's trailing whitespace, which would leave the
                # quote's span past the end; a break between pages needs no whitespace.
                piece = piece.rstrip() or piece
                page.add(piece, "blockquote")
                rest = rest[len(piece) :].lstrip()
                if rest:
                    pages.append(ReviewPage(index, page))
                    page = fresh(continued=True).add("\n")
        pages.append(ReviewPage(index, page))
    return pages


# --- buttons --------------------------------------------------------------------------


def _ws(action: str, worksheet: Worksheet | None = None, number: int = 0) -> str:
    return WorksheetButton(action, worksheet.id if worksheet else "", number).encode()


def step_buttons(
    tx: Tx, worksheet: Worksheet, position: int, *, answered: bool, clear: bool = False
) -> Rows:
    onward = tx("worksheets.btn_next") if answered else tx("worksheets.btn_skip")
    row: list[Button] = [(onward, _ws("next", worksheet, position))]
    if position > 0:
        row.append((tx("worksheets.btn_back"), _ws("back", worksheet, position)))
    row.append((tx("worksheets.btn_pause"), _ws("pause", worksheet)))
    rows = [row]
    if clear:
        rows.append([(tx("worksheets.btn_clear_answer"), _ws("clr", worksheet, position))])
    return rows


def finished_buttons(
    tx: Tx, worksheet: Worksheet, *, again: bool = False, answered: bool = True
) -> Rows:
    """`answered`: some answer is stored; without one there is nothing to review, export
    or delete, so the only way on is to go through it again."""
    if not answered:
        return [[(tx("worksheets.btn_again"), _ws("again", worksheet))]]
    rows: Rows = [
        [(tx("worksheets.btn_review"), _ws("rev", worksheet, 0))],
        [(tx("worksheets.btn_export"), _ws("exp"))],
        [(tx("worksheets.btn_delete"), _ws("del", worksheet))],
    ]
    if again:
        rows.insert(1, [(tx("worksheets.btn_again"), _ws("again", worksheet))])
    return rows


def intro_buttons(tx: Tx, worksheet: Worksheet) -> Rows:
    return [
        [(tx("worksheets.btn_start"), _ws("go", worksheet))],
        [(tx("worksheets.btn_not_now"), _ws("later"))],
    ]


def open_buttons(worksheets: Sequence[Worksheet]) -> Rows:
    return [[(w.title, _ws("open", w))] for w in worksheets]


def list_view(
    tx: Tx, overview: Sequence[tuple[Worksheet, ProgressRow | None]], lead: str = ""
) -> tuple[str, Rows]:
    lines = [lead] if lead else []
    lines.append(tx("worksheets.list_title"))
    for worksheet, row in overview:
        status = status_label(tx, worksheet, row)
        lines.append(
            tx(
                "worksheets.list_item",
                title=worksheet.title,
                status=status,
                summary=worksheet.summary,
            )
        )
    return "\n\n".join(lines), open_buttons([w for w, _ in overview])


def continue_row(tx: Tx, worksheet: Worksheet, position: int) -> list[Button]:
    """Added under a crisis reply when it came inside an answer."""
    return [
        (tx("worksheets.btn_continue"), _ws("cont", worksheet, position)),
        (tx("worksheets.btn_pause"), _ws("cpause", worksheet)),
    ]


def review_buttons(tx: Tx, worksheet: Worksheet, pages: Sequence[ReviewPage], page: int) -> Rows:
    buttons: list[Button] = []
    if page + 1 < len(pages):
        same = pages[page + 1].section == pages[page].section
        label = tx("worksheets.btn_more") if same else tx("worksheets.btn_next_section")
        buttons.append((label, _ws("rev", worksheet, page + 1)))
    buttons.append((tx("worksheets.btn_done"), _ws("revx")))
    return [buttons]


def delete_buttons(tx: Tx, worksheet: Worksheet) -> Rows:
    return [
        [(tx("worksheets.btn_delete_yes"), _ws("delok", worksheet))],
        [(tx("worksheets.btn_delete_no"), _ws("delno", worksheet))],
    ]
