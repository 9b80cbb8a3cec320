"""Reading content's YAML with the line of every value, so each problem a check finds
is reported as file and line, and nothing is loaded from a file that does not validate."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.core.problems import Path as ProblemPath
from bot.core.problems import Problem

if TYPE_CHECKING:
    import yaml

# PyYAML loads only when content is read from its files (`content check`, a cold start): a
# start from the compiled content (bot/content/compiled.py) never needs it (issue 25).


@dataclass
class Doc:
    file: Path
    data: Any
    lines: dict[ProblemPath, int]

    def locate(self, path: ProblemPath) -> str:
        # The deepest known ancestor of the path gives the nearest line.
        for cut in range(len(path), -1, -1):
            line = self.lines.get(path[:cut])
            if line is not None:
                return f"{self.file}:{line}"
        return f"{self.file}:1"


def load_yaml(file: Path, problems: list[str]) -> Doc | None:
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"{file}:1: cannot read ({type(exc).__name__})")
        return None
    import yaml  # noqa: PLC0415 - see above

    # libyaml's parser builds the same nodes, with their lines, several times faster than
    # the pure-Python one: used wherever PyYAML has it.
    composer: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        node = yaml.compose(text, Loader=composer)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problems.append(f"{file}:{line}: not valid YAML ({getattr(exc, 'problem', exc)})")
        return None
    lines: dict[ProblemPath, int] = {}
    if node is None:
        return Doc(file, None, lines)
    data = _to_python(node, (), lines, file, problems, yaml.SafeLoader(""))
    return Doc(file, data, lines)


def _to_python(
    node: yaml.Node,
    path: ProblemPath,
    lines: dict[ProblemPath, int],
    file: Path,
    problems: list[str],
    constructor: yaml.SafeLoader,
) -> Any:
    lines[path] = node.start_mark.line + 1
    # The node's kind by its `id` (yaml.MappingNode's is "mapping"): no import of PyYAML
    # for this module, which the compiled content's start loads.
    kind = getattr(node, "id", "scalar")
    if kind == "mapping":
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = _scalar(key_node, constructor)
            if key in result:
                # PyYAML keeps the last duplicate silently; an author needs to know.
                problems.append(f"{file}:{key_node.start_mark.line + 1}: duplicate key {key!r}")
            result[key] = _to_python(value_node, (*path, key), lines, file, problems, constructor)
        return result
    if kind == "sequence":
        return [
            _to_python(item, (*path, index), lines, file, problems, constructor)
            for index, item in enumerate(node.value)
        ]
    try:
        return _scalar(node, constructor)
    except ValueError:
        # PyYAML raises on a date-shaped typo (2026-13-01) instead of keeping the text; keep
        # it, so the file's own check reports it at its line instead of a traceback.
        return str(node.value)


def _scalar(node: yaml.Node, constructor: yaml.SafeLoader) -> Any:
    # A loader over an empty stream is only used for its constructors (dates, ints, bools);
    # one per file, since making one costs more than constructing a scalar.
    value = constructor.construct_object(node, deep=True)
    constructor.constructed_objects.clear()
    return value


def report(doc: Doc, found: list[Problem], problems: list[str]) -> None:
    problems.extend(f"{doc.locate(p.path)}: {p.message}" for p in found)


def checked(
    root: Path,
    name: str,
    validate: Callable[[object], list[Problem]],
    problems: list[str],
) -> Doc | None:
    file = root / name
    if not file.is_file():
        problems.append(f"{file}:1: missing")
        return None
    doc = load_yaml(file, problems)
    if doc is None:
        return None
    found = validate(doc.data)
    report(doc, found, problems)
    return None if found else doc
