"""Worksheet data without Telegram: where a person is in each worksheet and their sealed
answers.

Positions and answers live in the database (bot/storage/worksheets.py), so a restart, or a
pause of several days, resumes at the same question. The decisions on top (what typed text
answers, finishing, deleting) are in bot/features/worksheets/flow.py; what a person sees is
built in bot/features/worksheets/views.py.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.content.worksheet_model import Question, Worksheet
from bot.core.clock import Clock
from bot.crypto import CryptoError, versioned_slot
from bot.people.damaged import DamagedRows
from bot.people.row_versions import next_version, open_versioned
from bot.people.service import Person
from bot.storage.keystore import KeyStore
from bot.storage.worksheets import PartRow, ProgressRow, WorksheetStore, answer_slot


def _follow_question(row: ProgressRow, worksheet: Worksheet) -> ProgressRow:
    """The person's place is their question: if content moved it, follow it. A question
    that no longer exists leaves the stored index, kept within the worksheet."""
    position = min(row.position, worksheet.question_count)
    if row.question_id is not None and not row.finished:
        with contextlib.suppress(KeyError):  # removed from content: keep the index
            position = worksheet.position_of(row.question_id)
    return row if position == row.position else dataclasses.replace(row, position=position)


# --- the service ------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    question: Question
    parts: tuple[str, ...]
    first_at: int


class WorksheetService:
    def __init__(
        self,
        store: WorksheetStore,
        worksheets: Mapping[str, Worksheet],
        clock: Clock,
        keys: KeyStore,
    ) -> None:
        self.store = store
        self.worksheets = worksheets
        self._clock = clock
        self._keys = keys  # the anchors that refuse a rolled-back part (row_versions.py)
        self._damaged = DamagedRows("answer")

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
        if row is None:  # just written in the same connection; `python -O` keeps this check
            raise RuntimeError("worksheet progress missing right after begin")
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
        # Normally 0; a message stored again after its answer was deleted (an update read
        # twice) takes the deletion's anchor, so it opens and the deleted copy does not.
        version = self._keys.anchored_slot(person.person_id, slot)
        await self.store.add_part(
            person.person_id,
            worksheet.id,
            question.id,
            message_id,
            person.cipher.seal_text(versioned_slot(slot, version), text),
            self._now(),
            version,
        )
        return await self.store.count_parts(person.person_id, worksheet.id, question.id)

    async def update_part(self, person: Person, message_id: int, text: str) -> bool:
        """An edited message: True if it was part of an answer (now updated)."""
        row = await self.store.part(person.person_id, message_id)
        if row is None:
            return False
        version = next_version(self._keys, person, row.slot, row.version)
        sealed = person.cipher.seal_text(versioned_slot(row.slot, version), text)
        await self.store.replace_part(person.person_id, message_id, sealed, self._now(), version)
        await self._keys.anchor_slots(person.person_id, {row.slot: version})
        return True

    def _open(self, person: Person, rows: Sequence[PartRow]) -> tuple[str, ...]:
        """The parts that open. One that does not (damaged) is left out and noted, so the
        rest is still shown and the person offered to erase it; a rolled-back one still
        raises (the whole file may be an older copy)."""
        opened: list[str] = []
        for r in rows:
            try:
                opened.append(open_versioned(self._keys, person, r.slot, r.version, r.text_enc))
            except (CryptoError, ValueError) as exc:
                self._damaged.note(person.person_id, str(r.message_id), exc)
        return tuple(opened)

    def take_damaged(self, person: Person) -> list[int]:
        """Message ids of the parts that did not open since last asked."""
        return [int(m) for m in self._damaged.take(person.person_id)]

    async def erase_damaged(self, person: Person, message_id: int) -> bool:
        """Erase one part, only if it still does not open (an old button, or a forged one,
        erases nothing that can be read): True once it is not there. Anchored like any
        deletion."""
        row = await self.store.part(person.person_id, message_id)
        if row is None:
            return True  # gone already (an earlier tap, /forget)
        try:
            open_versioned(self._keys, person, row.slot, row.version, row.text_enc)
        except (CryptoError, ValueError):
            pass
        else:
            return False
        await self.store.delete_part(person.person_id, message_id)
        await self._bury(person, [row])
        return True

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
        opened = {
            q.id: Answer(q, self._open(person, rows[q.id]), rows[q.id][0].created_at) for q in order
        }
        return {qid: answer for qid, answer in opened.items() if answer.parts}

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
        rows = await self.store.parts(person.person_id, worksheet.id, question.id)
        await self.store.delete_answer(person.person_id, worksheet.id, question.id)
        await self._bury(person, rows)

    async def delete(self, person: Person, worksheet: Worksheet) -> None:
        rows = await self.store.parts(person.person_id, worksheet.id)
        await self.store.delete_worksheet(person.person_id, worksheet.id)
        await self._bury(person, rows)

    async def _bury(self, person: Person, rows: Sequence[PartRow]) -> None:
        """Anchor each deleted part one past its last version, so a copy put back is
        refused. After the delete: a crash between loses only this protection."""
        await self._keys.anchor_slots(
            person.person_id,
            {r.slot: next_version(self._keys, person, r.slot, r.version) for r in rows},
        )
