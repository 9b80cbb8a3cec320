"""The bot's UI strings, from `content/texts/*.yaml`, addressed by dotted key.

Code asks for `tx("start.welcome", name=...)` (in handlers, `context.tx`: the per-update
translator); tests/unit/content/test_text_keys.py checks that every key the code uses exists, so a
typo fails CI rather than a person's chat.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from typing import Any

from bot.core.problems import Problem
from bot.core.telegram_text import MESSAGE_LIMIT, utf16_len

# How pure code receives `texts`: any callable from a key (and values) to a string.
Tx = Callable[..., str]

# Top-level keys that hold data rather than strings.
DATA_KEYS = (
    "worksheet_order",
    "featured_countries",
    "country_aliases",
    "command_menu",
    "conversation_words",  # checked by bot.content.conversation, via bot/content/loader.py
    "menu_commands",
)


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    flat: dict[str, str] = {}
    for key, value in data.items():
        if not prefix and key in DATA_KEYS:
            continue
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(_flatten(value, dotted + "."))
        else:
            flat[dotted] = str(value).strip()
    return flat


class Texts:
    def __init__(self, data: Mapping[str, Any]) -> None:
        self._strings = _flatten(data)
        self.data: dict[str, Any] = {k: data[k] for k in DATA_KEYS if k in data}

    def __call__(self, key: str, **values: object) -> str:
        template = self._strings[key]
        return template.format(**values) if values else template

    def has(self, key: str) -> bool:
        return key in self._strings

    def keys(self) -> list[str]:
        return sorted(self._strings)


def validate_texts(raw: object) -> list[Problem]:
    if not isinstance(raw, Mapping):
        return [Problem((), "expected a mapping of text keys")]
    problems: list[Problem] = []
    order = raw.get("worksheet_order", [])
    if not isinstance(order, list) or not all(isinstance(w, str) for w in order):
        problems.append(Problem(("worksheet_order",), "expected a list of worksheet ids"))

    featured = raw.get("featured_countries", [])
    if not isinstance(featured, list) or not all(
        isinstance(c, str) and len(c) == 2 and c.isupper() for c in featured
    ):
        problems.append(Problem(("featured_countries",), "expected a list of country codes"))
    aliases = raw.get("country_aliases", {})
    if not isinstance(aliases, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) and len(v) == 2 for k, v in aliases.items()
    ):
        problems.append(Problem(("country_aliases",), "expected name: country code pairs"))

    def walk(node: Mapping[Any, Any], path: tuple[str | int, ...]) -> None:
        for key, value in node.items():
            if not path and key in DATA_KEYS:
                continue
            here = (*path, key)
            if not isinstance(key, str) or not key.replace("_", "").isalnum():
                problems.append(Problem(here, "keys are words made of letters, digits and _"))
            elif isinstance(value, Mapping):
                walk(value, here)
            elif not isinstance(value, str) or not value.strip():
                problems.append(Problem(here, "expected non-empty text"))
            elif utf16_len(value) > MESSAGE_LIMIT:
                problems.append(Problem(here, f"longer than Telegram's {MESSAGE_LIMIT} limit"))
            else:
                try:
                    list(string.Formatter().parse(value))
                except ValueError as exc:
                    problems.append(Problem(here, f"broken {{placeholder}}: {exc}"))

    walk(raw, ())
    return problems


def feature_list(tx: Tx) -> str:
    """Every feature by its command (content: features.list): /guide, /menu and the end
    of onboarding all show this one list, so none of them can leave a feature out."""
    return tx("features.list")


def guide_text(tx: Tx) -> str:
    return tx("guide.text", features=feature_list(tx))
