"""The helplines' words in a person's language: what a line is for (`about`), its hours,
notes and silent option, an
emergency line's description ("110 police, 112 fire and ambulance"), and the emergency
list's notes. Service names, numbers and addresses are the services' own and stay as
content/helplines.yaml gives them.

A translation is keyed by the English text itself (content/locales/<lang>/helplines.yaml,
`strings:`), not by country and line: two lines may share a name, and when someone edits
an English note its old translation stops matching, so the check reports the new text as
missing and the old one as extra instead of showing a stale sentence.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from bot.content.crisis_reply import Book, describes_numbers
from bot.content.helplines import Line
from bot.core.problems import Problem
from bot.core.telegram_text import MESSAGE_LIMIT

FILE = "helplines.yaml"
_FIELDS = ("about", "hours", "notes", "silent_option")


def english_strings(book: Book) -> list[str]:
    """Every distinct text a translation must cover, in the order content gives them."""
    seen: dict[str, None] = {}
    for country in book.helplines.values():
        for line in country.lines:
            if describes_numbers(line):
                seen[line.name] = None
            for name in _FIELDS:
                value = getattr(line, name)
                if value:
                    seen[value] = None
    for emergency in book.emergency.values():
        if emergency.note:
            seen[emergency.note] = None
    return list(seen)


def strings_parity(english: list[str], translated: object) -> list[Problem]:
    """Every English text translated once, nothing else, nothing empty or overlong."""
    if not isinstance(translated, Mapping) or set(translated) != {"strings"}:
        return [
            Problem((), "expected one key, `strings:`, mapping English text to its translation")
        ]
    strings = translated["strings"] or {}
    if not isinstance(strings, Mapping):
        return [Problem(("strings",), "expected a mapping of English text to its translation")]
    problems: list[Problem] = []
    for text in english:
        if text not in strings:
            problems.append(Problem(("strings",), f"missing translation of {text!r}"))
    wanted = set(english)
    for text, value in strings.items():
        if text not in wanted:
            problems.append(Problem(("strings", text), f"extra: English has no {text!r}"))
        elif not isinstance(value, str) or not value.strip():
            problems.append(Problem(("strings", text), "empty translation"))
        elif len(value) > MESSAGE_LIMIT // 8:
            problems.append(Problem(("strings", text), "too long for one helpline line"))
    return problems


def translated_book(book: Book, strings: Mapping[str, str]) -> Book:
    """The same book with its words in another language (parity already checked)."""

    def line(original: Line) -> Line:
        changes = {
            name: strings.get(value, value)
            for name in _FIELDS
            if (value := getattr(original, name)) is not None
        }
        if describes_numbers(original):
            changes["name"] = strings.get(original.name, original.name)
        return dataclasses.replace(original, **changes)

    helplines = {
        code: dataclasses.replace(country, lines=tuple(line(x) for x in country.lines))
        for code, country in book.helplines.items()
    }
    emergency = {
        code: dataclasses.replace(e, note=strings.get(e.note, e.note)) if e.note else e
        for code, e in book.emergency.items()
    }
    return Book(helplines, emergency)
