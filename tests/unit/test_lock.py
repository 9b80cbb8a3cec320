"""requirements.lock pins every runtime dependency, with hashes, inside pyproject's minimums
(which keep known CVEs out), so CI and the Docker image install exactly what was reviewed."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]


def locked() -> dict[str, tuple[Version, list[str]]]:
    text = (ROOT / "requirements.lock").read_text().replace("\\\n", " ")
    pins: dict[str, tuple[Version, list[str]]] = {}
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        name, version = line.split()[0].split("==")
        pins[canonicalize_name(name)] = (Version(version), re.findall(r"sha256:[0-9a-f]{64}", line))
    return pins


def test_every_dependency_is_locked_with_hashes_within_its_minimum() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = locked()
    for spec in project["dependencies"]:
        requirement = Requirement(spec)
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} is not in requirements.lock"
        version, _ = pins[name]
        assert requirement.specifier.contains(version), (name, str(version), spec)
    for name, (_, hashes) in pins.items():
        assert hashes, f"{name} has no hash"


def test_the_ci_and_the_image_install_from_the_lock() -> None:
    for path in ("Dockerfile", ".ci/run", "dev.py"):
        text = (ROOT / path).read_text()
        assert "--require-hashes" in text and "requirements.lock" in text, path
