"""The schema of content/crisis_terms.yaml: categories (kind, tier, what lowers them) and,
per language, the patterns of each category and the roles (not a crisis, past, safe now).
Every problem is named with its path, so `python -m bot content check` gives file:line."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from bot.core.problems import Path, Problem
from bot.matching.crisis import CERTAIN, LOWERINGS, ROLES, UNCERTAIN, WORDS, CrisisKind
from bot.matching.normal import normalize
from bot.matching.patterns import PatternError, compile_pattern

_LANGUAGE = re.compile(r"[a-z]{2}")
_NAME = re.compile(r"[a-z][a-z_]*")


def _validate_categories(raw: object) -> tuple[set[str], list[Problem]]:
    kinds = ", ".join(k.value for k in CrisisKind)
    if not isinstance(raw, Mapping) or not raw:
        return set(), [Problem(("categories",), "must map category names to kind and tier")]
    problems: list[Problem] = []
    names: set[str] = set()
    for name, spec in raw.items():
        path: Path = ("categories", str(name))
        if not isinstance(name, str) or not _NAME.fullmatch(name) or name in ROLES:
            problems.append(Problem(path, f"use a lower-case name other than {', '.join(ROLES)}"))
            continue
        names.add(name)
        if not isinstance(spec, Mapping):
            problems.append(Problem(path, "must be a mapping with kind and tier"))
            continue
        unknown = set(spec) - {"kind", "tier", "lowered_by", "about"}
        if unknown:
            problems.append(Problem(path, f"unknown keys: {', '.join(sorted(map(str, unknown)))}"))
        if spec.get("kind") not in {k.value for k in CrisisKind}:
            problems.append(Problem((*path, "kind"), f"use one of: {kinds}"))
        if spec.get("tier") not in (CERTAIN, UNCERTAIN) or isinstance(spec.get("tier"), bool):
            problems.append(Problem((*path, "tier"), "must be 1 (certain) or 2 (uncertain)"))
        lowered = spec.get("lowered_by", [])
        if not isinstance(lowered, list) or not set(lowered) <= set(LOWERINGS):
            problems.append(
                Problem((*path, "lowered_by"), f"must be a list of: {', '.join(LOWERINGS)}")
            )
    return names, problems


def validate_terms(raw: object, required: Sequence[str] = ()) -> list[Problem]:
    """Every problem in a parsed crisis-terms document; [] means `from_terms` is safe.
    `required`: languages that must have terms of their own (the ones the bot speaks)."""
    if not isinstance(raw, Mapping) or set(raw) != {"categories", "languages"}:
        return [Problem((), "the file must be a mapping with 'categories' and 'languages'")]
    names, problems = _validate_categories(raw["categories"])
    languages = raw["languages"]
    if not isinstance(languages, Mapping) or not languages:
        return [*problems, Problem(("languages",), "must map language codes to categories")]
    known = ", ".join(sorted(names) + list(ROLES))
    # A language the bot speaks with no crisis words of its own: its people's "help"
    # would go unheard (others may be listed too: people write in more than one).
    problems += [
        Problem(("languages",), f"no crisis words for {code!r}, which the bot speaks")
        for code in required
        if code not in languages
    ]
    for language, by_role in languages.items():
        where: Path = ("languages", str(language))
        if isinstance(language, bool):
            problems.append(
                Problem(where, "quote the code: YAML reads a bare no or on as a boolean")
            )
        elif not isinstance(language, str) or not _LANGUAGE.fullmatch(language):
            problems.append(Problem(where, "use a two-letter ISO 639-1 code in lower case"))
        if not isinstance(by_role, Mapping) or not by_role:
            problems.append(Problem(where, f"must map categories ({known}) to lists"))
            continue
        # Within one language a pattern means one thing; the same normalised pattern twice
        # is a copy, or a contradiction when the categories differ.
        seen: dict[str, Path] = {}
        macros = by_role.get(WORDS, {})
        if not isinstance(macros, Mapping) or not all(
            isinstance(v, list) and v and all(isinstance(w, str) and w.strip() for w in v)
            for v in macros.values()
        ):
            problems.append(Problem((*where, WORDS), "must map names to lists of phrases"))
            continue
        for role, patterns in by_role.items():
            if role == WORDS:
                continue
            role_path: Path = (*where, str(role))
            if role not in names and role not in ROLES:
                problems.append(Problem(role_path, f"unknown category; use one of: {known}"))
            if not isinstance(patterns, list):
                problems.append(Problem(role_path, "must be a list of patterns"))
                continue
            for index, pattern in enumerate(patterns):
                path: Path = (*role_path, index)
                if not isinstance(pattern, str) or not pattern.strip():
                    problems.append(Problem(path, "must be a non-empty pattern"))
                    continue
                try:
                    compile_pattern(pattern, macros)
                except PatternError as exc:
                    problems.append(Problem(path, f"{pattern!r}: {exc}"))
                    continue
                canonical = " ".join(normalize(p) or p for p in pattern.split())
                first = seen.get(canonical)
                if first is not None:
                    at = ".".join(str(p) for p in first)
                    problems.append(Problem(path, f"{pattern!r} duplicates {at} once normalised"))
                else:
                    seen[canonical] = path
    return problems
