"""The import rules of docs/architecture.md ("Layers"), checked on the source itself.

Each rule names a group of modules and what they must not import; a module's imports are
every `import`/`from` in it, wherever it stands (also under TYPE_CHECKING). A failure names
the file, the line and the import that broke the rule.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "bot"

# Content schemas that still live in services/ (content.py loads them); they import no
# other service, which test_schemas_import_no_logic checks.
SCHEMAS = (
    "bot.services.worksheet_model",
    "bot.services.prompt_model",
    "bot.services.helplines",
    "bot.services.crisis",
    "bot.services.crisis_patterns",
    "bot.services.crisis_normal",
    "bot.services.crisis_terms",
    "bot.services.emergency",
    "bot.services.places",
    "bot.services.crisis_reply",
    "bot.services.helpline_texts",
    "bot.services.decoys",
    "bot.services.panic_word",
    "bot.services.urge_texts",
    "bot.services.phrases",
    "bot.services.phrase_patterns",
    "bot.services.conversation",
    # Data the schemas check against: IANA's country and zone tables, urge ids.
    "bot.services.zone_table",
    "bot.services.urge_model",
)


@dataclass(frozen=True)
class Rule:
    what: str  # the modules the rule is about (a package prefix or one module)
    forbidden: tuple[str, ...]  # module prefixes they must not import
    allowed: tuple[str, ...] = ()  # exceptions to `forbidden`, named one by one

    def applies_to(self, module: str) -> bool:
        return _within(module, self.what)

    def breaks(self, imported: str) -> bool:
        if any(_within(imported, a) for a in self.allowed):
            return False
        return any(_within(imported, f) for f in self.forbidden)


RULES = (
    Rule(
        "bot.storage",
        (
            "bot.services",
            "bot.handlers",
            "bot.core",
            "bot.views",
            "bot.app",
            "bot.runtime",
            "bot.context",
            "telegram",
        ),
    ),
    Rule("bot.content", ("bot.services",), allowed=SCHEMAS),
    Rule("bot.texts", ("bot.services", "bot.handlers", "bot.app", "bot.runtime")),
    Rule(
        "bot.services",
        ("bot.handlers", "bot.app", "bot.runtime", "bot.context", "bot.views", "telegram.ext"),
    ),
    Rule("bot.handlers", ("bot.app", "bot.runtime", "bot.storage")),
    Rule("bot.views", ("telegram", "bot.handlers", "bot.app", "bot.runtime", "bot.context")),
    Rule("bot.core", ("bot.handlers", "bot.app", "bot.runtime", "bot.storage")),
    Rule("bot.context", ("bot.handlers", "bot.app", "bot.runtime", "bot.core.hub")),
)

# Only the composition root and the lifecycle build stores and services (and the CLI,
# which opens storage for `keys rotate`, `backup` and `stats` without a bot).
BUILDERS = ("bot.app", "bot.runtime", "bot.__main__")


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _sources() -> list[tuple[str, Path, ast.Module]]:
    found = []
    for path in sorted(BOT.rglob("*.py")):
        if "emulator" in path.parts:  # a test double of Telegram, not part of the bot
            continue
        found.append((_module_name(path), path, ast.parse(path.read_text(), str(path))))
    return found


def imports_of(module: str, tree: ast.Module) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the module's package
                base = module.rsplit(".", node.level)[0]
                name = f"{base}.{node.module}" if node.module else base
            else:
                name = node.module or ""
            out.append((node.lineno, name))
            # `from bot import app` imports bot.app
            out += [(node.lineno, f"{name}.{alias.name}") for alias in node.names]
    return out


def layering_violations(sources: list[tuple[str, Path, ast.Module]]) -> list[str]:
    problems = []
    for module, path, tree in sources:
        for rule in RULES:
            if not rule.applies_to(module):
                continue
            seen: set[int] = set()
            for line, imported in imports_of(module, tree):
                if rule.breaks(imported) and line not in seen:
                    seen.add(line)  # one report per import statement
                    where = path.relative_to(ROOT)
                    problems.append(f"{where}:{line}: {rule.what} must not import {imported}")
    return problems


def _built_classes() -> set[str]:
    """Store and service classes: every class in bot/storage/ and bot/services/ whose
    instances hold state or I/O (named *Store, *Service, *Flow, ...)."""
    suffixes = (
        "Store",
        "Service",
        "Flow",
        "Ledger",
        "Cache",
        "Counter",
        "Dispatcher",
        "Exporter",
        "Database",
        "KeyStore",
    )
    names = set()
    for folder in (BOT / "storage", BOT / "services"):
        for path in folder.glob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ClassDef) and node.name.endswith(suffixes):
                    names.add(node.name)
    return names


def construction_violations(sources: list[tuple[str, Path, ast.Module]]) -> list[str]:
    built = _built_classes()
    problems = []
    for module, path, tree in sources:
        if module in BUILDERS:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name in built:
                where = path.relative_to(ROOT)
                problems.append(f"{where}:{node.lineno}: {name}(...) built outside app.py")
    return problems


# Imports inside a function that are there for a reason other than a cycle, named one by one:
# (module, imported module) -> why.
LAZY_ALLOWED = {
    ("bot.services.progress_chart", "bot.services.chart_drawing"): (
        "matplotlib (about 100 MB) is imported only in the chart's worker process"
    ),
}


def _imported(node: ast.Import | ast.ImportFrom) -> str:
    return node.module or "" if isinstance(node, ast.ImportFrom) else node.names[0].name


def lazy_import_violations(sources: list[tuple[str, Path, ast.Module]]) -> list[str]:
    """Imports inside functions hide cycles; only the CLI keeps some for start-up speed."""
    problems = []
    for module, path, tree in sources:
        if module == "bot.__main__":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.Import | ast.ImportFrom):
                        if (module, _imported(inner)) in LAZY_ALLOWED:
                            continue
                        where = path.relative_to(ROOT)
                        problems.append(f"{where}:{inner.lineno}: import inside {node.name}()")
    return problems


def test_imports_point_one_way() -> None:
    assert layering_violations(_sources()) == []


def test_only_the_composition_root_builds_stores_and_services() -> None:
    assert construction_violations(_sources()) == []


def test_no_lazy_imports() -> None:
    assert lazy_import_violations(_sources()) == []


def test_schemas_import_no_logic() -> None:
    sources = {m: (p, t) for m, p, t in _sources()}
    for schema in SCHEMAS:
        path, tree = sources[schema]
        services = [n for _, n in imports_of(schema, tree) if _within(n, "bot.services")]
        assert [n for n in services if not any(_within(n, s) for s in SCHEMAS)] == [], path


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        ("bot.handlers.x", "from bot.app import StApp", "bot.handlers must not import bot.app"),
        ("bot.handlers.x", "import bot.runtime", "bot.handlers must not import bot.runtime"),
        ("bot.handlers.x", "from bot import app", "bot.handlers must not import bot.app"),
        ("bot.handlers.x", "from bot.storage.people import PeopleStore", "bot.storage"),
        ("bot.services.x", "from telegram.ext import Application", "telegram.ext"),
        ("bot.services.x", "from bot.handlers.common import say", "bot.handlers"),
        ("bot.storage.x", "from bot.services.people import Person", "bot.services"),
        ("bot.content", "from bot.services.delivery import TICK", "bot.services.delivery"),
        ("bot.views.x", "from telegram import Message", "telegram"),
    ],
)
def test_a_broken_rule_is_caught(module: str, source: str, expected: str) -> None:
    """The checker itself: each of these lines, put in such a module, fails the test."""
    problems = layering_violations([(module, BOT / "x.py", ast.parse(source))])
    assert len(problems) == 1 and expected in problems[0]


def test_a_store_built_in_a_handler_is_caught() -> None:
    tree = ast.parse("def f(db):\n    return JournalStore(db)\n")
    assert construction_violations([("bot.handlers.x", BOT / "x.py", tree)])
    tree = ast.parse("def f():\n    from bot.app import StApp\n")
    assert lazy_import_violations([("bot.handlers.x", BOT / "x.py", tree)])


def test_no_production_asserts() -> None:
    # `python -O` strips them, so they cannot guard anything; narrowing is done with a real
    # check and a clear error. The emulator is test machinery and may assert.
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in sorted(BOT.rglob("*.py"))
        if "emulator" not in path.parts
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Assert)
    ]
    assert found == []
