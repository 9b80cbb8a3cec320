"""The machinery of a person's stored `state`: what typed text answers right now.

The column holds a short ASCII string (never anything a person wrote): ``""`` when nothing
is pending (free text goes to the idle routes, the journal), else ``<prefix>:<fields>``,
one frozen dataclass per prefix. Each feature's states live in its own package
(bot/features/<feature>/state.py: `setup:`, `disc:`, `ws:`, `rec:`, `urge:`) and are
registered by prefix when it installs, so two features claiming one prefix is an error at
start-up (bot/core/prefixes.py).

Decoding validates once (ASCII digits, whole-string match); everything after works with
typed values. Anything else decodes to None and is treated as nothing pending.
"""

from __future__ import annotations

from typing import ClassVar, Self


class StoredState:
    PREFIX: ClassVar[str]

    def encode(self) -> str:
        raise NotImplementedError

    @classmethod
    def decode(cls, rest: str) -> Self | None:
        """`rest` is what follows `<PREFIX>:`; None when it does not fit."""
        raise NotImplementedError

    @classmethod
    def read(cls, state: str) -> Self | None:
        """A stored state, if it is one of this kind (None for any other, or nothing)."""
        prefix, sep, rest = state.partition(":")
        return cls.decode(rest) if sep and prefix == cls.PREFIX else None
