"""docs/architecture.md is the map a newcomer reads first: its handler groups, its feature
table, its offers table and its services table are compared here with what bot/app.py lists
and bot/wiring.py builds, so the map cannot drift from the code (it had duplicated group
rows and a feature list missing two)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from bot.framework.context import Services
from tests.helpers.bot import BotUnderTest

DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


def section(title: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def first_cells(text: str) -> list[str]:
    """The first cell of every table row under the header (the header and rule skipped)."""
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    return [row.split("|")[1].strip() for row in rows[1:] if not row.startswith("| ---")]


def test_the_groups_table_is_the_groups_app_py_wires(bot: BotUnderTest) -> None:
    documented = [int(cell) for cell in first_cells(section("Handler groups"))]
    assert bot.runtime is not None and bot.runtime.app is not None
    assert documented == sorted(bot.runtime.app.handlers)  # each once, lowest first


def test_the_feature_table_is_what_app_py_installs_in_order(bot: BotUnderTest) -> None:
    table = section("Features")
    documented = [cell.strip("`") for cell in first_cells(table) if cell.endswith("Feature`")]
    assert bot.runtime is not None
    assert documented == [type(feature).__name__ for feature in bot.runtime.features]
    for row in table.splitlines():  # each feature's package is where its class lives
        found = re.match(r"\| `(\w+Feature)` \| `(bot/features/\w+/)` \|", row)
        if found:
            feature = next(f for f in bot.runtime.features if type(f).__name__ == found[1])
            package = type(feature).__module__.replace(".", "/")
            assert package.startswith(found[2]), (found[1], package)


def test_the_offers_table_is_what_the_features_offer(bot: BotUnderTest) -> None:
    table = section("Features").split("### Offers")[1].split("###")[0]
    documented = [cell.strip("`") for cell in first_cells(table)]
    assert bot.runtime is not None and bot.runtime.app is not None
    assert documented == bot.runtime.app.bot_data.offers.names()


def test_the_services_table_is_services() -> None:
    table = section("Features").split("The services (`Services`")[1]
    documented = [cell.strip("`") for cell in first_cells(table)]
    assert documented == [field.name for field in dataclasses.fields(Services)]
