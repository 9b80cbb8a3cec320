"""Held words: the person's own words, sealed until they choose to keep them or not:
words that also triggered the crisis path (either tier) in a worksheet answer or a
journal reply, and text that answered nothing (the offer to keep). "Held" is the one
name for the idea (`HeldDecision`, `Held`, `HeldTexts`, `HeldButton`, the
`HeldWordsFeature`); the text keys keep their older prefix, `crisis_held.`.

When a worksheet answer or a journal reply triggered the crisis path, one rule for both:

- **Discard**: the message is only a call for help ("help", "HEEELP!!!", "ayuda", "sos",
  "au secours", "danger", "please help me"): the detector's terms cover every word of it,
  once normalised, and it is a plea or a single word. It is never stored: it was said to
  be heard, not to be kept, and a review page saying "help" would read like an alarm.
- **AskToKeep**: anything longer with a crisis match is the person's writing, and may be
  something they want in their record, or something they would rather not see there
  again. It is kept only after they say so ([Keep as my answer] [Don't keep], under the
  crisis reply or the safety check). Until then it is held sealed in storage (the
  person's sealed profile, its `HeldTexts` record): a restart loses nothing, and nothing is
  plaintext on disk. /forget deletes it with the profile; review and export never show it.
- **KeepQuietly**: inside the safety-plan worksheet, an answer that speaks of safety and
  matched only tier 2 ("I'd call Anna if I felt scared of him") is what the worksheet asks
  for: saved like any answer, with a quiet line and [Support lines] under "Saved" instead
  of the interrupting check. Tier 1 there still gets the emergency reply (and the choice).
- **Keep**: no crisis match; the ordinary path.

The emergency reply and the check never wait for any of this: they went out before
(bot/features/crisis/handlers/crisis.py); this runs in the later, ordered handler groups.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, ClassVar

from bot.matching.crisis import CrisisMatch, normalize
from bot.people.profile import Profile, Record

# The worksheet whose answers speak of safety by design (content/worksheets/safety_plan.yaml).
SAFETY_PLAN = "safety_plan"
# Categories that are a call for help rather than something that happened.
PLEAS = frozenset({"help", "help_weak"})
# Held texts waiting for a choice, per person; beyond this the oldest is let go (a person
# who never answers the buttons should not grow their profile without end).
HELD_LIMIT = 10


class HeldDecision(Enum):
    KEEP = "keep"
    KEEP_QUIETLY = "keep_quietly"
    ASK = "ask"
    DISCARD = "discard"


def decide(
    match: CrisisMatch | None,
    text: str,
    covers: Callable[[str], bool],
    *,
    safety_plan: bool = False,
) -> HeldDecision:
    """What to do with `text` that triggered `match` (None: nothing did). `covers` is the
    detector's `covers` (whether crisis terms make up the whole message)."""
    if match is None:
        return HeldDecision.KEEP
    if crisis_only(match, text, covers):
        return HeldDecision.DISCARD
    if safety_plan and not match.certain:
        return HeldDecision.KEEP_QUIETLY
    return HeldDecision.ASK


def crisis_only(match: CrisisMatch, text: str, covers: Callable[[str], bool]) -> bool:
    """Only a crisis word: the terms cover the whole message, and it is a plea ("help me
    please", "call the police") or one word ("danger", "gevaar"). "he is outside" or "he
    raped me" are sentences of the person's own: those are asked about, not dropped."""
    if not covers(text):
        return False
    return match.categories <= PLEAS or len(normalize(text).split()) <= 1


# --- held texts ----------------------------------------------------------------------


@dataclass(frozen=True)
class Held:
    """A text waiting for [Keep] or [Don't keep], and where it goes if kept."""

    message_id: int
    text: str
    worksheet_id: str = ""  # a worksheet answer: the worksheet and the question's id
    question_id: str = ""
    prompt_id: str | None = None  # a journal reply: the check-in it answers (None: free)
    journal: bool = False

    def to_raw(self) -> dict[str, Any]:
        raw: dict[str, Any] = {"m": self.message_id, "t": self.text}
        if self.journal:
            raw["j"] = self.prompt_id or ""
        else:
            raw["w"], raw["q"] = self.worksheet_id, self.question_id
        return raw

    @classmethod
    def from_raw(cls, raw: object) -> Held | None:
        if not isinstance(raw, dict):
            return None
        m, t = raw.get("m"), raw.get("t")
        if not isinstance(m, int) or not isinstance(t, str):
            return None
        if "j" in raw:
            prompt = raw["j"]
            if not isinstance(prompt, str):
                return None
            return cls(m, t, prompt_id=prompt or None, journal=True)
        w, q = raw.get("w"), raw.get("q")
        if not isinstance(w, str) or not isinstance(q, str) or not w or not q:
            return None
        return cls(m, t, worksheet_id=w, question_id=q)


@dataclass
class HeldTexts(Record):
    """The held texts, in the sealed profile (bot/people/profile.py). The stored shape of
    each (short keys, one JSON object each) is the flat layout's, moved under the part."""

    KEY: ClassVar[str] = "held"

    texts: tuple[Held, ...] = ()

    @classmethod
    def decode(cls, values: dict[str, Any]) -> HeldTexts:
        stored = values.get("texts", [])
        items = stored if isinstance(stored, list) else []
        # A malformed one (an older shape, a hand-edited row) is dropped, not fatal.
        return cls(tuple(h for item in items if (h := Held.from_raw(item)) is not None))

    def encode(self) -> dict[str, Any]:
        return {"texts": [h.to_raw() for h in self.texts]}

    @classmethod
    def flat_keys(cls) -> tuple[str, ...]:
        return ("held",)

    @classmethod
    def from_flat(cls, flat: Mapping[str, Any]) -> HeldTexts:
        return cls.decode({"texts": flat.get("held", [])})


def held_texts(profile: Profile) -> list[Held]:
    return list(profile.part(HeldTexts).texts)


def _keep(profile: Profile, texts: list[Held]) -> None:
    profile.part(HeldTexts).texts = tuple(texts)


def hold(profile: Profile, held: Held) -> None:
    """Add (or, for the same message seen again, replace) a held text; the caller saves."""
    kept = [h for h in held_texts(profile) if h.message_id != held.message_id]
    kept.append(held)
    _keep(profile, kept[-HELD_LIMIT:])


def take(profile: Profile, message_id: int) -> Held | None:
    """Remove and return the held text of this message; None if it is not held (any more)."""
    found: Held | None = None
    rest: list[Held] = []
    for h in held_texts(profile):
        if h.message_id == message_id and found is None:
            found = h
        else:
            rest.append(h)
    if found is not None:
        _keep(profile, rest)
    return found


def replace_text(profile: Profile, message_id: int, text: str) -> bool:
    """An edited message that is held: the held text follows the edit."""
    items = held_texts(profile)
    hit = False
    for i, h in enumerate(items):
        if h.message_id == message_id:
            items[i] = replace(h, text=text)
            hit = True
    if hit:
        _keep(profile, items)
    return hit
