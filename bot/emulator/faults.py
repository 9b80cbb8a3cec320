"""Injected failures: what a flaky network or an annoyed Telegram would answer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from bot.emulator.errors import (
    BLOCKED,
    INJECTED_BAD_REQUEST,
    INTERNAL,
    TOO_LARGE,
    UNAUTHORIZED,
    ApiError,
    bad_request,
    too_many_requests,
)

FaultKind = Literal["429", "500", "timeout", "403", "400", "401", "413"]
FAULT_KINDS: frozenset[str] = frozenset(get_args(FaultKind))


@dataclass(slots=True)
class Fault:
    method: str  # lower-cased: Telegram matches method names case-insensitively
    kind: FaultKind
    remaining: int
    chat_id: int | None
    retry_after: int
    delay: float

    def applies_to(self, method: str, chat_id: object) -> bool:
        if self.method != method:
            return False
        return self.chat_id is None or self.chat_id == chat_id

    def error(self) -> ApiError | None:
        """The error to answer with, or None for a "timeout" (answered late, but normally)."""
        if self.kind == "429":
            return too_many_requests(self.retry_after)
        if self.kind == "500":
            return ApiError(500, INTERNAL)
        if self.kind == "403":
            return ApiError(403, BLOCKED)
        if self.kind == "400":
            return bad_request(INJECTED_BAD_REQUEST)
        if self.kind == "401":  # a revoked or mistyped token
            return ApiError(401, UNAUTHORIZED)
        if self.kind == "413":  # an upload over the 50 MB limit
            return ApiError(413, TOO_LARGE)
        return None


class FaultPlan:
    """Faults waiting to fire, oldest first."""

    def __init__(self) -> None:
        self._faults: list[Fault] = []

    def add(
        self,
        method: str,
        kind: FaultKind,
        *,
        times: int,
        chat_id: int | None,
        retry_after: int,
        delay: float,
    ) -> None:
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {kind!r}; expected one of {sorted(FAULT_KINDS)}")
        if times < 1:
            raise ValueError("times must be at least 1")
        if kind == "timeout" and delay <= 0:
            raise ValueError("a timeout fault needs delay > 0 (longer than the client's timeout)")
        if kind == "429" and retry_after < 1:
            raise ValueError("retry_after must be at least 1: PTB ignores a zero retry_after")
        self._faults.append(Fault(method.lower(), kind, times, chat_id, retry_after, delay))

    def take(self, method: str, chat_id: object) -> Fault | None:
        for fault in self._faults:
            if fault.applies_to(method.lower(), chat_id):
                fault.remaining -= 1
                if fault.remaining == 0:
                    self._faults.remove(fault)
                return fault
        return None

    def clear(self) -> None:
        self._faults.clear()

    def __len__(self) -> int:
        return len(self._faults)
