"""Test content in which every language is enabled: a language the translators have not
finished has each gap filled with a marker (`⟦es:key⟧`, keeping the placeholders), never
with English. The e2e language tests run on it, so they prove that the code shows no
English to a person in any language, whatever the translators' progress; with the real
translations complete, the markers simply never appear.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

from bot.content import helpline_texts
from bot.content.crisis_reply import Book
from bot.content.loader import content_dir
from bot.content.locales import placeholders
from bot.content.texts import DATA_KEYS
from tests.helpers.bot import shared_content

# Every translation folder: a new language is tested as soon as it exists.
LANGUAGES = tuple(sorted(p.name for p in (content_dir() / "locales").iterdir() if p.is_dir()))


def _marker(language: str, key: str, english: str) -> str:
    names = sorted(placeholders(english) or ())
    # Short: button labels have budgets too.
    return " ".join([f"⟦{language}:{key.rsplit('.', 1)[-1][:10]}⟧", *(f"{{{n}}}" for n in names)])


def _fill(english: Any, mine: Any, language: str, key: str) -> Any:
    if isinstance(english, Mapping):
        own = mine if isinstance(mine, Mapping) else {}
        return {
            k: _fill(v, own.get(k), language, f"{key}.{k}" if key else str(k))
            for k, v in english.items()
            if key or k not in DATA_KEYS
        }
    if isinstance(mine, str) and mine.strip() and placeholders(mine) == placeholders(str(english)):
        return mine
    return _marker(language, key, str(english))


def _fill_helplines(folder: Path, english: list[str], language: str) -> None:
    own_file = folder / helpline_texts.FILE
    own = yaml.safe_load(own_file.read_text(encoding="utf-8")) if own_file.exists() else None
    strings = (own or {}).get("strings") or {}
    filled = {
        text: strings.get(text) or f"⟦{language}:helpline⟧ {index}"
        for index, text in enumerate(english)
    }
    own_file.write_text(yaml.safe_dump({"strings": filled}, allow_unicode=True), encoding="utf-8")


def _urge_rules(filled: dict[str, Any], own: Mapping[str, Any], language: str) -> None:
    """The urge file's own rule (bot/content/urge_texts.py) on markers: each `_neutral`
    twin opening with `urge.label`."""
    label = filled["urge"]["label"]

    def twins(node: dict[str, Any]) -> None:
        for key, value in node.items():
            if isinstance(value, dict):
                twins(value)
            elif key.endswith("_neutral") and "⟦" in value.split("\n", 1)[0]:
                node[key] = f"{label}\n\n{value}"

    twins(filled)


def _has(node: Any, path: tuple[str, ...]) -> bool:
    for part in path:
        if not isinstance(node, Mapping) or part not in node:
            return False
        node = node[part]
    return True


def shared_english_book() -> Book:
    """The English helplines, read from content/ without the translations (which may still
    have gaps: that is what this module fills)."""
    return shared_content().crisis_book


def complete_content(target: Path) -> Path:
    """A copy of content/ with every language complete and enabled."""
    source = content_dir()
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    lines = helpline_texts.english_strings(shared_english_book())
    for language in LANGUAGES:
        folder = target / "locales" / language
        _fill_helplines(folder, lines, language)
        for english_file in sorted((source / "texts").glob("*.yaml")):
            english = yaml.safe_load(english_file.read_text(encoding="utf-8"))
            own_file = folder / "texts" / english_file.name
            own = yaml.safe_load(own_file.read_text(encoding="utf-8")) if own_file.exists() else {}
            filled = _fill(english, own or {}, language, "")
            if english_file.name == "urge.yaml":
                _urge_rules(filled, own or {}, language)
            own_file.write_text(yaml.safe_dump(filled, allow_unicode=True), encoding="utf-8")
        (folder / "language.yaml").write_text("enabled: true\n", encoding="utf-8")
    return target


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def english_sentences(content: Any) -> set[str]:
    """Every sentence of four or more words in the English UI texts, worksheets and
    prompts, placeholders cut out: what a person in another language must never meet."""
    pieces: list[str] = []
    texts = content.texts
    keys = texts.keys()
    pieces += [texts(key) for key in keys]  # with no values: the template itself
    for sheet in content.worksheets.values():
        pieces += [sheet.title, sheet.summary, sheet.intro, sheet.before_you_start, sheet.closing]
        for section in sheet.sections:
            pieces += [section.title, section.framing]
            pieces += [q.text for q in section.questions] + [
                q.hint or "" for q in section.questions
            ]
    pieces += [p.text for p in content.prompts]
    pieces += helpline_texts.english_strings(content.crisis_book)
    found: set[str] = set()
    for piece in pieces:
        for sentence in _SENTENCE_END.split(piece):
            for part in re.split(r"\{[^}]*\}", sentence):
                words = part.strip(" •:;,\"'“”()—-").split()
                if len(words) >= 4:
                    found.add(" ".join(words))
    return found


def shown(messages: Iterator[Any]) -> Iterator[str]:
    """Every text a person saw: messages, captions and button labels."""
    for message in messages:
        yield " ".join((message.text or "").split())
        if message.document is not None:
            yield " ".join((message.document.caption or "").split())
        markup = message.reply_markup or {}
        for row in markup.get("inline_keyboard", []):
            for button in row:
                yield button.get("text", "")
