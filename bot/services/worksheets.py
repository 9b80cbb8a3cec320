"""The worksheet flow without Telegram: where a person is, their sealed answers, and the texts.

Positions and answers live in the database (bot/storage/worksheets.py), so a restart, or a
pause of several days, resumes at the same question. The person's stored `state` is
`ws:<worksheet>:<question message id>:<"Saved" message id>`: the worksheet whose question is
waiting for typed text, plus the two bot messages of the current step, so discreet mode can
delete them later (ids only, never text; 0 means none).

Texts are built as plain text plus entity spans (bold, italic, blockquote) rather than HTML:
nothing a person wrote ever needs escaping, and a length check is a plain UTF-16 count.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from bot.clock import Clock
from bot.problems import TELEGRAM_MESSAGE_LIMIT
from bot.services.people import Person
from bot.services.worksheet_model import (
    MESSAGE_HEADROOM,
    Question,
    Worksheet,
    telegram_length,
)
from bot.storage.worksheets import PartRow, ProgressRow, WorksheetStore, answer_slot
from bot.texts import Tx

STATE_PREFIX = "ws"
# The same reserve content validation keeps under Telegram's limit, for our own lines.
MESSAGE_BUDGET = TELEGRAM_MESSAGE_LIMIT - MESSAGE_HEADROOM
# A quoted answer in a question view is cut here; Review shows all of it.
QUOTE_BUDGET = 1500
# An answer is not started at the foot of a page with less room than this.
_MIN_PIECE = 200
_STATE = re.compile(
    r"ws:([a-z0-9_]{1,40})(?::([0-9]{1,12}):([0-9]{1,12}))?(?::([0-9]{1,4}|-1):([0-9]{1,4}|-1))?"
)


def _follow_question(row: ProgressRow, worksheet: Worksheet) -> ProgressRow:
    """The person's place is their question: if content moved it, follow it. A question
    that no longer exists leaves the stored index, kept within the worksheet."""
    position = min(row.position, worksheet.question_count)
    if row.question_id is not None and not row.finished:
        with contextlib.suppress(KeyError):  # removed from content: keep the index
            position = worksheet.position_of(row.question_id)
    return row if position == row.position else dataclasses.replace(row, position=position)


# --- the person's step ------------------------------------------------------------------


@dataclass
class Step:
    worksheet_id: str
    question_message: int = 0
    saved_message: int = 0
    # The question on screen, and the one on screen before it (-1: none). Text whose
    # message id is below `question_message` was typed before this question appeared: it
    # belongs to `previous`.
    position: int = -1
    previous: int = -1

    def state(self) -> str:
        return (
            f"{STATE_PREFIX}:{self.worksheet_id}:{self.question_message}:{self.saved_message}"
            f":{self.position}:{self.previous}"
        )

    def message_ids(self) -> list[int]:
        return [m for m in (self.question_message, self.saved_message) if m]


def parse_step(state: str) -> Step | None:
    found = _STATE.fullmatch(state)
    if found is None:
        return None
    return Step(
        found.group(1),
        int(found.group(2) or 0),
        int(found.group(3) or 0),
        int(found.group(4) or -1),
        int(found.group(5) or -1),
    )


# --- text with entities -----------------------------------------------------------------


@dataclass(frozen=True)
class Span:
    kind: str  # a Telegram MessageEntity type: "bold", "italic", "blockquote"
    offset: int  # UTF-16 code units, as Telegram counts
    length: int


@dataclass
class Rich:
    text: str = ""
    spans: list[Span] = field(default_factory=list)

    @property
    def length(self) -> int:
        return telegram_length(self.text)

    def add(self, text: str, kind: str | None = None) -> Rich:
        if kind is not None and text.strip():
            self.spans.append(Span(kind, self.length, telegram_length(text)))
        self.text += text
        return self


def cut(text: str, budget: int) -> str:
    """At most `budget` UTF-16 units from the start of `text`, ending on a space when one is
    near the end (a word is split only when there is no other way)."""
    if telegram_length(text) <= budget:
        return text
    units = 0
    end = 0
    for end, char in enumerate(text):  # noqa: B007 - `end` is the result
        units += 2 if ord(char) > 0xFFFF else 1
        if units > budget:
            break
    kept = text[:end]
    space = kept.rfind(" ")
    return kept[: space + 1] if space > len(kept) * 3 // 4 else kept


# --- the service ------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    question: Question
    parts: tuple[str, ...]
    first_at: int


class WorksheetService:
    def __init__(
        self, store: WorksheetStore, worksheets: Mapping[str, Worksheet], clock: Clock
    ) -> None:
        self.store = store
        self.worksheets = worksheets
        self._clock = clock

    def _now(self) -> int:
        return int(self._clock().timestamp())

    def get(self, worksheet_id: str) -> Worksheet | None:
        return self.worksheets.get(worksheet_id)

    async def progress(self, person: Person, worksheet: Worksheet) -> ProgressRow | None:
        row = await self.store.progress(person.person_id, worksheet.id)
        return None if row is None else _follow_question(row, worksheet)

    async def overview(self, person: Person) -> list[tuple[Worksheet, ProgressRow | None]]:
        rows = {r.worksheet_id: r for r in await self.store.all_progress(person.person_id)}
        return [
            (w, _follow_question(rows[w.id], w) if w.id in rows else None)
            for w in self.worksheets.values()
        ]

    async def in_progress(self, person: Person) -> list[Worksheet]:
        return [w for w, row in await self.overview(person) if row is not None and not row.finished]

    async def begin(self, person: Person, worksheet: Worksheet) -> ProgressRow:
        first = worksheet.questions[0].id if worksheet.questions else None
        await self.store.begin(person.person_id, worksheet.id, self._now(), first)
        row = await self.store.progress(person.person_id, worksheet.id)
        assert row is not None
        return row

    async def move(self, person: Person, worksheet: Worksheet, position: int) -> bool:
        """Go to `position`; past the last question the worksheet is finished (True)."""
        finished = position >= worksheet.question_count
        position = max(0, min(position, worksheet.question_count))
        question_id = None if finished else worksheet.questions[position].id
        await self.store.move(
            person.person_id,
            worksheet.id,
            position,
            self._now(),
            finished=finished,
            question_id=question_id,
        )
        return finished

    async def save_part(
        self, person: Person, worksheet: Worksheet, question: Question, message_id: int, text: str
    ) -> int:
        """Store one message of an answer; returns how many messages the answer has now."""
        slot = answer_slot(worksheet.id, question.id, message_id)
        await self.store.add_part(
            person.person_id,
            worksheet.id,
            question.id,
            message_id,
            person.cipher.seal_text(slot, text),
            self._now(),
        )
        return await self.store.count_parts(person.person_id, worksheet.id, question.id)

    async def update_part(self, person: Person, message_id: int, text: str) -> bool:
        """An edited message: True if it was part of an answer (now updated)."""
        row = await self.store.part(person.person_id, message_id)
        if row is None:
            return False
        sealed = person.cipher.seal_text(row.slot, text)
        await self.store.replace_part(person.person_id, message_id, sealed, self._now())
        return True

    def _open(self, person: Person, rows: Sequence[PartRow]) -> tuple[str, ...]:
        return tuple(person.cipher.open_text(r.slot, r.text_enc) for r in rows)

    async def answer(self, person: Person, worksheet: Worksheet, question: Question) -> Answer:
        rows = await self.store.parts(person.person_id, worksheet.id, question.id)
        return Answer(question, self._open(person, rows), rows[0].created_at if rows else 0)

    async def answers(self, person: Person, worksheet_id: str) -> dict[str, Answer]:
        """Every answered question, in the worksheet's order; answers to questions the content
        no longer has come last, titled by their id, so nothing a person wrote goes missing."""
        rows: dict[str, list[PartRow]] = {}
        for row in await self.store.parts(person.person_id, worksheet_id):
            rows.setdefault(row.question_id, []).append(row)
        worksheet = self.worksheets.get(worksheet_id)
        known = [] if worksheet is None else [q for q in worksheet.questions if q.id in rows]
        order = known + [
            Question(qid, qid, None) for qid in rows if qid not in {q.id for q in known}
        ]
        return {
            q.id: Answer(q, self._open(person, rows[q.id]), rows[q.id][0].created_at) for q in order
        }

    async def started(self, person: Person) -> list[ProgressRow]:
        return await self.store.all_progress(person.person_id)

    async def answer_message_ids(
        self, person: Person, worksheet: Worksheet, question: Question | None = None
    ) -> list[int]:
        rows = await self.store.parts(
            person.person_id, worksheet.id, None if question is None else question.id
        )
        return [r.message_id for r in rows]

    async def clear_answer(self, person: Person, worksheet: Worksheet, question: Question) -> None:
        await self.store.delete_answer(person.person_id, worksheet.id, question.id)

    async def delete(self, person: Person, worksheet: Worksheet) -> None:
        await self.store.delete_worksheet(person.person_id, worksheet.id)


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


def intro_view(worksheet: Worksheet) -> Rich:
    rich = Rich().add(worksheet.title, "bold").add("\n\n")
    return rich.add(worksheet.intro).add("\n\n").add(worksheet.before_you_start)


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
    if parts:
        rich.add("\n\n").add(tx("worksheets.your_answer")).add("\n")
        whole = "\n\n".join(parts)
        quoted = cut(whole, min(QUOTE_BUDGET, MESSAGE_BUDGET - rich.length - 200))
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
            block = telegram_length(answer.question.text) + telegram_length(text) + 4
            if page.length > bare and page.length + block > budget:
                pages.append(ReviewPage(index, page))
                page = fresh(continued=False)
            page.add("\n\n").add(answer.question.text, "bold").add("\n")
            rest = text
            while rest:
                if budget - page.length < _MIN_PIECE:
                    pages.append(ReviewPage(index, page))
                    page = fresh(continued=True).add("\n")
                piece = cut(rest, budget - page.length) or rest[0]
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
