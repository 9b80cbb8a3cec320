"""The sealed profile: what is everyone's, and beside it one record per feature.

A person's settings are one JSON object, sealed with their key (bot/people/service.py).
The shared fields sit at its top; each feature's own settings are a `Record` it declares in
its own package (bot/features/urge/prefs.py...), stored under the record's KEY in `parts`:

    {"country": "ES", "language": "es", ..., "revision": 7,
     "parts": {"checkins": {"daily_time": "20:00", ...}, "urge": {...}}}

What is shared is what the framework or nearly every feature reads and no single feature
owns: how to speak to the person (language, discreet, neutral wording, silent, and whether
the cover is up, when nothing may arrive unasked), where they
are (country, time zone: the helplines, every local date), whether onboarding ended, and
the revision that refuses a rolled-back copy. The rest belongs to the feature that writes it;
another feature may read a record (importing the owner's `prefs` module, which holds no
logic) but only its owner and the settings panel write it.

Nothing is lost by a change of code. Profiles written before records were one flat object
(every field at the top): a record not yet in `parts` is read from the top-level keys by
its own `from_flat` (its migration), and on the next save it moves into `parts` and its old
keys leave the top. Keys no record claims (a removed feature's, a part no feature registers
any more, a field a record dropped) are written back as they were; /forget still erases
them all, since all of it is sealed with the person's key.

A part is decoded only when asked for (`part`), so a reader that needs two records (a
check-in pass) does not build the other six. Readers that handle an unreadable row name
the records they use when opening it (`open_profile(..., reading=...)`; PeopleService reads
every registered one), so a record that does not decode is an unreadable row there, as a
bad field was before records, and not a failure at its first use.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Self, TypeVar, cast

PARTS = "parts"  # the key the records are stored under
# The shared fields' names: a record's KEY or field names must not take them.
SHARED = (
    "language",
    "country",
    "timezone",
    "onboarded",
    "revision",
    "discreet",
    "neutral_wording",
    "silent",
    "cover",
)


class Record:
    """A feature's own settings: subclass as a dataclass whose fields all have defaults,
    with a KEY of its own (registered through `Hub.profile_record`). The defaults are what
    a new person has; `decode` and `from_flat` are the hooks for stored types and for the
    flat layout."""

    KEY: ClassVar[str]

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return _field_names(cls)

    @classmethod
    def decode(cls, values: dict[str, Any]) -> Self:
        """The record from its stored values (JSON types, known fields only; a missing one
        takes its default). Override to turn lists back into tuples or nested objects into
        their types; a value of the wrong type raises ValueError or TypeError."""
        return cast(Any, cls)(**values)  # type: ignore[no-any-return]

    def encode(self) -> dict[str, Any]:
        """The stored values (JSON types); the counterpart of `decode`."""
        return {name: getattr(self, name) for name in self.field_names()}

    @classmethod
    def from_stored(cls, stored: Mapping[str, Any]) -> Self:
        # Over the record's own few names, not the stored keys: a flat profile holds every
        # feature's fields at its top, and a check-in pass opens two records of thousands.
        # A record as its owner wrote it holds its own names only: copied whole.
        if _name_set(cls).issuperset(stored):
            return cls.decode(dict(stored))
        return cls.decode({k: stored[k] for k in cls.field_names() if k in stored})

    # --- migration from the flat layout ----------------------------------------------

    @classmethod
    def flat_keys(cls) -> tuple[str, ...]:
        """The top-level keys this record's fields had in the flat layout; they leave the
        top once the record is written. By default its own field names."""
        return cls.field_names()

    @classmethod
    def from_flat(cls, flat: Mapping[str, Any]) -> Self:
        """The record from a flat profile's top-level keys (and, for a new person, from
        nothing: the defaults). Override when a field was renamed or reshaped."""
        return cls.from_stored(flat)


R = TypeVar("R", bound=Record)


# A record's fields are fixed with its class; `fields()` walks them on every call.
_NAMES: dict[type[Record], tuple[str, ...]] = {}


_NAME_SETS: dict[type[Record], frozenset[str]] = {}


def _field_names(kind: type[Record]) -> tuple[str, ...]:
    names = _NAMES.get(kind)
    if names is None:
        names = _NAMES[kind] = tuple(f.name for f in fields(cast(Any, kind)))
    return names


def _name_set(kind: type[Record]) -> frozenset[str]:
    names = _NAME_SETS.get(kind)
    if names is None:
        names = _NAME_SETS[kind] = frozenset(kind.field_names())
    return names


def check_record(kind: type[Record], known: Iterable[type[Record]]) -> None:
    """A record that may be registered beside `known`: a key and field names of its own."""
    key = getattr(kind, "KEY", "")
    if not key or key in SHARED or key == PARTS:
        raise ValueError(f"{kind.__name__} needs a KEY that is not a shared field's name")
    if clash := set(kind.field_names()) & set(SHARED):
        raise ValueError(f"{kind.__name__} has shared fields: {sorted(clash)}")
    for other in known:
        if key == other.KEY and other is not kind:
            raise ValueError(f"two profile records under {key!r}")


@dataclass(slots=True)  # a field of an old layout set by mistake is an error, not lost
class Profile:
    """What is everyone's (see the module docstring for why each), and the records."""

    language: str | None = None  # chosen in /settings or onboarding; None: Telegram's, else en
    country: str | None = None
    timezone: str | None = None
    onboarded: bool = False
    # Counts saves; sealed with the rest and anchored in the key store, so an older copy of
    # the row put back is refused (0: written before revisions existed).
    revision: int = 0
    # How to speak to them (docs/discretion.md): every feature that sends reads these.
    discreet: bool = False
    neutral_wording: bool = False
    silent: bool = False
    # The decoy is up (docs/discretion.md): nothing arrives unasked, whichever feature would
    # send it; the cover's own state is the discretion record's.
    cover: bool = False
    # The records as stored (JSON values) by key, decoded when asked for.
    _stored: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)
    # Top-level keys that are neither shared nor `parts`: the flat layout's, not yet moved.
    _loose: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)
    # The records asked for (or put), by key: these are what a save writes.
    _open: dict[str, Record] = field(default_factory=dict, init=False, repr=False, compare=False)

    def part(self, kind: type[R]) -> R:
        """This profile's record of `kind`: decoded on first ask (from `parts`, else from
        the flat layout, else the defaults), then the same object, so a change to it is
        saved with the profile."""
        found = self._open.get(kind.KEY)
        if found is None:
            stored = self._stored.get(kind.KEY)
            if stored is None:
                found = kind.from_flat(self._loose)
            elif isinstance(stored, dict):
                found = kind.from_stored(stored)
            else:
                raise TypeError(f"profile part {kind.KEY!r} is not an object")
            self._open[kind.KEY] = found
        if not isinstance(found, kind):
            raise TypeError(f"two profile records under {kind.KEY!r}")
        return found

    def replace(self, record: Record) -> None:
        """Put a whole record in place of this profile's one (saved with the profile)."""
        self._open[record.KEY] = record

    def holding(self, *records: Record) -> Profile:
        """This profile with these records put in (for building one whole: a seed, a test)."""
        for record in records:
            self.replace(record)
        return self

    def to_json(self, kinds: Iterable[type[Record]] = ()) -> str:
        """The sealed object. `kinds`: the registered records; those still in the flat
        layout and not asked for are moved into `parts` too (a save writes one layout)."""
        loose = dict(self._loose)
        parts = dict(self._stored)
        records = list(self._open.values())
        # Nothing loose (every profile once saved in the records' layout): no record is
        # still flat, and none has flat keys to take out (issue 25: every save runs this).
        for kind in kinds if loose else ():
            flat = any(name in loose for name in kind.flat_keys())
            if flat and kind.KEY not in self._open and kind.KEY not in parts:
                records.append(kind.from_flat(loose))
        for record in records:
            if loose and record.KEY not in self._stored:  # from the flat layout: it leaves it
                for name in record.flat_keys():
                    loose.pop(name, None)
            before = self._stored.get(record.KEY)
            kept = before if isinstance(before, dict) else {}
            parts[record.KEY] = {**kept, **record.encode()}  # a field it no longer has stays
        raw: dict[str, Any] = {**loose, **{name: getattr(self, name) for name in SHARED}}
        raw[PARTS] = parts
        return json.dumps(raw, separators=(",", ":"), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Profile:
        """Either layout; the records are not decoded here (see `part`)."""
        raw = json.loads(text)
        if not isinstance(raw, dict):
            raise TypeError("a profile is a JSON object")
        parts = raw.pop(PARTS, {})
        if not isinstance(parts, dict):
            raise TypeError("a profile's parts are a JSON object")
        profile = cls(**{name: raw.pop(name) for name in SHARED if name in raw})
        profile._stored = parts
        profile._loose = raw
        return profile
