"""Where the master key comes from, and `keys rotate`."""

from __future__ import annotations

import base64
import logging
import os
from pathlib import Path

from bot.config import ConfigError, Settings, decode_master_key
from bot.crypto import MasterKey, random_key

log = logging.getLogger(__name__)


def encode_key(key: MasterKey) -> str:
    return base64.b64encode(key.secret).decode()


def write_key_file(path: Path, key: MasterKey) -> None:
    """Write atomically with mode 0600 from the first byte (no window where others can read)."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, (encode_key(key) + "\n").encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def resolve_master_key(settings: Settings) -> MasterKey:
    if settings.master_key is not None:
        return MasterKey(settings.master_key)
    path = settings.key_file
    if path.exists():
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot read key file {path} ({exc.strerror})") from None
        return MasterKey(decode_master_key(text, origin=f"key file {path}"))
    key = MasterKey(random_key())
    write_key_file(path, key)
    log.warning(
        "created a new master key in %s (mode 0600). For production, move it to a secret: "
        "set BOT_MASTER_KEY to the file's contents, then delete the file.",
        path,
    )
    return key
