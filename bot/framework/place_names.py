"""How a country is named to a person."""

from __future__ import annotations

from collections.abc import Mapping

from bot.content.helplines import Country


def country_label(helplines: Mapping[str, Country], names: Mapping[str, str], code: str) -> str:
    """Our helplines' name for a country when we have one ("United Kingdom"), else the
    time-zone database's (`names`), else the code itself."""
    country = helplines.get(code)
    return country.name if country is not None else names.get(code, code)
