"""Onboarding's questions and the /settings menu: text and buttons from a profile."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.content.texts import Tx
from bot.core.buttons import Button, Rows
from bot.features.checkins.prefs import ALL_DAYS, CheckinPrefs
from bot.features.setup import callbacks as cb
from bot.features.setup.flow import DAY_KEYS, Question
from bot.features.setup.state import SETTINGS
from bot.geo import lookup as geo
from bot.geo.lookup import Zone
from bot.people.profile import Profile

SUGGESTED_TIMES = ("07:30", "09:00", "12:30", "18:00", "21:00")


def country_buttons(tx: Tx, featured: Sequence[tuple[str, str]]) -> Rows:
    """`featured`: (code, name as shown), three to a row, then "skip"."""
    flat: list[Button] = [(name, cb.CountryButton(code).encode()) for code, name in featured]
    rows = [flat[i : i + 3] for i in range(0, len(flat), 3)]
    return [*rows, [(tx("setup.btn_skip_country"), cb.CountryButton("skip").encode())]]


def zone_buttons(zones: Sequence[Zone], country: str | None = None, language: str = "en") -> Rows:
    """One button a clock, labelled in plain words ("Pacific: Los Angeles, Seattle"), in
    the person's language."""
    return [
        [(geo.zone_label(z.name, language, country), cb.ZoneButton(z.name).encode())] for z in zones
    ]


def time_buttons(tx: Tx, *, off: str | None = None) -> Rows:
    """`off`: the label of the no-check-ins button ("Not now" in onboarding)."""
    times: list[Button] = [(t, cb.TimeButton(t).encode()) for t in SUGGESTED_TIMES]
    label = off or tx("setup.btn_no_daily")
    return [times[:3], times[3:], [(label, cb.TimeButton("off").encode())]]


def question_view(
    tx: Tx, q: Question, country_name: Callable[[str], str], language: str
) -> tuple[str, Rows]:
    """An onboarding or settings step's question (not the language's: `language_view`).
    `country_name`: a code's name as shown; `language`: the zone labels' language."""
    if q.step == "country":
        rows = country_buttons(tx, [(c, country_name(c)) for c in q.countries])
        return tx("setup.ask_country"), rows
    if q.step == "timezone":
        rows = zone_buttons(q.zones, q.country, language)
        if q.named and q.country is not None:
            return tx("setup.ask_timezone_country", country=country_name(q.country)), rows
        key = "setup.ask_timezone_choice" if q.zones else "setup.ask_timezone_typed"
        return tx(key), rows
    if q.step == "time":
        if q.mode == SETTINGS:
            # They chose to change the time: not "would you like check-ins?" again.
            off = tx("setup.btn_daily_off_settings")
            return tx("setup.ask_time_settings"), time_buttons(tx, off=off)
        return tx("setup.ask_time"), time_buttons(tx)
    return tx("setup.ask_safety"), safety_buttons(tx)


def safety_buttons(tx: Tx) -> Rows:
    return [
        [
            (tx("setup.btn_shared_yes"), cb.SafetyButton("yes").encode()),
            (tx("setup.btn_shared_no"), cb.SafetyButton("no").encode()),
        ]
    ]


def discreet_buttons(tx: Tx) -> Rows:
    return [
        [(tx("setup.btn_discreet_on"), cb.SafetyButton("discreet").encode())],
        [(tx("setup.btn_discreet_later"), cb.SafetyButton("later").encode())],
    ]


def days_label(tx: Tx, days: Sequence[int]) -> str:
    if tuple(sorted(days)) == ALL_DAYS:
        return tx("days.every_day")
    if not days:
        return tx("days.no_days")
    return ", ".join(tx(f"days.{DAY_KEYS[d]}") for d in sorted(days))


def days_view(tx: Tx, chosen: Sequence[int]) -> tuple[str, Rows]:
    flat: list[Button] = [
        (("✓ " if i in chosen else "") + tx(f"days.{key}"), cb.DayButton(key).encode())
        for i, key in enumerate(DAY_KEYS)
    ]
    return tx("days.choose"), [
        flat[:4],
        flat[4:],
        [(tx("days.btn_done"), cb.DayButton("done").encode())],
    ]


def language_view(tx: Tx, choices: Sequence[tuple[str, str]]) -> tuple[str, Rows]:
    """`choices`: (code, the language's own name), two to a row."""
    flat: list[Button] = [(name, cb.LanguageButton(code).encode()) for code, name in choices]
    return tx("language.ask"), [flat[i : i + 2] for i in range(0, len(flat), 2)]


def settings_view(
    tx: Tx,
    p: Profile,
    country: str | None,
    *,
    worksheet_waiting: bool,
    extra: Rows,
    lead: str = "",
    language: str | None = None,
    time_shown: str | None = None,
    zone_shown: str | None = None,
) -> tuple[str, Rows]:
    """`country`: its name as shown; `extra`: rows other features add (daily: skip today;
    discretion); `lead`: what just changed, on top; `language`: the current language's own
    name, when there is a choice of languages (the row needs no words: "🌐 Español" reads
    in any language); `time_shown`, `zone_shown`: the check-in time and the time zone as
    the person's language writes them.
    Each toggle has a line saying what it does, and its button says what a tap will do."""
    d = p.part(CheckinPrefs)
    daily_on = d.daily_enabled and d.daily_time is not None
    if not daily_on:
        daily = tx("settings.daily_off")
    else:
        shown = time_shown or d.daily_time
        daily = tx("settings.daily_on", time=shown, days=days_label(tx, d.daily_days))
        if d.paused:
            daily += " " + tx("settings.paused_suffix")

    def on_off(value: bool) -> str:
        return tx("settings.on") if value else tx("settings.off")

    zone = zone_shown or (geo.zone_label(p.timezone, country=p.country) if p.timezone else None)
    text = tx(
        "settings.summary",
        country=country or tx("settings.not_set"),
        timezone=zone or tx("settings.not_set"),
        daily=daily,
        neutral=on_off(p.neutral_wording),
        silent=on_off(p.silent),
        discreet=on_off(p.discreet),
    )
    if lead:
        text = f"{lead}\n\n{text}"
    if worksheet_waiting:
        text += "\n\n" + tx("settings.worksheet_waiting")

    def item(key: str, value: str) -> Button:
        return (tx(key), cb.SettingsButton(value).encode())

    def flip(name: str, now_on: bool) -> Button:
        # The button says which value it sets, so a double tap or a stale menu cannot
        # flip a setting back; its label says what the tap will do.
        key = f"settings.btn_{name}_{'off' if now_on else 'on'}"
        return item(key, f"{name}:{'off' if now_on else 'on'}")

    if daily_on:
        daily_rows: Rows = [
            [item("settings.btn_time", "time"), item("settings.btn_days", "days")],
            [flip("pause", d.paused)],
        ]
    else:
        daily_rows = [[item("settings.btn_daily_start", "time")]]
    return text, [
        [item("settings.btn_country", "country"), item("settings.btn_tz", "tz")],
        *daily_rows,
        [flip("neutral", p.neutral_wording)],
        [flip("silent", p.silent)],
        [flip("discreet", p.discreet)],
        *extra,
        *([[("🌐 " + language, cb.SettingsButton("language").encode())]] if language else []),
        [item("settings.btn_forget", "forget"), item("settings.btn_done", "close")],
    ]
