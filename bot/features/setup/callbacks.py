"""Onboarding's and /settings' buttons: one choice each (bot/core/callbacks.py)."""

from __future__ import annotations

from bot.core.callbacks import Choice


class CountryButton(Choice, prefix="cty", pattern=r"[A-Z]{2}|skip"):
    pass


class ZoneButton(Choice, prefix="tz"):
    pass


class TimeButton(Choice, prefix="time", pattern=r"[0-9]{1,2}:[0-9]{2}|off"):
    pass


class SafetyButton(Choice, prefix="safe", pattern=r"yes|no|discreet|later"):
    pass


class LanguageButton(Choice, prefix="lang", pattern=r"[a-z]{2,3}"):
    """`lang:<code>`: the language chosen (one of content/locales/, or en)."""


class SettingsButton(Choice, prefix="set", pattern=r"[a-z]{1,12}(?::(?:on|off))?"):
    """`set:<item>` or `set:<toggle>:on|off` (the value it sets, so a double tap or a
    stale menu cannot flip a setting back)."""


class DayButton(Choice, prefix="day", pattern=r"mon|tue|wed|thu|fri|sat|sun|done"):
    pass
