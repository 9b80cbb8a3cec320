"""The panic-word service, built from the shared ones at install: the one place in this
package that constructs a store and a service."""

from __future__ import annotations

from bot.features.discretion.service import DiscretionService
from bot.framework.context import Services
from bot.storage.discretion import DiscretionStore


def build(services: Services) -> DiscretionService:
    people = services.people
    discretion = DiscretionService(
        people,
        DiscretionStore(services.db),
        services.cover,
        services.content.decoys,
        services.clock,
    )
    # A panic word set or changed on another replica is armed here too (change notices).
    people.refreshed.append(discretion.remember)
    return discretion
