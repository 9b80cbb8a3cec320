"""Writes content/emergency_numbers.yaml from research files (issue 21's format: one entry
per country with call, describe, source, quote, verified, verdict, why), keeping what each
researcher found and saying honestly what nobody could confirm.

    .venv/bin/python tools/emergency_fold.py RESEARCH.yaml [RESEARCH.yaml ...]

A country no file confirms becomes `verified: "no"` (112 and 911, with the line that says
so), its lead kept in `review`. Entries already in the file that no research file names are
kept as they are, so one country can be re-checked alone (docs/helplines.md, Re-checking).
What each number is for (`describe`) is read from the researcher's words; an entry whose
words it cannot read shows its numbers alone and is listed on stderr, to be described by
hand in DESCRIBE below.
"""

from __future__ import annotations

import datetime
import re
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
FILE = ROOT / "content" / "emergency_numbers.yaml"
MOBILE = "112; 911"
SPEC = "https://eena.org/blog/is-112-a-valid-emergency-number-in-america"
RESEARCHED = datetime.date(2026, 12, 1)

# Where the independent second pass and the first disagree, the first stands unless named
# here, with why (docs/helplines.md, "Second pass").
PREFER_SECOND = {
    "RS": "both passes read the same page (192, 193, 194); no page confirms a working 112",
    "BB": "the hospital's own A&E page gives ambulance 511 beside police 211 and fire 311",
    "TT": "police, then ambulance, then fire: 811 before 990",
    "IQ": "the unified 911 replaced the separate numbers in January 2025",
    "DZ": "1055, the gendarmerie outside the cities, is of more use than a second police line",
}
# Entries no research file holds, written from a page a researcher read for another code.
MANUAL: dict[str, dict[str, Any]] = {
    "NO": {
        "call": "112; 113; 110",
        "describe": {"112": "police", "113": "ambulance", "110": "fire"},
        "source": "https://www.viken-nettskole.no/lessons/varsling-copy/",
        "checked": RESEARCHED,
        "verified": "yes",
        "review": (
            "Not in the europe research file. Numbers and page from the Svalbard (SJ) entry, "
            'whose page is about Norway: "Fire Department 110 ... in Norway this is the '
            'emergency number for the police [112] ... Medical emergency telephone 113". Also: '
            "https://planetnorway.com/emergency-services/ (Police 112, Fire 110, Ambulance 113)."
        ),
    },
}

# What a number is for where the researcher's words do not say it plainly.
ANY = "any emergency"
DESCRIBE: dict[str, dict[str, str]] = {
    "AM": {"112": ANY, "911": ANY},  # "112 police, 911 rescue": a single 112 is coming
    "BQ": {"911": ANY, "112": ANY},
    "ID": {"112": ANY, "110": "police", "119": "ambulance"},
    "LS": {"123": "police", "1112": "police", "121": "ambulance"},
    "MU": {"999": "police", "112": "police"},
    "MW": {"997": "police", "990": "police"},
    "SN": {"17": "police", "18": "fire", "123": "police"},
    "LA": {"1191": "police", "195": "ambulance", "1190": "fire"},
    "TT": {"999": "police", "811": "ambulance", "990": "fire and ambulance"},
    "TZ": {"112": "police", "111": "police", "114": "fire"},
    "UG": {"999": "police", "112": "police"},
    "ZA": {"10111": "police", "10177": "fire and ambulance", "112": ANY},
    "ZW": {"112": "police", "911": "police"},
    "CF": {"117": "police", "1212": "ambulance", "118": "fire"},
    "PS": {"100": "police", "101": "ambulance", "102": "fire"},  # 102 civil defence
    "BS": {"919": ANY, "911": ANY},
    "BZ": {"911": ANY, "90": ANY},
    "GL": {"112": ANY, "701448": "police"},
    "IE": {"999": ANY, "112": ANY},
    "JM": {"119": "police", "110": "fire and ambulance", "911": ANY},
    "KE": {"999": ANY, "112": ANY, "911": ANY},
    "LR": {"911": "police", "0770800911": "police"},
    "MY": {"999": ANY, "112": ANY},
    "VG": {"999": ANY, "911": ANY},
}
UNREAD: list[str] = []

_ANY = re.compile(
    r"any emergency|all emergencies|every emergency|single|unified|general emergency|"
    r"national emergency|european|integrated|all services|reach|police, (fire|ambulance)",
    re.IGNORECASE,
)
_EMERGENCY = re.compile(r"emergenc", re.IGNORECASE)
_SERVICES = {
    "police": re.compile(r"police|gendarm|carabiner|garda|guardia|policía|polizia", re.I),
    "ambulance": re.compile(
        r"ambulance|medical|samu|ekab|magen david|hospital|health|rescue service", re.I
    ),
    "fire": re.compile(r"fire|bomberos|pompier", re.I),
}


def _segment(text: str, number: str, numbers: list[str]) -> str | None:
    match = re.search(rf"(?<![0-9]){re.escape(number)}(?![0-9])", text)
    if match is None:
        return None
    rest = text[match.end() :]
    cut = len(rest)
    for stop in (";", "\n"):
        if stop in rest:
            cut = min(cut, rest.index(stop))
    # Up to the next number of any kind ("108 ambulance, 101 fire": 108 is the ambulance).
    for found in re.finditer(r"(?<![0-9])[0-9]{2,}(?![0-9])", rest):
        if found.group(0) != number:
            cut = min(cut, found.start())
            break
    return rest[:cut]


def _service(segment: str) -> str | None:
    if _ANY.search(segment):
        return "any emergency"
    found = [name for name, pattern in _SERVICES.items() if pattern.search(segment)]
    if len(found) == 3 or (not found and _EMERGENCY.search(segment)):
        return "any emergency"
    if found == ["police"]:
        return "police"
    if found == ["ambulance"]:
        return "ambulance"
    if found == ["fire"]:
        return "fire"
    if found == ["police", "ambulance"]:
        return "police and ambulance"
    if found == ["police", "fire"]:
        return "police and fire"
    if found == ["ambulance", "fire"]:
        return "fire and ambulance"
    return None


def describe(code: str, call: str, text: str) -> dict[str, str] | None:
    numbers = call.split("; ")
    if len(numbers) < 2:
        return None
    if code in DESCRIBE and set(DESCRIBE[code]) == set(numbers):
        return DESCRIBE[code]
    out: dict[str, str] = {}
    for number in numbers:
        segment = _segment(text, number, numbers)
        service = _service(segment) if segment is not None else None
        if service is None:
            UNREAD.append(f"{code}: say what {number} is for in DESCRIBE ({text!r})")
            return None
        out[number] = service
    return out


def _sentence(text: object) -> str | None:
    if not text:
        return None
    words = str(text).strip()
    return words if words.endswith((".", "!", "?")) else words + "."


def _one_line(*parts: object) -> str:
    return " ".join(str(p).strip() for p in parts if p and str(p).strip()).replace("\n", " ")


def entry(code: str, found: dict[str, Any] | None, old: dict[str, Any] | None) -> dict[str, Any]:
    if found is None:
        if old is None:
            raise SystemExit(f"{code}: in no research file and not in the file")
        if "verified" in old:
            return old  # checked before, not in this round of research
        found = {"current": old.get("call"), "why": "In no research file: not checked."}
    verified = found.get("verified") in (True, "yes")
    call = str(found.get("call") or "").strip()
    why = found.get("why")
    was = found.get("current")
    source = str(found.get("source") or "").strip()
    if verified and call and not re.fullmatch(r"https?://\S+", source):
        verified = False  # a number no one can open a page for is not a checked number
        why = _one_line(_sentence(why), f"Confirmed only by a page without an address: {source}.")
    if verified and call:
        out: dict[str, Any] = {"call": call}
        described = describe(code, call, str(found.get("describe") or ""))
        if described and set(described.values()) != {ANY}:  # "999 or 112" says it all
            out["describe"] = described
        out["source"] = source
        out["checked"] = RESEARCHED
        out["verified"] = "yes"
        review = _one_line(
            f"{found.get('verdict', 'confirmed')} (was {was}):" if was else None,
            _sentence(why),
            f"Research: {found.get('describe')}." if found.get("describe") else None,
            f'Quote: "{found["quote"]}".' if found.get("quote") else None,
            f"Also: {found['second_source']}." if found.get("second_source") else None,
        )
        out["review"] = review
        return out
    lead = _one_line(
        f"Unconfirmed (was {was}):" if was else "Unconfirmed:",
        _sentence(why),
        f"Lead, not confirmed: {call}." if call else None,
        f"Page tried: {found['source']}." if found.get("source") else None,
    )
    return {
        "call": MOBILE,
        "source": SPEC,
        "checked": RESEARCHED,
        "verified": "no",
        "review": lead,
    }


def load(path: Path) -> dict[str, dict[str, Any]]:
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    # YAML reads a bare NO (Norway) as false.
    return {("NO" if key is False else str(key)): value for key, value in raw.items()}


def _second_note(first: dict[str, Any] | None, second: dict[str, Any], chosen: bool) -> str:
    agrees = first is not None and str(first.get("call")) == str(second.get("call"))
    if agrees:
        return f"Second pass agrees ({second.get('source')})."
    verdict = "taken" if chosen else "not taken"
    return _one_line(
        f"Second pass ({verdict}): {second.get('call')!s} from {second.get('source')}.",
        _sentence(second.get("why")),
        f"Taken because {PREFER_SECOND[first_code(second)]}." if chosen else None,
    )


def first_code(entry: dict[str, Any]) -> str:
    return str(entry["_code"])


def main(args: list[str]) -> None:
    second_file = None
    if "--second" in args:
        at = args.index("--second")
        second_file, args = args[at + 1], args[:at] + args[at + 2 :]
    current = yaml.safe_load(FILE.read_text(encoding="utf-8"))
    old = {("NO" if k is False else str(k)): v for k, v in current["countries"].items()}
    found: dict[str, dict[str, Any]] = {}
    for name in args:
        for code, value in load(Path(name)).items():
            if code in found and found[code].get("verified") in (True, "yes"):
                continue  # the first confirmed finding stands
            found[code] = value
    notes: dict[str, str] = {}
    if second_file:
        for code, value in load(Path(second_file)).items():
            value["_code"] = code
            chosen = code in PREFER_SECOND
            notes[code] = _second_note(found.get(code), value, chosen)
            if chosen:
                found[code] = value
    header = FILE.read_text(encoding="utf-8").split("\ncountries:\n")[0]
    out = [header, "", "countries:"]
    for code in sorted(old):
        if code in MANUAL and code not in found:
            data = dict(MANUAL[code])
        else:
            data = entry(code, found.get(code), old.get(code))
        if code in notes:
            data["review"] = _one_line(data.get("review"), notes[code])
        body = yaml.safe_dump({code: data}, allow_unicode=True, sort_keys=False, width=100)
        body = body.replace("\nverified: yes", '\nverified: "yes"')
        out.append("\n".join("  " + line for line in body.rstrip("\n").split("\n")))
    text = "\n".join(out) + "\n"
    # safe_dump quotes "yes"/"no" already; keys like NO need quoting for YAML 1.1 readers.
    text = text.replace("\n  NO:\n", "\n  'NO':\n")
    FILE.write_text(text, encoding="utf-8")
    for line in UNREAD:  # shown with its numbers only until someone writes DESCRIBE
        print(line, file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
