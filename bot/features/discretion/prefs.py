"""Discretion's own fields in the sealed profile (bot/people/profile.py; the rules are in
docs/discretion.md). The person's manner settings (discreet, neutral wording, silent) and
whether the cover is up are shared fields of the profile: every feature reads them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from bot.people.profile import Record


@dataclass
class DiscretionPrefs(Record):
    KEY: ClassVar[str] = "discretion"

    # Digests are HMAC-SHA256 (hex) of the normalised word under the word key; never the
    # word. `word_key` is set only after erase-on-panic, when the data key that derived it
    # is gone.
    panic_digest: str | None = None
    return_digest: str | None = None
    word_key: str | None = None
    decoy_theme: str | None = None
    panic_erases: bool = False
    # Whether the cover is up is the profile's own `cover` (everything that sends unasked
    # stays quiet then); its state is here.
    cover_sequence: int = 0
    cover_replies: int = 0
    cover_day: str | None = None
    cover_language: str | None = None
