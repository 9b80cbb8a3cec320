"""Fixtures the e2e files share (their steps are in tests/helpers/)."""

from tests.helpers.crisis_model import model_bot  # noqa: F401  (the fixture, by its name)
from tests.helpers.postgres_canaries import pg_bot  # noqa: F401  (the fixture, by its name)
