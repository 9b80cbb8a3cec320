"""The decoy: what an innocuous bot would say, shown while a person is in cover.

After the panic word the chat must look like a chat with some ordinary bot: a daily quote,
a recipe, a word of the day (content/decoys/<theme>.yaml, one file per theme, every
language written natively). Nothing here may speak of help, crisis, abuse, journals or
worksheets; tests/unit/content/test_telltales.py checks every entry against a list of words a
watcher would notice, in all our languages.

The picker is pure: the caller keeps a sequence number in the cover state (started with
`start_sequence`: the entry last shown, one step per entry shown after it) and a count of
replies sent today. Starting
from the date means that everyone in cover on the same day starts on the same entry, as
with a real "of the day" bot, and entries repeat only after the whole list has been shown.

A message typed in cover gets another entry, up to MORE_PER_DAY a day, and then a friendly
"that's all for today": a real daily bot runs out, and a bot that answers everything with
a new recipe forever would look odd to a watcher scrolling back.
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from bot.core.languages import LANGUAGES
from bot.core.problems import Problem
from bot.core.telegram_text import MESSAGE_LIMIT, utf16_len

FALLBACK_LANGUAGE = "en"
# Enough for a month without a repeat, a believable "of the day" bot.
MIN_ENTRIES = 30
MORE_PER_DAY = 3
_ENTRY = "entry"
_FIELDS = ("label", "message", "welcome", "more", "enough", "entries")
# Texts that show an entry hold {entry} and nothing else; the others hold no placeholder.
_WITH_ENTRY = ("message", "more")


@dataclass(frozen=True)
class DecoyVoice:
    """One theme in one language."""

    label: str  # the theme's name when the person chooses it in /settings
    message: str  # the cover message: "{entry}" inside a heading
    welcome: str  # the decoy's own answer to /start while cover holds
    more: tuple[str, ...]  # replies that show another entry
    enough: tuple[str, ...]  # replies once today's entries are used up
    entries: tuple[str, ...]


@dataclass(frozen=True)
class DecoyReply:
    text: str
    shows_entry: bool  # True: the caller advances the sequence and today's reply count


def start_sequence(day: date) -> int:
    return day.toordinal()


@dataclass(frozen=True)
class Decoys:
    themes: Mapping[str, Mapping[str, DecoyVoice]]  # theme -> language -> voice

    def theme_ids(self) -> tuple[str, ...]:
        return tuple(self.themes)

    def voice(self, theme: str, language: str) -> DecoyVoice:
        """An unknown theme (content changed since the person chose) falls back to the
        first one, an unknown language to English: cover must never fail to answer."""
        by_language = self.themes.get(theme) or next(iter(self.themes.values()))
        return by_language.get(language) or by_language[FALLBACK_LANGUAGE]

    def entry(self, theme: str, language: str, sequence: int) -> str:
        entries = self.voice(theme, language).entries
        return entries[sequence % len(entries)]

    def cover_message(self, theme: str, language: str, sequence: int) -> str:
        """The message that stands alone in the chat after the panic word."""
        voice = self.voice(theme, language)
        return voice.message.format(entry=self.entry(theme, language, sequence))

    def reply(self, theme: str, language: str, sequence: int, replies_today: int) -> DecoyReply:
        """The decoy's answer to anything typed while in cover."""
        voice = self.voice(theme, language)
        if replies_today < MORE_PER_DAY:
            # `sequence` is the entry already on screen (the cover message's, or the last
            # reply's): "one more" is the one after it, never the same one again.
            template = voice.more[sequence % len(voice.more)]
            text = template.format(entry=self.entry(theme, language, sequence + 1))
            return DecoyReply(text, shows_entry=True)
        return DecoyReply(voice.enough[replies_today % len(voice.enough)], shows_entry=False)


def _placeholders(text: str) -> set[str] | None:
    try:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    except ValueError:
        return None


def _check_text(value: object, path: tuple[str | int, ...], wants_entry: bool) -> list[Problem]:
    if not isinstance(value, str) or not value.strip():
        return [Problem(path, "expected non-empty text")]
    names = _placeholders(value)
    if names is None:
        return [Problem(path, "broken {placeholder}")]
    wanted = {_ENTRY} if wants_entry else set()
    if names != wanted:
        return [Problem(path, "must hold {entry}" if wants_entry else "must hold no {placeholder}")]
    return []


def _check_entries(code: str, entries: list[object], voice: Mapping[str, object]) -> list[Problem]:
    problems: list[Problem] = []
    if len(entries) < MIN_ENTRIES:
        problems.append(
            Problem((code, "entries"), f"{len(entries)} entries; at least {MIN_ENTRIES}")
        )
    more = voice.get("more")
    frames = [voice.get("message"), *(more if isinstance(more, list) else [])]
    frame = max((len(t) for t in frames if isinstance(t, str)), default=0)
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        if not isinstance(entry, str):
            continue
        if entry.strip() in seen:
            problems.append(Problem((code, "entries", index), "duplicate entry"))
        seen.add(entry.strip())
        if utf16_len(entry) + frame > MESSAGE_LIMIT:
            problems.append(Problem((code, "entries", index), "too long for one Telegram message"))
    return problems


def validate_theme(raw: object, languages: Sequence[str] = LANGUAGES) -> list[Problem]:
    """One content/decoys/<theme>.yaml: every language, every field, MIN_ENTRIES entries."""
    if not isinstance(raw, Mapping):
        return [Problem((), "expected a mapping from language code to the theme's texts")]
    problems = [Problem((), f"missing language {code!r}") for code in languages if code not in raw]
    for code, voice in raw.items():
        if code not in languages:
            problems.append(Problem((str(code),), f"unknown language; use {', '.join(languages)}"))
            continue
        if not isinstance(voice, Mapping):
            problems.append(Problem((code,), f"expected the fields {', '.join(_FIELDS)}"))
            continue
        problems.extend(
            Problem((code, str(key)), f"unknown field {key!r}; use {', '.join(_FIELDS)}")
            for key in voice
            if key not in _FIELDS
        )
        for name in _FIELDS:
            value = voice.get(name)
            path: tuple[str | int, ...] = (code, name)
            if value is None:
                problems.append(Problem(path, "missing"))
            elif name in ("label", "message", "welcome"):
                problems.extend(_check_text(value, path, name in _WITH_ENTRY))
            elif not isinstance(value, list) or not value:
                problems.append(Problem(path, "expected a non-empty list"))
            else:
                for index, item in enumerate(value):
                    problems.extend(_check_text(item, (*path, index), name in _WITH_ENTRY))
        entries = voice.get("entries")
        if isinstance(entries, list):
            problems.extend(_check_entries(code, entries, voice))
    return problems


def parse_theme(raw: Mapping[str, Mapping[str, object]]) -> dict[str, DecoyVoice]:
    """Build one theme's voices; validate first."""
    voices: dict[str, DecoyVoice] = {}
    for code, voice in raw.items():

        def texts(name: str, voice: Mapping[str, object] = voice) -> tuple[str, ...]:
            value = voice[name]
            if not isinstance(value, list):
                raise TypeError(f"decoys: {name} is not a list (run validate first)")
            return tuple(str(item).strip() for item in value)

        voices[code] = DecoyVoice(
            label=str(voice["label"]).strip(),
            message=str(voice["message"]).strip(),
            welcome=str(voice["welcome"]).strip(),
            more=texts("more"),
            enough=texts("enough"),
            entries=texts("entries"),
        )
    return voices
