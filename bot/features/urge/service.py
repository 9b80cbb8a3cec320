"""Riding the wave: the stored side of the urge flow, My reasons, no-contact days and
check-in moods. Everything a person chose or typed is sealed with their cipher before it
reaches bot/storage/urge.py; plaintext exists here only in memory.

The check-back ("I'll check back in 20 minutes") and the held draft's offer back are due
instants in indexed columns (`urges.follow_up_due`, `urge_drafts.offer_due`), read by one
repeating job (bot/features/urge/handlers.py): nothing lives in an in-memory timer, so a restart
loses none of them. A due row is claimed by a conditional UPDATE before anything is sent,
so two passes never ask twice.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from bot.content.urge_model import (
    FOLLOW_UP_DELAY,
    MAX_STRENGTH,
    READING_PERIOD,
    TRIGGERS,
    Reading,
    UrgeEvent,
    read_progress,
)
from bot.core.clock import Clock
from bot.features.progress.chart import MOOD_MAX, MOOD_MIN, ChartData, MoodRating
from bot.features.progress.no_contact import Mark, MarkKind, NoContact, State, allowed, no_contact
from bot.features.progress.prefs import NoContactPrefs
from bot.features.worksheets.service import WorksheetService
from bot.people.row_versions import open_versioned
from bot.people.service import PeopleService, Person, UnreadableDataError
from bot.storage.urge import (
    NO_CONTACT,
    REASONS,
    DraftRow,
    UrgeRow,
    UrgeStore,
    draft_slot,
    mood_slot,
    new_id,
    note_slot,
    urge_slot,
)

log = logging.getLogger(__name__)

SAFETY_PLAN = "safety_plan"
SAFE_PEOPLE = ("safe_people", "someone_who_knows")  # its questions that name people
# A check-back this late (the bot was down) would say "it's been 20 minutes" of hours:
# it is dropped rather than sent.
FOLLOW_UP_STALE = timedelta(hours=2)
# The held draft comes back the next day, at the hour it was written, kept to daytime.
OFFER_EARLIEST = time(9, 0)
OFFER_LATEST = time(21, 0)
# Typed words are kept whole: one Telegram message bounds them (4,096 characters), and a
# cut the person is not told of would lose what they meant to keep.


@dataclass(frozen=True)
class Urge:
    urge_id: str
    at: datetime
    strength: int
    trigger: str | None = None
    trigger_text: str | None = None
    follow_up: int | None = None
    follow_up_due: datetime | None = None

    def event(self) -> UrgeEvent:
        return UrgeEvent(self.at, self.strength, self.follow_up)

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "strength": self.strength,
            "trigger": self.trigger,
            "trigger_text": self.trigger_text,
            "follow_up": self.follow_up,
        }
        return json.dumps(data, separators=(",", ":"), sort_keys=True)


@dataclass(frozen=True)
class HeldDraft:
    draft_id: str
    text: str
    created_at: datetime


@dataclass(frozen=True)
class Due:
    """A check-back or an offer back whose time has come, claimed for sending."""

    person_id: str
    item_id: str  # urge_id or draft_id


def zone_of(person: Person) -> ZoneInfo:
    name = person.profile.timezone
    try:
        return ZoneInfo(name) if name else ZoneInfo("UTC")
    except (ValueError, KeyError):
        return ZoneInfo("UTC")


def earliest_start(marks: list[Mark], zone: ZoneInfo) -> datetime | None:
    """How far back a new count may begin: just after the latest mark (None: any day)."""
    if not marks:
        return None
    return max(m.at for m in marks) + timedelta(seconds=1)


def offer_back_at(written: datetime, zone: ZoneInfo) -> datetime:
    """The next local day, at the hour it was written, kept between 09:00 and 21:00."""
    local = written.astimezone(zone)
    at = min(max(local.time().replace(second=0, microsecond=0), OFFER_EARLIEST), OFFER_LATEST)
    when = datetime.combine(local.date() + timedelta(days=1), at, tzinfo=zone)
    return when.astimezone(UTC)


def _ts(at: datetime) -> int:
    return int(at.timestamp())


def _dt(ts: int) -> datetime:
    return datetime.fromtimestamp(ts, UTC)


def _strength(value: object) -> int | None:
    return value if isinstance(value, int) and 0 <= value <= MAX_STRENGTH else None


class UrgeService:
    def __init__(
        self,
        store: UrgeStore,
        worksheets: WorksheetService,
        people: PeopleService,
        clock: Clock,
    ) -> None:
        self.store = store
        self._worksheets = worksheets
        self._people = people
        self._clock = clock

    def now(self) -> datetime:
        return self._clock()

    # --- urges ------------------------------------------------------------------------------

    async def start(self, person: Person, strength: int) -> Urge:
        """A hard moment, logged with its strength; the check-back is due from now."""
        if _strength(strength) is None:
            raise ValueError("strength out of range")
        now = self.now()
        urge = Urge(new_id(), now, strength, follow_up_due=now + FOLLOW_UP_DELAY)
        await self.store.add_urge(
            person.person_id,
            urge.urge_id,
            _ts(now),
            person.cipher.seal_text(urge_slot(urge.urge_id), urge.to_json()),
            _ts(now + FOLLOW_UP_DELAY),
        )
        return urge

    def _open(self, person: Person, row: UrgeRow) -> Urge:
        raw = json.loads(person.cipher.open_text(urge_slot(row.urge_id), row.data_enc))
        trigger = raw.get("trigger")
        text = raw.get("trigger_text")
        return Urge(
            urge_id=row.urge_id,
            at=_dt(row.at),
            strength=_strength(raw.get("strength")) or 0,
            trigger=trigger if trigger in TRIGGERS else None,
            trigger_text=text if isinstance(text, str) else None,
            follow_up=_strength(raw.get("follow_up")),
            follow_up_due=None if row.follow_up_due is None else _dt(row.follow_up_due),
        )

    async def get(self, person: Person, urge_id: str) -> Urge | None:
        row = await self.store.urge(person.person_id, urge_id)
        return None if row is None else self._open(person, row)

    async def _put(self, person: Person, urge: Urge) -> None:
        await self.store.update_urge(
            person.person_id,
            urge.urge_id,
            person.cipher.seal_text(urge_slot(urge.urge_id), urge.to_json()),
            _ts(self.now()),
        )

    async def set_trigger(
        self, person: Person, urge_id: str, trigger: str | None, text: str | None = None
    ) -> Urge | None:
        urge = await self.get(person, urge_id)
        if urge is None:
            return None
        if trigger is not None and trigger not in TRIGGERS:
            raise ValueError("unknown trigger")
        words = text.strip() if text else None
        urge = Urge(
            urge.urge_id,
            urge.at,
            urge.strength,
            trigger,
            words or None,
            urge.follow_up,
            urge.follow_up_due,
        )
        await self._put(person, urge)
        return urge

    async def promise_follow_up(self, person: Person, urge_id: str) -> bool:
        """ "I'll check back in 20 minutes", said at the end of the flow: due from now.
        False when it was already answered (nothing to promise)."""
        urge = await self.get(person, urge_id)
        if urge is None or urge.follow_up is not None:
            return False
        await self.store.set_follow_up(person.person_id, urge_id, _ts(self.now() + FOLLOW_UP_DELAY))
        return True

    async def answer_follow_up(
        self, person: Person, urge_id: str, strength: int
    ) -> tuple[int, int] | None:
        """The strength at the check-back: (before, now), or None if already answered."""
        urge = await self.get(person, urge_id)
        if urge is None or urge.follow_up is not None or _strength(strength) is None:
            return None
        done = Urge(urge.urge_id, urge.at, urge.strength, urge.trigger, urge.trigger_text, strength)
        await self._put(person, done)
        await self.store.set_follow_up(person.person_id, urge_id, None)
        return urge.strength, strength

    async def cancel_follow_up(self, person: Person, urge_id: str) -> None:
        await self.store.set_follow_up(person.person_id, urge_id, None)

    async def urges(self, person: Person, since: datetime) -> list[Urge]:
        rows = await self.store.urges_since(person.person_id, _ts(since))
        return [self._open(person, r) for r in rows]

    async def claim_follow_ups(self, limit: int = 200) -> list[tuple[Due, bool]]:
        """Due check-backs, each claimed once: (due, fresh); not fresh means too late to send."""
        now = self.now()
        claimed: list[tuple[Due, bool]] = []
        for row in await self.store.due_follow_ups(_ts(now), limit):
            if row.follow_up_due is None:
                continue  # the store selects only rows with a due time
            if await self.store.claim_follow_up(row.urge_id, row.follow_up_due):
                fresh = now - _dt(row.follow_up_due) <= FOLLOW_UP_STALE
                claimed.append((Due(row.person_id, row.urge_id), fresh))
        return claimed

    # --- held drafts --------------------------------------------------------------------------

    async def hold_draft(self, person: Person, text: str) -> HeldDraft:
        now = self.now()
        draft = HeldDraft(new_id(), text.strip(), now)
        await self.store.add_draft(
            person.person_id,
            draft.draft_id,
            person.cipher.seal_text(draft_slot(draft.draft_id), draft.text),
            _ts(now),
            _ts(offer_back_at(now, zone_of(person))),
        )
        return draft

    def _open_draft(self, person: Person, row: DraftRow) -> HeldDraft:
        # Never rewritten, so always version 0; a deleted one is anchored at 1, and a copy
        # of it put back (an older data file) is refused like any rolled-back row.
        slot = draft_slot(row.draft_id)
        text = open_versioned(self._people.keys, person, slot, 0, row.text_enc)
        return HeldDraft(row.draft_id, text, _dt(row.created_at))

    async def draft(self, person: Person, draft_id: str) -> HeldDraft | None:
        row = await self.store.draft(person.person_id, draft_id)
        return None if row is None else self._open_draft(person, row)

    async def drafts(self, person: Person) -> list[HeldDraft]:
        return [self._open_draft(person, r) for r in await self.store.drafts(person.person_id)]

    async def delete_draft(self, person: Person, draft_id: str) -> bool:
        deleted = await self.store.delete_draft(person.person_id, draft_id)
        if deleted:  # after the delete, as for answers: a crash between loses only this
            await self._people.keys.anchor_slots(person.person_id, {draft_slot(draft_id): 1})
        return deleted

    async def keep_draft(self, person: Person, draft_id: str) -> bool:
        """Kept: no more offers; it stays until deleted (or /forget)."""
        row = await self.store.draft(person.person_id, draft_id)
        if row is None:
            return False
        if row.offer_due is not None:
            await self.store.move_offer(draft_id, row.offer_due, None)
        return True

    async def due_drafts(self, limit: int = 200) -> list[DraftRow]:
        return await self.store.due_drafts(_ts(self.now()), limit)

    async def claim_offer(self, row: DraftRow, *, postpone: bool) -> bool:
        """Take a due offer: cleared (it is being sent), or moved a day on (a paused person)."""
        if row.offer_due is None:
            return False  # nothing is due: nothing to take
        to = row.offer_due + 86_400 if postpone else None
        if postpone:
            # Never in the past: a long downtime would otherwise postpone it into a loop.
            to = max(to or 0, _ts(self.now()) + 3600)
        return await self.store.move_offer(row.draft_id, row.offer_due, to)

    # --- My reasons -------------------------------------------------------------------------

    async def reasons(self, person: Person) -> str | None:
        blob = await self.store.note(person.person_id, REASONS)
        return None if blob is None else person.cipher.open_text(note_slot(REASONS), blob)

    async def set_reasons(self, person: Person, text: str) -> str:
        words = text.strip()
        await self.store.put_note(
            person.person_id,
            REASONS,
            person.cipher.seal_text(note_slot(REASONS), words),
            _ts(self.now()),
        )
        return words

    # --- no-contact days --------------------------------------------------------------------

    async def marks(self, person: Person) -> list[Mark]:
        blob = await self.store.note(person.person_id, NO_CONTACT)
        if blob is None:
            return []
        raw = json.loads(person.cipher.open_text(note_slot(NO_CONTACT), blob))
        marks: list[Mark] = []
        for item in raw if isinstance(raw, list) else []:
            try:
                marks.append(Mark(MarkKind(item[0]), _dt(int(item[1]))))
            except (ValueError, TypeError, IndexError):
                continue
        return marks

    async def count(self, person: Person) -> NoContact:
        return no_contact(await self.marks(person), now=self.now(), zone=zone_of(person))

    async def mark(
        self, person: Person, kind: MarkKind, *, since: date | None = None
    ) -> NoContact | None:
        """Apply a mark if the count's state accepts it (a stale button changes nothing).
        `since`: a start on an earlier local day (day 1 is that day), never before the
        latest mark (a count that was stopped stays as it was) nor in the future."""
        marks = await self.marks(person)
        before = no_contact(marks, now=self.now(), zone=zone_of(person))
        if kind not in allowed(before.state):
            return None
        at = self.now()
        if since is not None:
            if kind is not MarkKind.START:
                return None
            earliest = earliest_start(marks, zone_of(person))
            if since > at.astimezone(zone_of(person)).date() or (
                earliest is not None and since < earliest.astimezone(zone_of(person)).date()
            ):
                return None
            at = min(at, datetime.combine(since, time(0), zone_of(person)))
            if earliest is not None:
                at = max(at, earliest)
        marks.append(Mark(kind, at))
        data = json.dumps([[m.kind.value, _ts(m.at)] for m in marks], separators=(",", ":"))
        await self.store.put_note(
            person.person_id,
            NO_CONTACT,
            person.cipher.seal_text(note_slot(NO_CONTACT), data),
            _ts(self.now()),
        )
        return no_contact(marks, now=self.now(), zone=zone_of(person))

    async def checkin_day(self, person: Person) -> int | None:
        """The day for the check-in's "No contact: day 12" line while the count runs (a
        paused count stays out of it); the caller words it in the person's language."""
        count = await self.count(person)
        if count.state is not State.RUNNING:
            return None
        return count.day

    async def checkin_day_by_id(self, person_id: str) -> int | None:
        try:
            person = await self._people.load_by_id(person_id)
        except UnreadableDataError:
            return None
        if person is None or not person.profile.part(NoContactPrefs).nocontact_in_checkin:
            return None
        return await self.checkin_day(person)

    # --- moods ------------------------------------------------------------------------------

    async def rate_day(self, person: Person, local_date: str, rating: int) -> None:
        if not MOOD_MIN <= rating <= MOOD_MAX:
            raise ValueError("mood out of range")
        date.fromisoformat(local_date)
        await self.store.put_mood(
            person.person_id,
            local_date,
            person.cipher.seal_text(mood_slot(local_date), str(rating)),
            _ts(self.now()),
        )

    async def moods(self, person: Person, first: date) -> list[MoodRating]:
        out: list[MoodRating] = []
        for day, blob in await self.store.moods_since(person.person_id, first.isoformat()):
            value = int(person.cipher.open_text(mood_slot(day), blob))
            if MOOD_MIN <= value <= MOOD_MAX:
                out.append(MoodRating(date.fromisoformat(day), value))
        return out

    # --- a safe person ----------------------------------------------------------------------

    async def safe_people(self, person: Person) -> list[str]:
        """The people their safety-plan worksheet names, in their own words."""
        answers = await self._worksheets.answers(person, SAFETY_PLAN)
        found: list[str] = []
        for question in SAFE_PEOPLE:
            answer = answers.get(question)
            if answer is not None:
                found.extend(part for part in answer.parts if part.strip())
        return found

    # --- /progress ----------------------------------------------------------------------

    async def progress(self, person: Person) -> tuple[ChartData, Reading]:
        """What the picture shows (the last weeks) and the one-line reading (two periods)."""
        now = self.now()
        zone = zone_of(person)
        events = tuple(u.event() for u in await self.urges(person, now - 2 * READING_PERIOD))
        first = ChartData(now=now, zone=zone).first_day
        data = ChartData(
            now=now,
            zone=zone,
            urges=tuple(e for e in events if e.at.astimezone(zone).date() >= first),
            moods=tuple(await self.moods(person, first)),
            stretches=(await self.count(person)).stretches,
        )
        return data, read_progress(events, now=now)
