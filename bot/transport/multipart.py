"""A multipart/form-data body (RFC 7578) for the Bot API's uploads: the export's PDF, a
record's files, /progress's chart. The parameters as text parts, each file as a part with
its name and type; the boundary is random, so no file's bytes can end a part early.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import IO

FilePart = tuple[str, bytes | IO[bytes], str]  # file name, content, MIME type

# What a quoted name may not hold as itself (the way browsers and httpx write them).
_ESCAPES = str.maketrans({'"': "%22", "\r": "%0D", "\n": "%0A"})


def _quoted(value: str) -> bytes:
    return b'"' + value.translate(_ESCAPES).encode("utf-8") + b'"'


def _mime(value: str) -> bytes:
    return (
        value.encode("ascii")
        if value.isascii() and value.isprintable()
        else (b"application/octet-stream")
    )


def multipart(fields: Mapping[str, str], files: Mapping[str, FilePart]) -> tuple[bytes, str]:
    """The body and its Content-Type (with the boundary)."""
    boundary = os.urandom(16).hex().encode("ascii")
    dash = b"--" + boundary + b"\r\n"
    parts: list[bytes] = []
    for name, value in fields.items():
        parts += (
            dash,
            b"Content-Disposition: form-data; name=",
            _quoted(name),
            b"\r\n\r\n",
            value.encode("utf-8"),
            b"\r\n",
        )
    for name, (filename, content, mime) in files.items():
        data = content if isinstance(content, bytes) else content.read()
        parts += (
            dash,
            b"Content-Disposition: form-data; name=",
            _quoted(name),
            b"; filename=",
            _quoted(filename),
            b"\r\nContent-Type: ",
            _mime(mime),
            b"\r\n\r\n",
            data,
            b"\r\n",
        )
    parts.append(b"--" + boundary + b"--\r\n")
    return b"".join(parts), "multipart/form-data; boundary=" + boundary.decode("ascii")
