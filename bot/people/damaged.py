"""Rows that did not open while the rest of a person's words were read (one damaged answer
or journal entry): noted here so that the handler which showed the rest can tell the person
and offer to erase that one row, instead of failing the whole /resume or /export.

In memory only, by kind and id (never a text), a few per person: what is not taken is
noted again the next time the row is read.
"""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)

PER_PERSON = 8  # more is the same story; the next read notes the rest


class DamagedRows:
    def __init__(self, kind: str) -> None:
        self._kind = kind  # "answer" or "journal": for the log line
        self._rows: dict[str, list[str]] = {}

    def note(self, person_id: str, key: str, error: BaseException) -> None:
        log.warning("one %s row does not open: %s", self._kind, type(error).__name__)
        keys = self._rows.setdefault(person_id, [])
        if key not in keys and len(keys) < PER_PERSON:
            keys.append(key)

    def take(self, person_id: str) -> list[str]:
        return self._rows.pop(person_id, [])
