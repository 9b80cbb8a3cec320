"""Onboarding's and /settings' steps, built from the shared services at install: the one
place in this package that constructs a service."""

from __future__ import annotations

from bot.features.setup.flow import SetupFlow
from bot.framework.context import Services


def build(services: Services) -> SetupFlow:
    content = services.content
    return SetupFlow(
        services.people,
        services.clock,
        languages=content.locales.codes,
        featured=content.texts.data["featured_countries"],
        aliases=content.texts.data["country_aliases"],
        find_place=content.places.find,
    )
