"""Half the bot was hidden (issue 23): /guide, /menu and the end of onboarding named four
commands of twenty, and the worksheet intro pointed to a /review that did not exist.

Every /command any text names, in any language and any content file, must be one the
running bot registered; and the three places that list what the bot does name every
feature, in every language."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from telegram.ext import CommandHandler

from bot.content.texts import feature_list, guide_text
from bot.core.languages import LANGUAGES
from tests.helpers.bot import BotUnderTest

CONTENT = Path(__file__).resolve().parents[2] / "content"
# A slash command inside prose; not a path or a link ("example.org/help").
COMMAND = re.compile(r"(?<![\w/.:])/([a-z][a-z_]{1,31})\b")
LINK = re.compile(r"\S*://\S*")  # a link's path is not a command (source notes hold links)
FEATURES = [
    "worksheets", "resume", "journal", "checkin", "pause", "skip", "urge", "reasons",
    "record", "progress", "nocontact", "settings", "export", "clear", "forget", "guide",
    "menu",
]  # fmt: skip


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def registered(bot: BotUnderTest) -> set[str]:
    assert bot.runtime is not None and bot.runtime.app is not None
    names: set[str] = set()
    for handlers in bot.runtime.app.handlers.values():
        for handler in handlers:
            if isinstance(handler, CommandHandler):
                names |= set(handler.commands)
    return names


async def test_every_command_any_text_names_is_registered(bot: BotUnderTest) -> None:
    known = registered(bot)
    assert {"urge", "record", "nocontact"} <= known
    named: dict[str, set[str]] = {}
    files = sorted(CONTENT.rglob("*.yaml"))
    assert len(files) > 20
    for path in files:
        for text in _strings(yaml.safe_load(path.read_text(encoding="utf-8"))):
            for name in COMMAND.findall(LINK.sub(" ", text)):
                named.setdefault(name, set()).add(str(path.relative_to(CONTENT)))
    unknown = {name: sorted(where) for name, where in named.items() if name not in known}
    assert not unknown, unknown


async def test_guide_menu_and_onboarding_name_every_feature(bot: BotUnderTest) -> None:
    for language in LANGUAGES:
        tx = bot.services.content.locales[language].texts
        places = {
            "guide": guide_text(tx),
            "menu": tx("conversation.menu", features=feature_list(tx)),
            "onboarding": tx("setup.done", features=feature_list(tx)),
        }
        for place, text in places.items():
            missing = [f for f in FEATURES if f"/{f}" not in text]
            assert not missing, (language, place, missing)
            assert "{" not in text, (language, place)


async def test_what_a_person_sees(bot: BotUnderTest) -> None:
    await bot.onboard()
    done = await bot.find("All set")
    await bot.send("/guide")
    guide = await bot.next(containing="How Steady works")
    await bot.send("/menu")
    menu = await bot.next(containing="Here's what I can do")
    for message in (done, guide, menu):
        text = message.text or ""
        assert all(f"/{f}" in text for f in FEATURES), text
