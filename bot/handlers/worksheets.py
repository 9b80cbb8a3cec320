"""Placeholder: the worksheets feature plugs in here (see bot/handlers/registry.py)."""

from __future__ import annotations

from bot.app import Features, StApp


def connect(app: StApp, features: Features) -> None:
    """Add this feature's commands, routes and jobs."""
