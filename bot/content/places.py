"""Which country someone means: a name typed in any of the seven languages, and the short
list of countries the crisis reply offers.

Country names come from CLDR through Babel ("Allemagne", "Alemanha", "Duitsland"), the
parts of a country with lines of their own (Scotland…) name themselves in
content/helplines.yaml, and content/texts/core.yaml's `country_aliases` adds what people
say that no standard holds ("UK", "Holland"). Pure functions over those, cached.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache

from babel import Locale
from babel.languages import get_official_languages

from bot.content.helplines import Country
from bot.core.languages import LANGUAGES
from bot.geo.tables import country_names, fold

# Leading words people put before a name ("the Netherlands", "la France", "in Scotland"):
# a grammar fact, not country data, so it stays with the matching that needs it.
# fmt: off
_LEADING = frozenset((
    "i", "im", "am", "live", "living", "from", "in", "at", "the", "a", "an",  # en
    "la", "le", "les", "l", "el", "los", "las", "lo", "il", "en", "je", "suis",  # es fr it
    "der", "die", "das", "den", "ich", "bin", "wohne",  # de
    "de", "het", "een", "woon",  # nl
    "o", "os", "as", "em", "no", "na", "sou", "moro", "vivo", "vivi", "sono",  # pt it
))
# fmt: on


@cache
def _babel_names(language: str) -> Mapping[str, str]:
    return Locale.parse(language).territories


def english_name(code: str, book: Mapping[str, Country]) -> str:
    """Our helplines' name ("United Kingdom", "Scotland"), else CLDR's, else IANA's."""
    entry = book.get(code)
    if entry is not None:
        return entry.name
    return _babel_names("en").get(code) or country_names().get(code, code)


def name_in(code: str, book: Mapping[str, Country], language: str) -> str:
    """A country (or a part with lines of its own) named in `language`: CLDR's name for a
    country ("Alemania"), the helplines' own name for a part ("Escocia"); English otherwise."""
    if language == "en":
        return english_name(code, book)
    entry = book.get(code)
    if entry is not None and entry.part_of:
        return entry.names.get(language) or entry.name
    return _babel_names(language).get(code) or english_name(code, book)


def _index(book: Mapping[str, Country], aliases: Mapping[str, str]) -> dict[str, str]:
    iso = country_names()
    index: dict[str, str] = {}
    # Parts first: "Scotland" means Scotland even where an alias once said GB.
    for code, entry in book.items():
        if entry.part_of:
            for name in (entry.name, *entry.names.values()):
                index.setdefault(fold(name), code)
    for alias, code in aliases.items():
        index.setdefault(fold(alias), code)
    for code, entry in book.items():
        if code in iso:
            index.setdefault(fold(entry.name), code)
    for language in LANGUAGES:
        for code, name in _babel_names(language).items():
            if code in iso:
                index.setdefault(fold(name), code)
    for code, name in iso.items():
        index.setdefault(fold(name), code)
    return index


class Places:
    """Built once per content load: the name index is a few thousand entries."""

    def __init__(self, book: Mapping[str, Country], aliases: Mapping[str, str]) -> None:
        self._book = book
        self._index = _index(book, aliases)

    def find(self, text: str) -> str | None:
        """The code (ISO 3166-1, or ISO 3166-2 for a part like GB-SCT) someone typed, or
        None. "I'm in Scotland" and "la France" work; a bare two-letter code counts only in
        capitals ("DE", not "de", which is also a word)."""
        stripped = text.strip()
        if len(stripped) == 2 and stripped.isupper() and stripped in country_names():
            return stripped
        words = fold(stripped).split()
        if not words or len(words) > 8:
            return None
        # Longest tail first: "united states" before "states".
        for start in range(len(words)):
            if start and words[start - 1] not in _LEADING:
                break  # only drop leading filler, never a word of the name
            tail = " ".join(words[start:])
            found = self._index.get(tail)
            if found is not None:
                return found
        return None

    def shortlist(self, featured: Sequence[str], language_code: str | None) -> list[str]:
        """`featured`, with the countries that speak the person's Telegram language first
        (and the country in its region tag, "pt-BR", before those). An order, never a
        choice: every featured country stays in the list."""
        if not language_code:
            return list(featured)
        language, _, region = language_code.replace("_", "-").partition("-")
        language, region = language.lower(), region.upper()

        def rank(code: str) -> int:
            if region and code == region:
                return 0
            if language in get_official_languages(code, de_facto=True):
                return 1
            return 2

        return sorted(featured, key=rank)  # stable: featured order within a rank
