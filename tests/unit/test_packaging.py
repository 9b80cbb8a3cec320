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


def test_the_pdf_fonts_and_their_licence_are_package_data() -> None:
    packages, data = declared()
    assert "bot.fonts" in packages  # a data folder, still named, or setuptools warns
    fonts = ROOT / "bot" / "fonts"
    shipped = {p.name for p in fonts.iterdir()}
    assert "LICENSE.txt" in shipped
    assert any(name.endswith(".otf") for name in shipped)
    for name in shipped:
        assert any(Path(name).match(pattern) for pattern in data["bot.fonts"]), name


def test_every_font_the_export_uses_is_shipped() -> None:
    from bot.features.export import pdf_text  # noqa: PLC0415

    for name in (f"{pdf_text.FONT}-Regular.ttf", "NotoSans-Bold.ttf", *pdf_text.SCRIPT_FONTS):
        assert pdf_text.font_path(name).is_file(), name


def test_the_fonts_stay_a_few_megabytes() -> None:
    # Subsets (tools/subset_fonts.py), not whole faces: the full CJK face alone is 19 MB.
    total = sum(p.stat().st_size for p in (ROOT / "bot" / "fonts").iterdir())
    assert total < 7 * 2**20, total
