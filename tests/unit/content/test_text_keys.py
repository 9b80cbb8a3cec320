"""Every UI text key the code uses exists (content/texts/*.yaml), so a typo fails CI rather
than a person's chat.

Keys are found in the source itself: every string literal shaped like a dotted key whose
first part is one of the texts' namespaces ("start.welcome", also when passed on, as in
`missing="start.not_started"`), and every f-string that starts with one ("days.{key}"),
which must be the beginning of at least one key. The first argument of any call to `tx`
(`context.tx("...")`, `tx(...)` in views) is a key whatever it starts with, so a key
in a namespace that does not exist ("no.such.key") is caught too.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from pathlib import Path

from bot.content.texts import Texts
from tests.helpers.bot import shared_content

ROOT = Path(__file__).resolve().parents[3]
_KEY = re.compile(r"[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+")
_FILE = re.compile(r".*\.(?:ya?ml|py|md|tab|txt|pdf|sqlite3)")


def used_keys(trees: Iterable[tuple[str, ast.Module]], namespaces: set[str]) -> list[str]:
    """`where: key` for literal keys, `where: key*` for f-string prefixes."""
    found = []
    for where, tree in trees:
        for node in ast.walk(tree):  # breadth first: a call before its arguments
            if isinstance(node, ast.Call) and _is_tx(node.func) and node.args:
                node.args[0].__dict__["_tx_key"] = True
            if isinstance(node, ast.JoinedStr):
                head = node.values[0] if node.values else None
                text = head.value if isinstance(head, ast.Constant) else None
                known = isinstance(text, str) and text.split(".")[0] in namespaces
                if (
                    isinstance(text, str)
                    and "." in text
                    and (known or node.__dict__.get("_tx_key"))
                ):
                    found.append(f"{where}:{node.lineno}: {text}*")
                for value in node.values:  # the literal parts are not keys of their own
                    value.__dict__["_in_fstring"] = True
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and not node.__dict__.get("_in_fstring")
                and (
                    node.__dict__.get("_tx_key")
                    or (
                        _KEY.fullmatch(node.value)
                        and not _FILE.fullmatch(node.value)
                        and node.value.split(".")[0] in namespaces
                    )
                )
            ):
                found.append(f"{where}:{node.lineno}: {node.value}")
    return found


def _is_tx(func: ast.expr) -> bool:
    return (isinstance(func, ast.Name) and func.id == "tx") or (
        isinstance(func, ast.Attribute) and func.attr == "tx"
    )


def missing_keys(used: Iterable[str], texts: Texts) -> list[str]:
    keys = texts.keys()
    missing = []
    for entry in used:
        key = entry.rsplit(": ", 1)[1]
        if key.endswith("*"):
            if not any(k.startswith(key[:-1]) for k in keys):
                missing.append(entry)
        elif not texts.has(key) and not any(k.startswith(key + ".") for k in keys):
            # A literal names a key, or a group of keys passed on whole ("urge.draft").
            missing.append(entry)
    return missing


def _sources() -> list[tuple[str, ast.Module]]:
    return [
        (str(path.relative_to(ROOT)), ast.parse(path.read_text()))
        for path in sorted((ROOT / "bot").rglob("*.py"))
        if "emulator" not in path.parts
    ]


def _namespaces(texts: Texts) -> set[str]:
    return {key.split(".")[0] for key in texts.keys()}  # noqa: SIM118 - Texts is no dict


def test_every_text_key_the_code_uses_exists() -> None:
    texts = shared_content().texts
    used = used_keys(_sources(), _namespaces(texts))
    assert len(used) > 150  # the finder finds: the handlers and views use this many
    assert missing_keys(used, texts) == []


def test_a_mistyped_key_is_caught() -> None:
    texts = shared_content().texts
    source = ast.parse(
        'tx("start.welcom")\n'
        'say(missing="forget.nothing")\n'
        'tx(f"days.{key}")\n'
        'tx(f"dayz_typo.{key}")\n'
        'tx(f"settings.nope_{x}")\n'
        'open("worksheets.yaml")\n'
        'context.tx("no.such.key")\n'
        'tx(f"nowhere.{x}")\n'
    )
    used = used_keys([("x.py", source)], _namespaces(texts) | {"dayz_typo"})
    assert missing_keys(used, texts) == [
        "x.py:1: start.welcom",
        "x.py:4: dayz_typo.*",
        "x.py:5: settings.nope_*",
        "x.py:7: no.such.key",
        "x.py:8: nowhere.*",
    ]
