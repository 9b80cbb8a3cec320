"""One registry of codecs by prefix, for callback data and stored states alike: each
prefix is claimed by one codec, so two features that would read the same buttons or the
same stored state fail at start-up instead of answering each other's taps."""

from __future__ import annotations

from typing import ClassVar, Generic, Protocol, TypeVar

from bot.core.errors import SteadyError


class Prefixed(Protocol):
    PREFIX: ClassVar[str]


K = TypeVar("K", bound=type[Prefixed])


class PrefixClash(SteadyError, ValueError):
    """Two codecs claim one prefix."""


class PrefixRegistry(Generic[K]):
    def __init__(self, what: str) -> None:
        self._what = what  # "callback prefix", "state prefix": for the error
        self._kinds: dict[str, K] = {}

    def add(self, kind: K) -> None:
        prefix = kind.PREFIX
        if not prefix or ":" in prefix:
            raise ValueError(f"{self._what} {prefix!r} of {kind.__name__} is not a name")
        known = self._kinds.get(prefix)
        if known is not None:
            raise PrefixClash(
                f"{self._what} {prefix!r} registered twice ({known.__name__}, {kind.__name__})"
            )
        self._kinds[prefix] = kind

    def get(self, prefix: str) -> K | None:
        return self._kinds.get(prefix)

    def __contains__(self, prefix: object) -> bool:
        return prefix in self._kinds

    def kinds(self) -> list[K]:
        """Every codec, in the order they were registered."""
        return list(self._kinds.values())
