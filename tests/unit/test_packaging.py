"""The installed package must hold every module and content file (the Docker image runs the
installed copy): pyproject's explicit package list is checked against the folders on disk."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def declared() -> tuple[set[str], dict[str, list[str]]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    setuptools = config["tool"]["setuptools"]
    return set(setuptools["packages"]), setuptools["package-data"]


def test_every_code_folder_is_a_declared_package() -> None:
    packages, _ = declared()
    on_disk = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "bot").rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert on_disk <= packages, on_disk - packages


def test_every_content_file_is_package_data() -> None:
    packages, data = declared()
    content = ROOT / "content"
    for file in content.rglob("*.yaml"):
        folder = file.parent.relative_to(content).parts
        package = ".".join(("bot_content", *folder))
        assert package in packages, package
        assert "*.yaml" in data.get(package, []), package
