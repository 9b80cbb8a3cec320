"""Composes the crisis reply: short, one or two numbers first, the full list one tap away.

Pure functions over the helpline book and the UI texts, so the reply can be built without
touching storage, and tested line by line.
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.services.crisis import CrisisKind
from bot.services.helplines import Country, Line, lines_for
from bot.texts import Tx

INTERNATIONAL = "INTL"


def format_line(line: Line, tx: Tx) -> str:
    # "112 (works across the EU…)" already says what to dial: "Call 112 (…)", not "112: call 112".
    if line.phone and line.name.startswith(line.phone):
        out = "• " + tx("crisis.call_named", name=line.name)
    elif line.phone:
        out = f"• {line.name}: " + tx("crisis.call", phone=line.phone)
    else:
        out = f"• {line.name}"
    if line.text:
        out += " " + tx("crisis.text", text=line.text)
    if line.url and not line.phone and not line.text:
        out += f": {line.url}"
    if line.hours:
        out += f" ({line.hours})"
    return out


def _first(lines: list[Line], kind: str) -> Line | None:
    return next((line for line in lines if line.kind == kind), None)


def known_country(book: Mapping[str, Country], country: str | None) -> bool:
    return country is not None and country != INTERNATIONAL and country in book


def compose_reply(
    kind: CrisisKind,
    book: Mapping[str, Country],
    country: str | None,
    tx: Tx,
    *,
    country_label: str | None = None,
) -> str:
    lines = lines_for(book, country, ["emergency", "crisis", "domestic_abuse", "other"])
    emergency = _first(lines, "emergency")
    crisis = _first(lines, "crisis")
    abuse = _first(lines, "domestic_abuse")
    out: list[str] = []
    if kind == CrisisKind.DANGER:
        out.append(tx("crisis.danger_lead"))
        if emergency:
            out.append(format_line(emergency, tx))
            if emergency.silent_option:
                out.append(tx("crisis.silent", how=emergency.silent_option))
        if abuse:
            out.append(tx("crisis.if_safe_to_call"))
            out.append(format_line(abuse, tx))
        out.append(tx("crisis.call_log"))
    elif kind == CrisisKind.SELF_HARM:
        out.append(tx("crisis.self_harm_lead"))
        if crisis:
            out.append(format_line(crisis, tx))
        if emergency:
            out.append(tx("crisis.self_harm_emergency"))
            out.append(format_line(emergency, tx))
        out.append(tx("crisis.self_harm_close"))
    else:
        out.append(tx("crisis.general_lead"))
        for line in (emergency, crisis, abuse):
            if line:
                out.append(format_line(line, tx))
        out.append(tx("crisis.general_guide"))
    if not known_country(book, country):
        directory = [line for line in lines if line.kind == "other"]
        out.extend(format_line(line, tx) for line in directory)
        if country is None:
            out.append(tx("crisis.country_unknown"))
        else:  # set, but we hold no lines for it yet: say so, don't ask again
            out.append(tx("crisis.no_local_lines", country=country_label or country))
    out.append(tx("crisis.stay"))
    return "\n\n".join(out)


def compose_full_list(book: Mapping[str, Country], country: str | None, tx: Tx) -> str:
    lines = lines_for(book, country, ["emergency", "crisis", "domestic_abuse", "other"])
    headings = {
        "emergency": tx("crisis.heading_emergency"),
        "crisis": tx("crisis.heading_crisis"),
        "domestic_abuse": tx("crisis.heading_abuse"),
        "other": tx("crisis.heading_other"),
    }
    out: list[str] = []
    for kind, heading in headings.items():
        chosen = [format_line(line, tx) for line in lines if line.kind == kind]
        if chosen:
            out.append(heading + "\n" + "\n".join(chosen))
    if known_country(book, country):
        intl = [format_line(line, tx) for line in book[INTERNATIONAL].lines if line.kind == "other"]
        if intl:
            out.append(tx("crisis.heading_elsewhere") + "\n" + "\n".join(intl))
    out.append(tx("crisis.call_log"))
    return "\n\n".join(out)
