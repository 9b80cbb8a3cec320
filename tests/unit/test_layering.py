"""The import rules of docs/architecture.md ("Layers"), checked on the source itself.

Each rule names a group of modules and what they must not import; a module's imports are
every `import`/`from` in it, wherever it stands (also under TYPE_CHECKING). A failure names
the file, the line and the import that broke the rule. Above the rules, the package graph:
no two packages of the bot may import each other, however long the way round.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "bot"

# A pattern is a dotted module prefix; `*` stands for one name (any feature).
HANDLERS = "bot.features.*.handlers"
# The one module of a feature that builds its own stores and services from the shared ones.
BUILD = "bot.features.*.build"
BOTTOM = "bot.core"
ERRORS = "bot.core.errors"


@dataclass(frozen=True)
class Rule:
    what: str  # the modules the rule is about (a pattern)
    forbidden: tuple[str, ...]  # patterns of modules they must not import
    allowed: tuple[str, ...] = ()  # exceptions to `forbidden`, named one by one
    unless: tuple[str, ...] = ()  # modules of `what` the rule leaves to another rule

    def applies_to(self, module: str) -> bool:
        if any(_within(module, u) for u in self.unless):
            return False
        return _within(module, self.what)

    def breaks(self, imported: str) -> bool:
        if any(_within(imported, a) for a in self.allowed):
            return False
        return any(_within(imported, f) for f in self.forbidden)


# Every layer, bottom first, and what it must not import ("bot" alone: any module of the
# bot); `allowed` names the exceptions.
RULES = (
    # Pure codecs and types: nothing above them.
    Rule(BOTTOM, ("bot",), allowed=(BOTTOM,)),
    # Where a crisis word is matched, and countries and zones: pure, on the bottom only.
    Rule("bot.matching", ("bot",), allowed=(BOTTOM, "bot.matching")),
    Rule("bot.geo", ("bot",), allowed=(BOTTOM, "bot.geo")),
    # Loading data runs no logic: content knows the matching and the zone tables, no feature.
    Rule("bot.content", ("bot",), allowed=(BOTTOM, "bot.matching", "bot.geo", "bot.content")),
    # SQL knows nothing above it (crypto only, for the key store's wrapped keys; the errors'
    # base, which every layer may raise from).
    Rule("bot.storage", ("bot", "telegram"), allowed=("bot.storage", "bot.crypto", ERRORS)),
    Rule("bot.crypto", ("bot",), allowed=(ERRORS,)),
    # Shared services and the transport know no feature and no PTB wiring.
    Rule(
        "bot.people",
        ("bot.features", "bot.framework", "bot.app", "bot.wiring", "bot.runtime", "telegram.ext"),
    ),
    Rule(
        "bot.transport",
        ("bot.features", "bot.framework", "bot.content", "bot.app", "bot.wiring", "bot.runtime"),
    ),
    # What features plug into knows no feature's handlers: they plug in from above.
    Rule("bot.framework", (HANDLERS, "bot.app", "bot.wiring", "bot.runtime")),
    # A feature's logic and views are testable without PTB and never reach up.
    Rule(
        "bot.features",
        ("bot.framework", HANDLERS, "bot.app", "bot.wiring", "bot.runtime", "telegram.ext"),
        unless=(HANDLERS, BUILD),
    ),
    # A feature's build knows the shared services (bot/framework/context.py), storage, the
    # transport and its own logic; never a handler, never the composition root.
    Rule(BUILD, (HANDLERS, "bot.app", "bot.wiring", "bot.runtime")),
    Rule("bot.features.*.views", ("telegram",)),
    # Handlers receive what they need: never the composition root, never a store.
    Rule(HANDLERS, ("bot.app", "bot.wiring", "bot.runtime", "bot.storage")),
)

# Only the composition root and the lifecycle build the shared stores and services (and the
# CLI, which opens storage for `keys rotate`, `backup` and `stats` without a bot); a
# feature builds its own in its `build` module, and nothing of another feature's there.
BUILDERS = ("bot.wiring", "bot.runtime", "bot.__main__")


def _within(module: str, pattern: str) -> bool:
    """`module` is `pattern` or inside it; a `*` in the pattern matches one name."""
    want = pattern.split(".")
    have = module.split(".")
    if len(have) < len(want):
        return False
    return all(w in ("*", h) for w, h in zip(want, have, strict=False))


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


# ---- the package graph


def package_of(module: str, is_package: bool = False) -> str:
    """The node a module belongs to: its package; a loose module of bot/ (app, runtime,
    crypto...) stands alone; a feature's handlers (`handlers.py` or `handlers/`) and its
    build are nodes of their own, above the feature's logic and the framework both."""
    parts = module.split(".")
    if "handlers" in parts:
        return ".".join(parts[: parts.index("handlers") + 1])
    if _within(module, BUILD) and len(parts) == 4:
        return module
    if is_package or len(parts) <= 2:
        return module
    return ".".join(parts[:-1])


def package_graph(sources: list[tuple[str, Path, ast.Module]]) -> dict[str, set[str]]:
    nodes = {m: package_of(m, p.name == "__init__.py") for m, p, _ in sources}
    graph: dict[str, set[str]] = {node: set() for node in nodes.values()}
    for module, _, tree in sources:
        for _, imported in imports_of(module, tree):
            target = nodes.get(imported)
            if target is not None and target != nodes[module]:
                graph[nodes[module]].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each strongly connected set of more than one package (Tarjan), as one way round it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def cycle_report(graph: dict[str, set[str]]) -> list[str]:
    return [
        f"{a} -> {b}"
        for group in cycles(graph)
        for a in group
        for b in sorted(graph[a])
        if b in group
    ]


def _feature(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "features" else None


def cross_feature_handlers(sources: list[tuple[str, Path, ast.Module]]) -> set[tuple[str, str]]:
    found = set()
    for module, _, tree in sources:
        mine = _feature(module)
        if mine is None:
            continue
        for _, imported in imports_of(module, tree):
            theirs = _feature(imported)
            if theirs not in (None, mine) and _within(imported, HANDLERS):
                found.add((mine, theirs))
    return found


def _built_classes() -> dict[str, str]:
    """Store and service classes, each with the package it is defined in: every class in
    storage, the shared services and the features' logic whose instances hold state or I/O
    (named *Store, *Service, *Flow, ...), and the Hub (the wiring's one)."""
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
    names = {"Hub": "bot.framework"}
    for folder in (BOT / "storage", BOT / "people", BOT / "features"):
        for path in folder.rglob("*.py"):
            if "handlers" in path.relative_to(folder).with_suffix("").parts:
                continue
            package = _module_name(path).rsplit(".", 1)[0]
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ClassDef) and node.name.endswith(suffixes):
                    names[node.name] = package
    return names


def _may_build(module: str, defined_in: str) -> bool:
    """A feature's build module builds stores, and its own feature's services only."""
    if module in BUILDERS:
        return True
    if not _within(module, BUILD):
        return False
    return _within(defined_in, "bot.storage") or _within(defined_in, module.rsplit(".", 1)[0])


def construction_violations(
    sources: list[tuple[str, Path, ast.Module]], built: dict[str, str] | None = None
) -> list[str]:
    built = _built_classes() if built is None else built
    problems = []
    for module, path, tree in sources:
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name in built and not _may_build(module, built[name]):
                where = path.relative_to(ROOT)
                problems.append(
                    f"{where}:{node.lineno}: {name}(...) built outside bot/wiring.py"
                    " and its own feature's build module"
                )
    return problems


# Imports inside a function that are there for a reason other than a cycle, named one by one:
# (module, imported module) -> why.
LAZY_ALLOWED = {
    ("bot.features.progress.chart", "bot.features.progress.drawing"): (
        "matplotlib (about 100 MB) is imported only in the chart's worker process"
    ),
    # fpdf (with fontTools and numpy) was a quarter of the imports before the first poll;
    # only a PDF export needs it (issue 25).
    ("bot.features.export.pdf_text", "fpdf"): "fpdf loads on the first PDF",
    ("bot.features.export.pdf_text", "fontTools.ttLib"): "fontTools loads on the first PDF",
    ("bot.features.export.render", "fpdf.enums"): "fpdf loads on the first PDF",
    ("bot.features.record.export", "fpdf.enums"): "fpdf loads on the first PDF",
    # A start from the content's compiled form (bot/content/compiled.py) reads no YAML and
    # checks no number; a SQLite bot opens no PostgreSQL (issue 25).
    ("bot.content.emergency", "phonenumbers"): "libphonenumber loads for content checks",
    ("bot.content.emergency", "phonenumbers.phonemetadata"): "likewise",
    ("bot.content.yaml_lines", "yaml"): "PyYAML loads when content is read from its files",
    ("bot.storage.engines", "bot.storage.postgres"): "asyncpg loads for PostgreSQL only",
    # numpy, the encoder and the head were half a second of the first poll; the model's
    # worker loads them once the bot polls, and the handlers ask bot.matching.model_gate.
    ("bot.features.crisis.screen", "bot.matching.crisis_model"): (
        "the crisis model loads in its worker after the first poll"
    ),
    # Pillow and prometheus-client were a few hundredths of a second of the first poll:
    # Pillow is for photos in exports and records, the metrics' page for webhook mode.
    ("bot.features.export.parts", "PIL"): "Pillow loads on the first photo",
    ("bot.features.record.export", "PIL"): "likewise",
    ("bot.transport.metrics", "prometheus_client"): "loads for the first /metrics page",
    ("bot.transport.metrics", "prometheus_client.registry"): "likewise",
    ("bot.transport.metrics", "prometheus_client.core"): "likewise",
    # aiohttp (its server and client) only where a port is served: webhook mode.
    ("bot.runtime", "bot.transport.webhook"): "aiohttp's server loads in webhook mode only",
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


def test_packages_import_each_other_one_way() -> None:
    assert cycle_report(package_graph(_sources())) == []


def test_imports_point_one_way() -> None:
    assert layering_violations(_sources()) == []


def test_no_feature_imports_another_features_handlers() -> None:
    # One feature uses another through what it offers (bot/framework/offers.py).
    assert cross_feature_handlers(_sources()) == set()


def test_only_the_composition_root_builds_stores_and_services() -> None:
    assert construction_violations(_sources()) == []


def test_no_lazy_imports() -> None:
    assert lazy_import_violations(_sources()) == []


def _parsed(*modules: tuple[str, str]) -> list[tuple[str, Path, ast.Module]]:
    return [(module, BOT / "x.py", ast.parse(source)) for module, source in modules]


def test_a_cycle_is_caught() -> None:
    """Three packages round in a ring, and a package that only points down beside them."""
    sources = _parsed(
        ("bot.core.state", "from bot.content.texts import Tx"),
        ("bot.content.texts", "from bot.features.urge.service import UrgeService"),
        ("bot.features.urge.service", "from bot.core import state"),
        ("bot.features.urge.handlers", "from bot.features.urge.service import UrgeService"),
    )
    assert cycle_report(package_graph(sources)) == [
        "bot.content -> bot.features.urge",
        "bot.core -> bot.content",
        "bot.features.urge -> bot.core",
    ]
    assert cycle_report(package_graph(sources[1:])) == []


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        (
            "bot.features.crisis.handlers.x",
            "from bot.app import StApp",
            f"{HANDLERS} must not import bot.app",
        ),
        ("bot.features.urge.handlers", "import bot.runtime", "must not import bot.runtime"),
        ("bot.features.urge.handlers", "from bot import app", "must not import bot.app"),
        ("bot.features.urge.handlers", "import bot.wiring", "must not import bot.wiring"),
        ("bot.features.urge.handlers", "from bot.storage.people import PeopleStore", "storage"),
        ("bot.features.urge.service", "from telegram.ext import Application", "telegram.ext"),
        ("bot.features.urge.service", "from bot.framework.chat import say", "bot.framework"),
        ("bot.features.urge.views", "from telegram import Message", "telegram"),
        ("bot.storage.x", "from bot.people.service import Person", "bot.people"),
        ("bot.content.x", "from bot.features.checkins.delivery import TICK", "bot.features"),
        ("bot.core.x", "from bot.content.texts import Tx", "bot.core must not import"),
        ("bot.framework.x", "from bot.features.crisis.handlers import crisis", "handlers"),
        ("bot.features.urge.build", "from bot.features.urge.handlers import x", "handlers"),
        ("bot.features.urge.build", "from bot.wiring import Foundation", "bot.wiring"),
    ],
)
def test_a_broken_rule_is_caught(module: str, source: str, expected: str) -> None:
    """The checker itself: each of these lines, put in such a module, fails the test."""
    problems = layering_violations(_parsed((module, source)))
    assert len(problems) == 1 and expected in problems[0]


def test_a_features_handlers_imported_by_another_feature_are_caught() -> None:
    sources = _parsed(
        ("bot.features.urge.handlers", "from bot.features.crisis.handlers.held import x"),
        ("bot.features.urge.handlers", "from bot.features.crisis.held import y"),
        ("bot.features.crisis.handlers.send", "from bot.features.crisis.handlers import keep"),
    )
    assert cross_feature_handlers(sources) == {("urge", "crisis")}


def test_a_store_built_in_a_handler_is_caught() -> None:
    tree = ast.parse("def f(db):\n    return JournalStore(db)\n")
    assert construction_violations([("bot.features.x.handlers", BOT / "x.py", tree)])
    assert construction_violations([("bot.features.x.flow", BOT / "x.py", tree)])
    assert not construction_violations([("bot.features.x.build", BOT / "x.py", tree)])


@pytest.mark.parametrize(
    ("module", "source", "allowed"),
    [
        # Its own feature's services and any store: the one module that may.
        ("bot.features.urge.build", "UrgeService(UrgeStore(db))", True),
        # Another feature's service: that feature builds it and offers it.
        ("bot.features.export.build", "JournalService(db)", False),
        # A shared service: the composition root's.
        ("bot.features.urge.build", "PeopleService(db)", False),
        # The feature's own service anywhere but its build module.
        ("bot.features.urge.service", "UrgeService(db)", False),
        # A placeholder hub: a feature is handed the Hub at install.
        ("bot.features.urge.handlers", "Hub()", False),
    ],
)
def test_only_a_features_build_builds_its_own_services(
    module: str, source: str, allowed: bool
) -> None:
    built = {
        "UrgeService": "bot.features.urge",
        "UrgeStore": "bot.storage",
        "JournalService": "bot.features.checkins",
        "PeopleService": "bot.people",
        "Hub": "bot.framework",
    }
    tree = ast.parse(source)
    assert (construction_violations([(module, BOT / "x.py", tree)], built) == []) is allowed
    tree = ast.parse("def f():\n    from bot.app import StApp\n")
    assert lazy_import_violations([("bot.features.x.handlers", BOT / "x.py", tree)])


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


# Larger than this, a module holds more than one thing (docs/architecture.md). The Telegram
# emulator is included: it is test machinery, but it is read and changed like the bot.
MODULE_LIMIT = 500


def test_no_module_is_over_500_lines() -> None:
    long = {
        str(path.relative_to(ROOT)): lines
        for path in sorted(BOT.rglob("*.py"))
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LIMIT
    }
    assert long == {}


def test_test_modules_share_helpers_not_each_other() -> None:
    # What two test modules share lives in tests/helpers/ (issue 24): a test module that
    # imports another runs that module's tests' imports and fixtures where nobody looks.
    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        module = _module_name(path)
        for line, imported in imports_of(module, ast.parse(path.read_text(encoding="utf-8"))):
            if imported.split(".")[-1].startswith("test_") or ".test_" in imported:
                found.append(f"{path.relative_to(ROOT)}:{line}: imports {imported}")
    assert found == []
