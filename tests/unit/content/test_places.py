"""Country names typed in any of the seven languages, and the crisis reply's short list."""

from __future__ import annotations

import pytest

from bot.content.places import english_name
from tests.helpers.bot import shared_content

CONTENT = shared_content()
PLACES = CONTENT.places

NAMES = {
    "DE": ("Germany", "Alemania", "Allemagne", "Deutschland", "Germania", "Duitsland", "Alemanha"),
    "GB": ("United Kingdom", "Reino Unido", "Royaume-Uni", "Vereinigtes Königreich",
           "Regno Unito", "Verenigd Koninkrijk", "Reino Unido"),
    "US": ("United States", "Estados Unidos", "États-Unis", "Vereinigte Staaten",
           "Stati Uniti", "Verenigde Staten", "Estados Unidos"),
    "MX": ("Mexico", "México", "Mexique", "Mexiko", "Messico", "Mexico", "México"),
    "BR": ("Brazil", "Brasil", "Brésil", "Brasilien", "Brasile", "Brazilië", "Brasil"),
    "CH": ("Switzerland", "Suiza", "Suisse", "Schweiz", "Svizzera", "Zwitserland", "Suíça"),
    "JP": ("Japan", "Japón", "Japon", "Japan", "Giappone", "Japan", "Japão"),
    "ZA": ("South Africa", "Sudáfrica", "Afrique du Sud", "Südafrika", "Sudafrica",
           "Zuid-Afrika", "África do Sul"),
    "GB-SCT": ("Scotland", "Escocia", "Écosse", "Schottland", "Scozia", "Schotland", "Escócia"),
    "GB-WLS": ("Wales", "Gales", "Pays de Galles", "Wales", "Galles", "Wales", "País de Gales"),
    "GB-NIR": ("Northern Ireland", "Irlanda del Norte", "Irlande du Nord", "Nordirland",
               "Irlanda del Nord", "Noord-Ierland", "Irlanda do Norte"),
    "GB-ENG": ("England", "Inglaterra", "Angleterre", "England", "Inghilterra", "Engeland",
               "Inglaterra"),
}  # fmt: skip


@pytest.mark.parametrize("code", sorted(NAMES))
def test_names_in_the_seven_languages(code: str) -> None:
    for name in NAMES[code]:
        assert PLACES.find(name) == code, name
        assert PLACES.find(name.upper()) == code, name
        assert PLACES.find(f"  {name.lower()}!") == code, name


def test_every_iso_country_is_found_by_its_english_and_spanish_names() -> None:
    for code in CONTENT.emergency:
        assert PLACES.find(english_name(code, CONTENT.helplines)) == code, code


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("I live in Scotland", "GB-SCT"),
        ("in the uk", "GB"),
        ("the Netherlands", "NL"),
        ("la France", "FR"),
        ("Ich wohne in Österreich", "AT"),
        ("je suis en Belgique", "BE"),
        ("UK", "GB"),
        ("USA", "US"),
        ("DE", "DE"),
    ],
)
def test_what_people_type_around_a_name(text: str, code: str) -> None:
    assert PLACES.find(text) == code


@pytest.mark.parametrize("text", ["", "it", "de", "Atlantis", "help me", "the", "my wife is kind"])
def test_not_a_country(text: str) -> None:
    assert PLACES.find(text) is None


def test_shortlist_orders_by_language_but_never_drops_a_country() -> None:
    featured = CONTENT.texts.data["featured_countries"]
    for language in (None, "en", "es", "pt-BR", "de", "fr", "it", "nl", "xx"):
        order = PLACES.shortlist(featured, language)
        assert sorted(order) == sorted(featured), language
    assert PLACES.shortlist(featured, "pt-BR")[:2] == ["BR", "PT"]
    assert set(PLACES.shortlist(featured, "es")[:3]) == {"ES", "MX", "AR"}
    assert PLACES.shortlist(featured, "de")[0] == "DE"
    assert PLACES.shortlist(featured, None) == featured


def test_the_countries_a_telegram_language_points_to() -> None:
    featured = CONTENT.texts.data["featured_countries"]
    assert PLACES.speaking(featured, "es") == ["ES", "MX", "AR"]
    assert PLACES.speaking(featured, "fr") == ["FR", "CA", "BE", "CH"]  # France first
    assert PLACES.speaking(featured, "pt-br") == ["BR", "PT"]
    assert PLACES.speaking(featured, "pt-PT") == ["PT", "BR"]  # the region tag first
    assert PLACES.speaking(featured, "nl")[:2] == ["NL", "BE"]
    assert "US" in PLACES.speaking(featured, "en") and "DE" not in PLACES.speaking(featured, "en")
    assert PLACES.speaking(featured, None) == []
    assert PLACES.speaking(featured, "xx") == []  # a language no featured country speaks
