"""The worksheet flow's decisions, without Telegram: every change of a person's worksheet
state, what "finished" means, which question a message belongs to, delete and reset.

Handlers (bot/features/worksheets/handlers/worksheets.py) ask and get an outcome back; they send
what the
outcome says (views from bot/features/worksheets/views.py) and report the ids of what they sent.
Unit-tested in tests/unit/features/worksheets/test_worksheet_flow.py, end to end in
tests/e2e/test_worksheets.py.

How answering works, as a person sees it:

- Every message typed while a question waits is one part of its answer, sealed and stored
  before anything is sent back. The first part gets a short "Saved." with Next, Back and
  Pause; later parts are added to the same answer and that same message is edited to
  "Saved (n messages).", so several messages cost one bot message. Next moves on.
- Back (and coming forward again to an answered question) shows the question with what is
  saved quoted, sent with protect_content. Text typed then is ADDED to that answer: nothing a
  person wrote is ever dropped by accident. "Clear this answer" starts the answer afresh and
  deletes its messages from the chat.
- Editing a message that is part of an answer updates the stored part silently: Telegram
  already marks the message as edited, and a reply would only add noise to the chat.
- A crisis match inside an answer (either tier; bot/features/crisis/held.py decides):
  a message that is only a crisis word ("help") is not stored at all; longer text is held
  sealed (in the person's sealed profile) and kept as part of the answer only when they
  press [Keep as my answer]; a tier-2 answer in the safety plan is saved with a quiet line.
  No next question is sent: the crisis reply or the check gains "Continue the worksheet",
  which returns to the question they were on (never the next one: nothing moved on while
  they were in crisis), and "Pause".
- Discreet mode: once a part is saved, the person's message and the question are deleted;
  only "Saved." stays, and it goes at the next step. A button that moves on deletes the
  message it was pressed on (intro, question, review page). Without discreet mode, that
  message only loses its buttons, so old buttons cannot be pressed by mistake.
- Old buttons check the position they were made for; a mismatch says "expired". Forged or
  malformed callback data does nothing at all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import Enum

from bot.content.worksheet_model import Worksheet
from bot.features.crisis.held import SAFETY_PLAN, Held, HeldDecision, decide, hold
from bot.features.worksheets.prefs import WorksheetPrefs
from bot.features.worksheets.service import Answer, WorksheetService
from bot.features.worksheets.state import WorksheetState, worksheet_state
from bot.matching.crisis import CrisisMatch
from bot.people.ledger import MessageLedger
from bot.people.service import PeopleService, Person
from bot.storage.worksheets import ProgressRow

# --- outcomes -------------------------------------------------------------------------


class Opening(Enum):
    NEW = "new"  # never started: show the intro
    FINISHED = "finished"  # show what they can do with it
    RESUME = "resume"  # show the question they are on


@dataclass(frozen=True)
class Open:
    kind: Opening
    position: int = 0


@dataclass(frozen=True)
class Gone:
    """The worksheet the state pointed at left the content: nothing waits any more."""


@dataclass(frozen=True)
class Reopen:
    """Text for a worksheet that is not in progress (finished meanwhile): open it afresh."""

    worksheet: Worksheet


@dataclass(frozen=True)
class AddedToPrevious:
    """Typed while the previous question was still on screen: added to that answer."""

    worksheet: Worksheet
    number: int  # 1-based, as the person sees it
    delete: tuple[int, ...]  # discreet mode: their message leaves the chat


@dataclass(frozen=True)
class Saved:
    """One part of the answer to the question on screen is stored."""

    worksheet: Worksheet
    position: int
    count: int  # how many messages the answer has now
    step: WorksheetState  # to be settled once the acknowledgement is sent
    delete: tuple[int, ...]  # discreet mode: their message and the question leave


@dataclass(frozen=True)
class HeldBack:
    """Crisis text inside an answer: held sealed until the person says keep or don't keep."""

    worksheet: Worksheet
    position: int  # the question it would belong to (0-based)
    delete: tuple[int, ...]  # discreet mode: their message leaves the chat (it is sealed)


@dataclass(frozen=True)
class NotKept:
    """Only a crisis word ("help"): a call, not an answer, so nothing is stored."""

    worksheet: Worksheet
    position: int


Received = Gone | Reopen | AddedToPrevious | Saved | HeldBack | NotKept


class WorksheetFlow:
    def __init__(
        self, worksheets: WorksheetService, people: PeopleService, ledger: MessageLedger
    ) -> None:
        self._data = worksheets
        self._people = people
        self._ledger = ledger

    # --- reading --------------------------------------------------------------------

    def get(self, worksheet_id: str) -> Worksheet | None:
        return self._data.get(worksheet_id)

    async def overview(self, person: Person) -> list[tuple[Worksheet, ProgressRow | None]]:
        return await self._data.overview(person)

    async def in_progress(self, person: Person) -> list[Worksheet]:
        return await self._data.in_progress(person)

    async def answer(self, person: Person, worksheet: Worksheet, position: int) -> Answer:
        return await self._data.answer(person, worksheet, worksheet.questions[position])

    async def answers(self, person: Person, worksheet_id: str) -> dict[str, Answer]:
        return await self._data.answers(person, worksheet_id)

    async def update_part(self, person: Person, message_id: int, text: str) -> bool:
        return await self._data.update_part(person, message_id, text)

    def take_damaged(self, person: Person) -> list[int]:
        return self._data.take_damaged(person)

    async def erase_damaged(self, person: Person, message_id: int) -> bool:
        return await self._data.erase_damaged(person, message_id)

    # --- where a person is ----------------------------------------------------------

    async def opening(self, person: Person, worksheet: Worksheet) -> Open:
        """New: the intro. In progress: the question they are on. Finished: what they can do."""
        row = await self._data.progress(person, worksheet)
        if row is None:
            return Open(Opening.NEW)
        if row.finished or row.position >= worksheet.question_count:
            if not row.finished:  # the content lost questions since: past the end is finished
                await self._data.move(person, worksheet, worksheet.question_count)
            return Open(Opening.FINISHED)
        return Open(Opening.RESUME, row.position)

    async def begin(self, person: Person, worksheet: Worksheet) -> int | None:
        """Start (or find) the worksheet: the position to show, None if it is finished."""
        row = await self._data.begin(person, worksheet)
        return None if row.finished else row.position

    async def is_current(self, person: Person, worksheet: Worksheet, position: int) -> bool:
        """Whether `position` is where the person is in this worksheet (a button is fresh)."""
        row = await self._data.progress(person, worksheet)
        return row is not None and not row.finished and row.position == position

    async def go_to(self, person: Person, worksheet: Worksheet, position: int) -> None:
        await self._data.move(person, worksheet, position)

    async def continue_at(self, person: Person, worksheet: Worksheet) -> int | None:
        """Where "Continue" under a crisis reply goes: back to the question the person is
        on, never the next one (they may not have finished it, and skipping a question
        because they asked for help would lose their place); None if not in progress."""
        row = await self._data.progress(person, worksheet)
        if row is None or row.finished or row.position >= worksheet.question_count:
            return None
        return row.position

    async def keep_held(self, person: Person, held: Held) -> Worksheet | None:
        """[Keep as my answer]: the held text joins the answer it was written for (its own
        message id keeps the parts in the order they were typed); None if that worksheet
        or question left the content meanwhile."""
        worksheet = self._data.get(held.worksheet_id)
        if worksheet is None:
            return None
        question = next((q for q in worksheet.questions if q.id == held.question_id), None)
        if question is None:
            return None
        await self._data.save_part(person, worksheet, question, held.message_id, held.text)
        return worksheet

    async def again(self, person: Person, worksheet: Worksheet) -> bool:
        """Start a finished worksheet over (answers kept); False if it is not finished."""
        row = await self._data.progress(person, worksheet)
        if row is None or not row.finished:
            return False
        await self._data.move(person, worksheet, 0)
        return True

    # --- the step on screen ---------------------------------------------------------

    def shown_before(self, person: Person, worksheet: Worksheet) -> int:
        step = worksheet_state(person.state)
        return step.position if step is not None and step.worksheet_id == worksheet.id else -1

    def leave_step(self, person: Person, pressed: int | None = None) -> list[int]:
        """Done with the current step's messages: the ids to delete (discreet mode: the
        step's own messages and the pressed one). Which question was shown stays known."""
        step = worksheet_state(person.state)
        ids: list[int] = []
        if person.profile.discreet:
            ids += step.message_ids() if step is not None else []
            ids += [pressed] if pressed else []
        if step is not None:
            person.state = step.off_screen().encode()
        return ids

    async def shown(self, person: Person, worksheet: Worksheet, step: WorksheetState) -> None:
        """A question (or its acknowledgement) is on screen: typed text now answers it."""
        person.state = step.encode()
        if person.profile.part(WorksheetPrefs).active_worksheet != worksheet.id:
            person.profile.part(WorksheetPrefs).active_worksheet = worksheet.id
            await self._people.save(person)
        else:
            await self._people.set_state(person, person.state)

    async def finish(self, person: Person, worksheet: Worksheet) -> None:
        step = worksheet_state(person.state)
        if step is not None and step.worksheet_id == worksheet.id:
            # Only this worksheet's question closes: an old button of another worksheet
            # must not cancel the question waiting on screen.
            person.state = ""
        if person.profile.part(WorksheetPrefs).active_worksheet == worksheet.id:
            person.profile.part(WorksheetPrefs).active_worksheet = None
        await self._people.save(person)

    async def pause(self, person: Person) -> None:
        # The active worksheet stays, so /resume knows where to go; typed text is no longer
        # an answer.
        await self._people.set_state(person, "")

    # --- typed answers --------------------------------------------------------------

    @staticmethod
    def held_decision(
        person: Person,
        match: CrisisMatch | None,
        text: str,
        covers: Callable[[str], bool],
        *,
        held_back: bool,
    ) -> HeldDecision:
        """What bot/features/crisis/held.py decides for an answer that triggered `match`; the safety
        plan's quiet line only when the check really was `held_back` for it."""
        step = worksheet_state(person.state)
        in_plan = step is not None and step.worksheet_id == SAFETY_PLAN and held_back
        return decide(match, text, covers, safety_plan=in_plan)

    async def receive(
        self, person: Person, message_id: int, text: str, decision: HeldDecision = HeldDecision.KEEP
    ) -> Received:
        """A message typed while a worksheet question waits. Stored (or held) before
        anything is sent back: once the person sees a reply, it is on disk. `decision` is
        what bot/features/crisis/held.py decided for a message with a crisis match."""
        step = worksheet_state(person.state)
        worksheet = self._data.get(step.worksheet_id) if step is not None else None
        if step is None or worksheet is None:
            person.state = ""
            if self._data.get(person.profile.part(WorksheetPrefs).active_worksheet or "") is None:
                person.profile.part(WorksheetPrefs).active_worksheet = None
            await self._people.save(person)
            return Gone()
        row = await self._data.progress(person, worksheet)
        if row is None or row.finished or row.position >= worksheet.question_count:
            await self._people.set_state(person, "")
            return Reopen(worksheet)
        discreet = person.profile.discreet
        before = (
            step.question_message
            and message_id < step.question_message
            and 0 <= step.previous < worksheet.question_count
        )
        if decision in (HeldDecision.ASK, HeldDecision.DISCARD):
            position = step.previous if before else row.position
            if decision is HeldDecision.DISCARD:
                return NotKept(worksheet, position)
            question = worksheet.questions[position]
            hold(person.profile, Held(message_id, text, worksheet.id, question.id))
            await self._people.save(person)
            return HeldBack(worksheet, position, (message_id,) if discreet else ())
        if before:
            # Typed while the previous question was still the one on screen (before this
            # one arrived): it is part of that answer, not this one.
            question = worksheet.questions[step.previous]
            await self._data.save_part(person, worksheet, question, message_id, text)
            gone = (message_id,) if discreet or question.sensitive else ()
            return AddedToPrevious(worksheet, step.previous + 1, gone)
        question = worksheet.questions[row.position]
        count = await self._data.save_part(person, worksheet, question, message_id, text)
        delete: tuple[int, ...] = ()
        if discreet:
            delete = tuple(i for i in (message_id, step.question_message) if i)
            step = replace(step, question_message=0)
        elif question.sensitive:
            delete = (message_id,)  # a detail that must not lie in the chat, in any mode
        return Saved(worksheet, row.position, count, step, delete)

    # --- clearing and deleting ------------------------------------------------------

    async def clear_answer(self, person: Person, worksheet: Worksheet, position: int) -> list[int]:
        """The answer at `position` starts afresh; returns the ids of the messages it was."""
        question = worksheet.questions[position]
        written = await self._data.answer_message_ids(person, worksheet, question)
        await self._data.clear_answer(person, worksheet, question)
        return written

    async def delete(self, person: Person, worksheet: Worksheet) -> list[int]:
        """Delete every answer of `worksheet` and reset the person's place in it; returns
        the ids of the chat messages that showed them (theirs, and ours quoting them)."""
        written = await self._data.answer_message_ids(person, worksheet)
        await self._data.delete(person, worksheet)
        ids: list[int] = []
        step = worksheet_state(person.state)
        if step is not None and step.worksheet_id == worksheet.id:
            ids += self.leave_step(person)
            person.state = ""
        if person.profile.part(WorksheetPrefs).active_worksheet == worksheet.id:
            person.profile.part(WorksheetPrefs).active_worksheet = None
        await self._people.save(person)
        quoting = await self._ledger.deletable(person.person_id, quoting=worksheet.id)
        return _unique([*ids, *written, *quoting])

    async def take_pending(self, person: Person) -> str | None:
        """A worksheet deep-linked before onboarding ended, now due to open (once)."""
        pending = person.profile.part(WorksheetPrefs).pending_worksheet
        if not pending:
            return None
        person.profile.part(WorksheetPrefs).pending_worksheet = None
        await self._people.save(person)
        return pending


def _unique(ids: Sequence[int]) -> list[int]:
    return sorted({i for i in ids if i})
