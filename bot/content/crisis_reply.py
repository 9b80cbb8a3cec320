"""Composes the crisis reply: short, the right numbers first, the full list one tap away.

Pure functions over the helpline book, the emergency numbers and the UI texts, so the reply
is built without touching storage and can be tested for every country and kind.

One format for a helpline line, everywhere: "• Name: call X · text Y · chat at Z (hours,
free)". The emergency line is labelled as such; a silent option ("call 999 and press 55")
is content's whole sentence, shown once with no lead-in of ours.

Who sees what
- Country unknown: the emergency numbers of the countries their Telegram language makes
  likely (Spain and Mexico for Spanish), that 112 and 911 work from most mobile phones, the
  directory, and a way to say where they are (the first button).
- A country with no lines of ours: its emergency numbers from the verified list, with what
  each is for; where nobody could confirm them, 112 and 911 and a line saying so. Then the
  directory, and that we hold no local lines yet.
- The UK without a nation: the UK-wide lines, each nation's abuse line by name, and the
  question which nation.
- Child-protection lines: in the danger reply (someone hurting a person at home may be
  hurting a child there too) and in the full list; not in the others, to keep them short.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.content.emergency import Emergency, Purpose
from bot.content.helplines import INTL, Country, Line, LineKind, entry_lines, parts_of
from bot.content.texts import Tx
from bot.matching.crisis import CrisisKind

EMERGENCY_NAME = "Emergency"  # the name content gives a line that is only its number
_T = "crisis_help"
_HEADINGS = (
    (LineKind.EMERGENCY, "heading_emergency"),
    (LineKind.CRISIS, "heading_crisis"),
    (LineKind.DOMESTIC_ABUSE, "heading_abuse"),
    (LineKind.SEXUAL_VIOLENCE, "heading_sexual"),
    (LineKind.CHILD, "heading_child"),
    (LineKind.OTHER, "heading_other"),
)


@dataclass(frozen=True)
class Book:
    """What the reply draws on: helplines by code, emergency numbers by ISO code."""

    helplines: Mapping[str, Country]
    emergency: Mapping[str, Emergency]


def _t(tx: Tx, key: str, **values: object) -> str:
    return tx(f"{_T}.{key}", **values)


def _numbers(phone: str, tx: Tx) -> str:
    # YAML trims a text's spaces, so the words come from content and the spaces from here.
    return f" {_t(tx, 'or')} ".join(phone.replace(" or ", "; ").split("; "))


def describes_numbers(line: Line) -> bool:
    """An emergency line whose name says what its numbers are for ("110 police, 112 fire
    and ambulance"): our words, shown beside "Emergency", not a service's name."""
    return line.kind == LineKind.EMERGENCY and line.name not in (EMERGENCY_NAME, line.phone)


def format_line(line: Line, tx: Tx, *, emergency: bool = False, part: str | None = None) -> str:
    """One helpline line in the one format. The emergency line is labelled "Emergency",
    whatever the service calls itself; a nation's line says which nation it serves."""
    ways: list[str] = []
    if line.phone:
        ways.append(_t(tx, "way_call", phone=_numbers(line.phone, tx)))
    if line.text:
        ways.append(_t(tx, "way_text", text=line.text))
    if line.whatsapp:
        ways.append(_t(tx, "way_whatsapp", number=line.whatsapp))
    if line.chat:
        ways.append(_t(tx, "way_chat", url=line.chat))
    if line.url and not ways:
        ways.append(line.url)
    details = [line.hours] if line.hours else []
    if line.free:
        details.append(_t(tx, "free"))
    name = f"{line.name} ({line.about})" if line.about else line.name
    if emergency:
        name = _t(tx, "emergency_label")
        if describes_numbers(line):
            details.insert(0, line.name)  # "Triple Zero", "110 police, 112 fire and ambulance"
    elif part and part not in line.name:
        name = f"{part}: {line.name}"
    out = _t(tx, "line", name=name, ways=f" {_t(tx, 'and')} ".join(ways))
    if details:
        out += f" ({', '.join(details)})"
    return out


def _helpline_emergency(book: Book, code: str) -> Line | None:
    """A country's own emergency line in the helplines (with its silent option); a part of
    a country dials its country's."""
    for line in entry_lines(book.helplines, code):
        if line.kind == LineKind.EMERGENCY:
            return line
    return None


def purpose_words(purpose: Purpose, tx: Tx) -> str:
    """What a number is for, in the person's language ("police", "fire and ambulance")."""
    return _t(tx, f"for_{purpose.name.lower()}")


def _listed_block(listed: Emergency, tx: Tx) -> list[str]:
    """A country's numbers from the emergency list: what each is for where it has several;
    112 and 911, and why, where nobody could confirm a national number."""
    ways = _t(tx, "way_call", phone=_numbers("; ".join(listed.numbers), tx))
    out = _t(tx, "line", name=_t(tx, "emergency_label"), ways=ways)
    if listed.verified and len(listed.numbers) > 1 and listed.purposes:
        described = ", ".join(f"{n} {purpose_words(s, tx)}" for n, s in listed.purposes)
        out += f" ({described})"
    lines = [out]
    if not listed.verified:
        lines.append(_t(tx, "unconfirmed"))
    elif listed.note:
        lines.append(listed.note)
    return lines


def _country_numbers(book: Book, code: str, tx: Tx) -> str | None:
    """A country's emergency numbers on one line, for the reply to someone whose country
    is not known yet: "17 police, 15 SAMU, 18 fire, 112 any emergency", "999 or 112"."""
    line = _helpline_emergency(book, code)
    if line is not None and line.phone:
        return line.name if describes_numbers(line) else _numbers(line.phone, tx)
    listed = book.emergency.get(code)
    if listed is None or not listed.verified:
        return None
    if len(listed.numbers) > 1 and listed.purposes:
        return ", ".join(f"{n} {purpose_words(s, tx)}" for n, s in listed.purposes)
    return _numbers("; ".join(listed.numbers), tx)


def _likely_block(book: Book, likely: Sequence[tuple[str, str]], tx: Tx) -> str:
    """For someone whose country is not known: the numbers where their language is spoken,
    and the two that most mobile phones dial as an emergency call anywhere."""
    found = [
        _t(tx, "region_line", country=label, numbers=numbers)
        for code, label in likely
        if (numbers := _country_numbers(book, code, tx))
    ]
    if not found:
        return _t(tx, "regions_plain")
    return "\n".join([_t(tx, "regions_lead"), *found, _t(tx, "mobile_numbers")])


def has_lines(book: Book, code: str | None) -> bool:
    """Whether we hold support lines of our own for this code (not just 911 or 112)."""
    return code is not None and code != INTL and code in book.helplines


def needs_nation(book: Book, code: str | None) -> bool:
    """A country whose parts have lines of their own, and the person has not said which."""
    return code is not None and bool(parts_of(book.helplines, code))


def _lines(book: Book, code: str, kind: LineKind) -> list[Line]:
    return [line for line in entry_lines(book.helplines, code) if line.kind == kind]


def _kind_texts(book: Book, code: str, kind: LineKind, tx: Tx, limit: int) -> list[str]:
    own = _lines(book, code, kind)
    parts = parts_of(book.helplines, code)
    if parts and kind in (LineKind.DOMESTIC_ABUSE, LineKind.SEXUAL_VIOLENCE):
        # The UK's abuse lines are the nations' own: name each rather than pick one.
        found: list[str] = []
        for part in parts:
            mine = [line for line in part.lines if line.kind == kind]
            if mine:
                found.append(format_line(mine[0], tx, part=part.name))
        if found:
            return found
    # Call lines first, then the first text-only line, so a text option is always shown
    # where the country has one.
    calls = [line for line in own if line.phone][:limit]
    has_text = any(line.text for line in calls)
    texts = [] if has_text else [line for line in own if line.text and line not in calls][:1]
    chosen = calls + texts if calls or texts else own[:limit]
    return [format_line(line, tx) for line in chosen]


def _directory(book: Book, tx: Tx) -> list[str]:
    intl = book.helplines.get(INTL)
    lines = [line for line in intl.lines if line.kind == LineKind.OTHER] if intl else []
    return [format_line(line, tx) for line in lines]


def _emergency_block(
    book: Book, code: str | None, tx: Tx, likely: Sequence[tuple[str, str]] = ()
) -> list[str]:
    if code is None:
        return [_likely_block(book, likely, tx)]
    line = _helpline_emergency(book, code)
    if line is None:
        listed = book.emergency.get(code.split("-")[0])
        if listed is None:
            return [_likely_block(book, likely, tx)]
        return _listed_block(listed, tx)
    out = [format_line(line, tx, emergency=True)]
    if line.silent_option:
        out.append(line.silent_option)
    return out


def compose_reply(
    kind: CrisisKind,
    book: Book,
    country: str | None,
    tx: Tx,
    *,
    country_label: str | None = None,
    guide_hint: bool = False,
    likely: Sequence[tuple[str, str]] = (),
    also: frozenset[CrisisKind] = frozenset(),
) -> str:
    """The crisis reply for a kind and a country (None: not known yet). `guide_hint` adds
    "if you meant how to use the bot" for a bare "help" typed, not for /sos or /help.
    `likely`: (code, name) of the countries to show when the country is not known, most
    likely first (from the person's Telegram language). `also` holds every kind found: a
    threat with a wish to die beside it gets the danger reply with the crisis line added
    (both, never the suicide reply instead)."""
    code = country if country and country != INTL else None
    local = has_lines(book, code)
    out: list[str] = []

    def block(kind_: LineKind, lead: str | None, limit: int = 1) -> None:
        found = _kind_texts(book, code, kind_, tx, limit) if code and local else []
        if found:
            if lead:
                out.append(_t(tx, lead))
            out.extend(found)

    if kind == CrisisKind.DANGER:
        out.append(_t(tx, "danger_lead"))
        out.extend(_emergency_block(book, code, tx, likely))
        block(LineKind.DOMESTIC_ABUSE, "danger_safe_to_call")
        if CrisisKind.SELF_HARM in also:
            block(LineKind.CRISIS, None)
        block(LineKind.CHILD, "danger_child")
        out.append(_t(tx, "call_log"))
    elif kind == CrisisKind.SELF_HARM:
        out.append(_t(tx, "self_harm_lead"))
        block(LineKind.CRISIS, None, limit=1)
        out.append(_t(tx, "self_harm_soon"))
        out.extend(_emergency_block(book, code, tx, likely))
    elif kind == CrisisKind.SEXUAL_VIOLENCE:
        out.append(_t(tx, "sexual_lead"))
        if code and local and _kind_texts(book, code, LineKind.SEXUAL_VIOLENCE, tx, 1):
            block(LineKind.SEXUAL_VIOLENCE, None)
        else:
            block(LineKind.DOMESTIC_ABUSE, None)
        out.append(_t(tx, "sexual_emergency"))
        out.extend(_emergency_block(book, code, tx, likely))
    else:
        out.append(_t(tx, "general_lead"))
        out.extend(_emergency_block(book, code, tx, likely))
        block(LineKind.CRISIS, None, limit=1)
        block(LineKind.DOMESTIC_ABUSE, None)
        if guide_hint:
            out.append(_t(tx, "general_guide"))
    if not local:
        out.extend(_directory(book, tx))
        if code is None:
            out.append(_t(tx, "country_unknown"))
        else:  # set, but we hold no lines for it yet: say so, don't ask again
            out.append(_t(tx, "no_local_lines", country=country_label or code))
    elif needs_nation(book, code):
        out.append(_t(tx, "ask_nation"))
    out.append(_t(tx, "stay"))
    return "\n\n".join(out)


def _full_lines(book: Book, code: str, kind: LineKind, tx: Tx) -> list[str]:
    found = [format_line(line, tx) for line in _lines(book, code, kind)]
    for part in parts_of(book.helplines, code):
        found += [format_line(line, tx, part=part.name) for line in part.lines if line.kind == kind]
    return found


def compose_full_list(
    book: Book, country: str | None, tx: Tx, likely: Sequence[tuple[str, str]] = ()
) -> str:
    """Every line we hold for the country, by kind, then the directory for elsewhere."""
    code = country if country and country != INTL else None
    out: list[str] = []
    if code is None:
        out.append(_t(tx, "heading_emergency") + "\n" + _likely_block(book, likely, tx))
    for kind, heading in _HEADINGS:
        if code is None:
            break
        if kind == LineKind.EMERGENCY:
            chosen = _emergency_block(book, code, tx)
        elif has_lines(book, code):
            chosen = _full_lines(book, code, kind, tx)
        else:
            chosen = []
        if chosen:
            out.append(_t(tx, heading) + "\n" + "\n".join(chosen))
    directory = _directory(book, tx)
    if directory:
        out.append(_t(tx, "heading_elsewhere") + "\n" + "\n".join(directory))
    out.append(_t(tx, "call_log"))
    return "\n\n".join(out)


def grounding_steps(tx: Tx) -> Sequence[str]:
    """The grounding exercise, one message per step (crisis_help.ground_1, _2, …)."""
    steps: list[str] = []
    while True:
        try:
            steps.append(tx(f"{_T}.ground_{len(steps) + 1}"))
        except KeyError:
            return steps
