"""Every error class the bot defines shares one base (bot/core/errors.py), so "Steady
refused" can be told from a bug anywhere it is caught."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

from bot.core.errors import SteadyError

BOT = Path(__file__).resolve().parents[3] / "bot"


def error_classes() -> list[type[BaseException]]:
    found = []
    for path in sorted(BOT.rglob("*.py")):
        parts = path.relative_to(BOT.parent).with_suffix("").parts
        if "emulator" in parts or parts[-1] == "__main__":  # the emulator is test machinery
            continue
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        module = importlib.import_module(name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__ == name:
                found.append(value)
    return found


def test_every_error_of_the_bot_is_a_steady_error() -> None:
    classes = error_classes()
    assert len(classes) >= 13  # the ones there were when the base came; more may follow
    assert [c.__qualname__ for c in classes if not issubclass(c, SteadyError)] == []


def test_the_check_sees_an_error_without_the_base() -> None:
    class Stray(ValueError):
        pass

    assert not issubclass(Stray, SteadyError)
    assert issubclass(importlib.import_module("bot.storage.keystore").RotationError, SteadyError)
