"""The record: dated entries of what happened, written step by step, kept sealed, shown back.

Reference 001 ("restore the complete record"): write specific events down as accurately as
possible, what was said, what happened next, how the body reacted, so that a vulnerable
moment cannot rewrite them. This service holds every decision;
bot/features/record/handlers/record.py sends
what it decides.

How an entry is written, as a person sees it:

- /record, "New entry": when it happened (just now, earlier today, another day, or typed in
  their own words), then what happened, what was said, how their body reacted, who saw or
  knows, whether anyone was hurt, and any photos or files. Every step can be skipped.
- Every message typed at a step is one part of that step's answer, sealed and stored before
  anything is sent back; photos, screenshots, voice notes and documents sent at any step are
  kept with the entry, sealed under the person's key (fetched into memory, never to disk).
- The step lives in the person's stored state (`rec:<entry>:<step>:...`), so a restart, a
  crash or a week away resumes where they were (/record offers to continue).
- A crisis word inside an answer: the answer is kept, the next question waits, the crisis
  reply gains "Continue".
- Honest timestamps: each entry keeps when it happened and when it was written; each part
  and amendment keeps when it was added. Nothing is overwritten: a correction, or an edit of
  a message that is part of an entry, is added as a dated amendment.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.content.phrases import PULL_BACK, SELF_DOUBT
from bot.core.clock import Clock
from bot.crypto import CryptoError
from bot.features.export.render import zone_of
from bot.features.record.dates import DAY, HOUR, MINUTE, NOT_SAID
from bot.features.record.prefs import RecordPrefs
from bot.features.record.state import AMEND_STEP, RecordState, record_state
from bot.people.service import PeopleService, Person, RolledBackError
from bot.storage.record import EntryRow, FileRow, RecordStore, new_record_id

log = logging.getLogger(__name__)

WHEN = "when"
FILES = "files"
AMEND = AMEND_STEP
# The questions after "when", in order (reference 001, step 1), then the files step.
TEXT_STEPS = ("what", "said", "body", "seen", "hurt")
STEPS = (WHEN, *TEXT_STEPS, FILES)


# Telegram lets a bot download files of up to 20 MB (telegram.constants.FileSizeLimit,
# https://core.telegram.org/bots/api#getfile); we keep that limit and no more than
# MAX_FILES per entry, so one entry cannot fill the memory it is sealed in.
MAX_FILES = 20
# The signals (content/phrases/) that bring the look-back offer.
OFFER_SIGNALS = frozenset({SELF_DOUBT, PULL_BACK})


def part_slot(entry_id: str, part_id: str) -> str:
    return f"record:{entry_id}:{part_id}"


def file_slot(entry_id: str, file_id: str, what: str) -> str:
    return f"record_file:{entry_id}:{file_id}:{what}"


@dataclass(frozen=True)
class Part:
    part_id: str
    step: str
    text: str
    at: int  # when it was added
    message_id: int | None


@dataclass(frozen=True)
class Attachment:
    file_id: str
    kind: str  # photo | document | voice | audio | video
    mime: str
    name: str
    caption: str
    size: int
    at: int


@dataclass(frozen=True)
class FullEntry:
    entry_id: str
    happened_at: int | None
    precision: int
    written_at: int
    finished_at: int | None
    answers: dict[str, tuple[Part, ...]] = field(default_factory=dict)  # step -> parts
    amendments: tuple[Part, ...] = ()
    files: tuple[Attachment, ...] = ()

    @property
    def first_words(self) -> str:
        for step in TEXT_STEPS:
            for part in self.answers.get(step, ()):
                return part.text
        return self.amendments[0].text if self.amendments else ""


@dataclass(frozen=True)
class Page:
    entries: list[FullEntry]
    offset: int
    total: int


@dataclass(frozen=True)
class FileIn:
    """A file the person sent, fetched into memory."""

    kind: str
    mime: str
    name: str
    caption: str
    data: bytes


def should_offer(
    signals: frozenset[str],
    *,
    enabled: bool,
    offered_on: str | None,
    today: str,
    crisis: bool,
    writing: bool,
    has_entries: bool,
    urge_offers: bool = False,
) -> bool:
    """The look-back offer: only for self-doubt or the pull back, never in place of (or
    beside) a crisis reply, never while an entry is being written, at most once a day.
    `urge_offers`: the urge flow offers itself for the pull back, so the look-back keeps
    to self-doubt (two offers for one message is one too many)."""
    if crisis or writing or not enabled or not has_entries:
        return False
    if offered_on == today:
        return False
    wanted = OFFER_SIGNALS - {PULL_BACK} if urge_offers else OFFER_SIGNALS
    return not wanted.isdisjoint(signals)


class RecordService:
    def __init__(self, store: RecordStore, people: PeopleService, clock: Clock) -> None:
        self._store = store
        self._people = people
        self._clock = clock

    def _now(self) -> int:
        return int(self._clock().timestamp())

    def today(self, person: Person) -> dt.date:
        return self._clock().astimezone(zone_of(person)).date()

    def local_now(self, person: Person) -> dt.datetime:
        return self._clock().astimezone(zone_of(person))

    # --- where a person is ----------------------------------------------------------

    async def unfinished(self, person: Person) -> FullEntry | None:
        """The entry being written: the one their state points at, else (paused) the
        newest one not finished."""
        step = record_state(person.state)
        row = await self._store.entry(person.person_id, step.entry_id) if step else None
        if row is None or row.finished_at is not None:
            row = await self._store.newest_unfinished(person.person_id)
        return None if row is None else await self._full(person, row)

    def resume_step(self, person: Person, entry: FullEntry) -> str:
        """Where to pick an entry up: the step on screen if there is one; after a pause,
        the last step answered (to add to it or go on), else the first unanswered one."""
        step = record_state(person.state)
        if step is not None and step.entry_id == entry.entry_id and step.step in STEPS:
            return step.step
        answered = [s for s in STEPS if entry.answers.get(s)]
        if answered:
            return answered[-1]
        return WHEN if entry.happened_at is None else STEPS[1]

    async def begin(self, person: Person) -> str:
        entry_id = new_record_id()
        await self._store.create(person.person_id, entry_id, self._now())
        log.info("record entry started")
        return entry_id

    async def move(self, person: Person, step: RecordState) -> None:
        await self._people.set_state(person, step.encode())

    async def leave(self, person: Person) -> None:
        await self._people.set_state(person, "")

    async def exists(self, person: Person, entry_id: str) -> bool:
        return await self._store.entry(person.person_id, entry_id) is not None

    # --- writing --------------------------------------------------------------------

    async def set_when(
        self, person: Person, entry_id: str, local: dt.datetime | None, precision: int
    ) -> None:
        at = None if local is None else int(local.timestamp())
        await self._store.set_happened(
            person.person_id, entry_id, at, precision if at is not None else NOT_SAID
        )

    def local_moment(
        self, person: Person, day: dt.date, time: dt.time | None
    ) -> tuple[dt.datetime, int]:
        """A local day (and time) as an aware datetime, with its precision."""
        zone = zone_of(person)
        if time is None:
            return dt.datetime.combine(day, dt.time(12, 0), zone), DAY
        precision = MINUTE if time.minute else HOUR
        return dt.datetime.combine(day, time, zone), precision

    async def add_text(
        self, person: Person, entry_id: str, step: str, message_id: int | None, text: str
    ) -> int:
        """One part of a step's answer (or an amendment); returns how many parts the step
        has now."""
        part_id = new_record_id()
        body = json.dumps({"step": step, "text": text}, ensure_ascii=False)
        sealed = person.cipher.seal_text(part_slot(entry_id, part_id), body)
        await self._store.add_part(
            person.person_id, entry_id, part_id, message_id, sealed, self._now()
        )
        full = await self.read(person, entry_id)
        if full is None:
            return 0
        return len(full.amendments) if step == AMEND else len(full.answers.get(step, ()))

    async def file_count(self, person: Person, entry_id: str) -> int:
        return len(await self._store.files(person.person_id, entry_id))

    async def add_file(
        self, person: Person, entry_id: str, message_id: int | None, incoming: FileIn
    ) -> int:
        """Seal and keep a file with the entry; returns how many files it has now."""
        file_id = new_record_id()
        meta = json.dumps(
            {
                "kind": incoming.kind,
                "mime": incoming.mime,
                "name": incoming.name,
                "caption": incoming.caption,
            },
            ensure_ascii=False,
        )
        await self._store.add_file(
            person.person_id,
            entry_id,
            file_id,
            message_id,
            person.cipher.seal_text(file_slot(entry_id, file_id, "meta"), meta),
            person.cipher.seal_bytes(file_slot(entry_id, file_id, "data"), incoming.data),
            self._now(),
        )
        log.info("record file kept (%s)", incoming.kind)
        return await self.file_count(person, entry_id)

    async def finish(self, person: Person, entry_id: str) -> None:
        await self._store.finish(person.person_id, entry_id, self._now())
        step = record_state(person.state)
        if step is not None and step.entry_id == entry_id:
            await self._people.set_state(person, "")

    async def edited(self, person: Person, message_id: int, text: str) -> bool:
        """An edited message that is part of an entry: the edit is added as an amendment
        (the original stays, with its time); False when the message is not in the record."""
        part = await self._store.part_by_message(person.person_id, message_id)
        if part is None:
            return False
        await self.add_text(person, part.entry_id, AMEND, None, text)
        return True

    # --- reading --------------------------------------------------------------------

    async def count(self, person: Person) -> int:
        return await self._store.count(person.person_id)

    async def read(self, person: Person, entry_id: str) -> FullEntry | None:
        row = await self._store.entry(person.person_id, entry_id)
        return None if row is None else await self._full(person, row)

    async def _full(self, person: Person, row: EntryRow) -> FullEntry:
        if self._people.keys.anchored_slot(person.person_id, _entry_anchor(row.entry_id)):
            # Deleted, and put back from an older copy of the data file: refused (and the
            # person offered erasure), as any rolled-back row.
            log.warning("refused a deleted record entry put back")
            raise RolledBackError(person.person_id)
        answers: dict[str, list[Part]] = {}
        amendments: list[Part] = []
        for part in await self._store.parts(person.person_id, row.entry_id):
            try:
                body: dict[str, Any] = json.loads(
                    person.cipher.open_text(part_slot(row.entry_id, part.part_id), part.body_enc)
                )
            except (CryptoError, ValueError) as exc:
                log.warning("record part unreadable: %s", type(exc).__name__)
                continue
            step, text = str(body.get("step", "")), str(body.get("text", ""))
            opened = Part(part.part_id, step, text, part.created_at, part.message_id)
            if step == AMEND:
                amendments.append(opened)
            else:
                answers.setdefault(step, []).append(opened)
        files = [
            a for f in await self._store.files(person.person_id, row.entry_id)
            if (a := self._attachment(person, f)) is not None
        ]  # fmt: skip
        ordered = {s: tuple(answers[s]) for s in (*STEPS, *answers) if s in answers}
        return FullEntry(
            row.entry_id,
            row.happened_at,
            row.precision,
            row.written_at,
            row.finished_at,
            ordered,
            tuple(amendments),
            tuple(files),
        )

    def _attachment(self, person: Person, row: FileRow) -> Attachment | None:
        try:
            meta: dict[str, Any] = json.loads(
                person.cipher.open_text(file_slot(row.entry_id, row.file_id, "meta"), row.meta_enc)
            )
        except (CryptoError, ValueError) as exc:
            log.warning("record file unreadable: %s", type(exc).__name__)
            return None
        return Attachment(
            row.file_id,
            str(meta.get("kind", "document")),
            str(meta.get("mime", "")),
            str(meta.get("name", "")),
            str(meta.get("caption", "")),
            row.size,
            row.created_at,
        )

    async def file_bytes(self, person: Person, entry_id: str, file_id: str) -> bytes | None:
        sealed = await self._store.file_data(person.person_id, file_id)
        if sealed is None:
            return None
        try:
            return person.cipher.open_bytes(file_slot(entry_id, file_id, "data"), sealed)
        except CryptoError as exc:
            log.warning("record file unreadable: %s", type(exc).__name__)
            return None

    async def page(self, person: Person, offset: int, limit: int) -> Page:
        """Finished and unfinished entries, newest first (by when it happened)."""
        total = await self._store.count(person.person_id)
        if total and offset >= total:
            offset = (total - 1) // limit * limit
        rows = await self._store.page(person.person_id, offset=offset, limit=limit)
        return Page([await self._full(person, r) for r in rows], offset, total)

    async def everything(self, person: Person) -> list[FullEntry]:
        """Every entry, oldest first by when it happened: the export's order."""
        return [await self._full(person, r) for r in await self._store.all(person.person_id)]

    async def pick_for_offer(self, person: Person) -> FullEntry | None:
        """Which of their own entries to offer: a different one each day, in turn."""
        rows = [r for r in await self._store.all(person.person_id) if r.finished_at is not None]
        if not rows:
            return None
        row = rows[self.today(person).toordinal() % len(rows)]
        return await self._full(person, row)

    async def has_finished(self, person: Person) -> bool:
        return any(r.finished_at is not None for r in await self._store.all(person.person_id))

    # --- the look-back offer ------------------------------------------------------------

    async def note_offered(self, person: Person) -> None:
        person.profile.part(RecordPrefs).record_offered_on = self.today(person).isoformat()
        await self._people.save(person)

    async def set_offers(self, person: Person, enabled: bool) -> None:
        person.profile.part(RecordPrefs).record_offers = enabled
        await self._people.save(person)

    async def message_ids(self, person: Person, entry_id: str) -> list[int]:
        """The person's messages (words and files) this entry was written in."""
        return await self._store.message_ids(person.person_id, entry_id)

    # --- deleting -------------------------------------------------------------------

    async def delete(self, person: Person, entry_id: str) -> list[int]:
        """Delete one entry with its parts and files; returns the ids of the person's
        messages it was written in (for tidying the chat)."""
        ids = await self._store.message_ids(person.person_id, entry_id)
        await self._store.delete(person.person_id, entry_id)
        await self._bury(person, [entry_id])
        step = record_state(person.state)
        if step is not None and step.entry_id == entry_id:
            await self._people.set_state(person, "")
        log.info("record entry deleted")
        return ids

    async def delete_all(self, person: Person) -> list[int]:
        ids = await self._store.message_ids(person.person_id)
        entries = [r.entry_id for r in await self._store.all(person.person_id)]
        await self._store.delete_all(person.person_id)
        await self._bury(person, entries)
        if record_state(person.state) is not None:
            await self._people.set_state(person, "")
        log.info("record deleted")
        return ids

    async def _bury(self, person: Person, entry_ids: list[str]) -> None:
        """Entries are never rewritten (a correction is an amendment), so a deleted one is
        anchored at 1 in the key store, after the delete; reading refuses it from then on."""
        if entry_ids:
            await self._people.keys.anchor_slots(
                person.person_id, {_entry_anchor(e): 1 for e in entry_ids}
            )


def _entry_anchor(entry_id: str) -> str:
    return f"record_entry:{entry_id}"


def step_index(step: str) -> int:
    return STEPS.index(step) if step in STEPS else -1


def next_step(step: str) -> str | None:
    index = step_index(step)
    return STEPS[index + 1] if 0 <= index < len(STEPS) - 1 else None


def languages_of(languages: Sequence[str], preferred: str | None) -> list[str]:
    """The person's language first, then the others the bot speaks (typed dates)."""
    return [preferred, *languages] if preferred else list(languages)
