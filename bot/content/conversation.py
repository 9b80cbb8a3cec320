"""The words people use to steer a conversation: what a whole message means, if anything.

Data: `conversation_words` in content/texts/conversation.yaml (intents per language, polite
words); this module reads it, checks it, and answers two questions:

- `intent(text)`: is the whole message one of the words ("stop", "¿qué puedes hacer?",
  "hi Steady", "danke schön")? Compared after the crisis detector's `normalize`, in every
  language at once (people switch languages, and settings may not match what they type).
  Only a whole message counts: "I can't stop thinking" is not "stop".
- `wordless(text)`: emoji, punctuation, nothing else ("😭😭", "...", "👍").

What is "only a crisis word" (never kept) is bot/features/crisis/held.py's one rule.

A content schema (bot/content/loader.py loads it): it imports no other logic.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from bot.core.languages import LANGUAGES
from bot.core.problems import Problem
from bot.matching.normal import normalize


class Intent(StrEnum):
    STOP = "stop"
    PAUSE = "pause"
    CANCEL = "cancel"
    BACK = "back"
    MENU = "menu"
    HELLO = "hello"
    THANKS = "thanks"
    QUESTION = "question"


# What leaves the current step (a worksheet question, a settings step, onboarding).
LEAVING = frozenset({Intent.STOP, Intent.PAUSE, Intent.CANCEL, Intent.BACK})


def _forms(text: str) -> set[str]:
    """Both readings of an apostrophe: joining ("d'accord" -> "daccord") and separating."""
    return {normalize(text), normalize(text.replace("'", " ").replace("’", " "))} - {""}


def _phrases(values: Iterable[str]) -> set[str]:
    found: set[str] = set()
    for value in values:
        found |= _forms(value)
    return found


@dataclass(frozen=True)
class Words:
    intents: Mapping[str, Intent]  # normalised whole message -> intent
    polite: frozenset[str]  # normalised words or phrases that may stand around an intent

    @classmethod
    def from_data(cls, raw: Mapping[str, Any]) -> Words:
        intents: dict[str, Intent] = {}
        for name, languages in raw["intents"].items():
            for values in languages.values():
                for phrase in _phrases(values):
                    intents[phrase] = Intent(name)
        polite = _phrases(v for values in raw["polite"].values() for v in values)
        return cls(intents, frozenset(polite))

    def intent(self, text: str) -> Intent | None:
        for form in _forms(text):
            found = self.intents.get(form)
            if found is None:
                found = self.intents.get(self._without_polite(form))
            if found is not None:
                return found
        return None

    def _without_polite(self, form: str) -> str:
        words = form.split()
        changed = True
        while changed and words:
            changed = False
            for size in (3, 2, 1):
                if len(words) > size and " ".join(words[:size]) in self.polite:
                    words, changed = words[size:], True
                    break
                if len(words) > size and " ".join(words[-size:]) in self.polite:
                    words, changed = words[:-size], True
                    break
        return " ".join(words)


def wordless(text: str) -> bool:
    """Emoji, symbols and punctuation only: no letter or digit to read."""
    stripped = text.strip()
    if not stripped:
        return False
    return not any(unicodedata.category(char)[0] in "LN" for char in stripped)


def validate_words(raw: object) -> list[Problem]:
    """`conversation_words`: every intent in every language, no phrase meaning two things."""
    if not isinstance(raw, Mapping):
        return [Problem(("conversation_words",), "expected a mapping")]
    problems: list[Problem] = []

    def lists(node: object, path: tuple[str, ...]) -> Mapping[str, list[str]]:
        if not isinstance(node, Mapping):
            problems.append(Problem(path, "expected languages, each with a list of words"))
            return {}
        for language in LANGUAGES:
            if language not in node:
                problems.append(Problem(path, f"missing language {language!r}"))
        good: dict[str, list[str]] = {}
        for language, values in node.items():
            here = (*path, str(language))
            if language not in LANGUAGES:
                problems.append(Problem(here, f"unknown language {language!r}"))
            elif not isinstance(values, list) or not values:
                problems.append(Problem(here, "expected a list of words"))
            elif not all(isinstance(v, str) and _forms(v) for v in values):
                problems.append(Problem(here, "every entry must be words"))
            else:
                good[str(language)] = values
        return good

    intents = raw.get("intents")
    seen: dict[str, str] = {}
    if not isinstance(intents, Mapping):
        problems.append(Problem(("conversation_words", "intents"), "expected intents"))
    else:
        names = {str(i) for i in Intent}
        for missing in sorted(names - set(intents)):
            problems.append(Problem(("conversation_words", "intents"), f"missing {missing!r}"))
        for name, node in intents.items():
            path = ("conversation_words", "intents", str(name))
            if name not in names:
                problems.append(Problem(path, f"unknown intent {name!r}"))
                continue
            for values in lists(node, path).values():
                for phrase in _phrases(values):
                    other = seen.setdefault(phrase, str(name))
                    if other != name:
                        problems.append(Problem(path, f"{phrase!r} is also under {other!r}"))
    lists(raw.get("polite"), ("conversation_words", "polite"))
    return problems
