"""A held text, as the sealed profile stores it: the person's own words waiting for
[Keep] or [Don't keep] (bot/features/crisis/held.py holds the rule and what is done with
them). Typed here, below the profile, so `Profile.held` is a list of these; the stored
shape (short keys, one JSON object each) is unchanged, so no profile needs migrating."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


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
