"""A content problem, located by its path inside a parsed YAML document.

Validators stay free of YAML details: they report a path such as ``("sections", 2, "title")``
and `bot.content` turns it into a file and line for the author.
"""

from __future__ import annotations

from dataclasses import dataclass

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Problem:
    path: Path
    message: str

    def __str__(self) -> str:
        where = ".".join(str(p) for p in self.path) or "<top>"
        return f"{where}: {self.message}"
