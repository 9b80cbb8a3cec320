"""Where the master key comes from, and `keys rotate` / `keys retire`.

A rotation can never lose the key: the new key is delivered first (the operator supplies
it in BOT_NEW_MASTER_KEY, or it is written to a file and read back), every data key is
wrapped under it *as well* and the re-wrap is verified by opening the store with the key as
read back. Until `keys retire` (a second, explicit step, run with the new key) the old key
keeps working. A failed or unconfirmed step exits non-zero and leaves the old key working.
In key-file mode, a crash at any point leaves `master.key.new` behind, and the next start
refuses with a line that names it and says which command finishes the rotation.
"""

from __future__ import annotations

import base64
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from bot.config import ConfigError, Settings, decode_master_key
from bot.crypto import MasterKey, random_key
from bot.storage.keystore import KeyStore, RotationError

log = logging.getLogger(__name__)

NEW_KEY_ENV = "BOT_NEW_MASTER_KEY"
PENDING_SUFFIX = ".new"


def encode_key(key: MasterKey) -> str:
    return base64.b64encode(key.secret).decode()


def pending_key_file(settings: Settings) -> Path:
    return settings.key_file.with_name(settings.key_file.name + PENDING_SUFFIX)


def write_key_file(path: Path, key: MasterKey) -> None:
    """Write atomically with mode 0600 from the first byte (no window where others can read),
    and make the rename durable."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, (encode_key(key) + "\n").encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_key_file(path: Path) -> MasterKey:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read key file {path} ({exc.strerror})") from None
    return MasterKey(decode_master_key(text, origin=f"key file {path}"))


def resolve_master_key(settings: Settings, *, rotating: bool = False) -> MasterKey:
    if settings.master_key is not None:
        return MasterKey(settings.master_key)
    path = settings.key_file
    pending = pending_key_file(settings)
    if pending.exists() and not rotating:
        raise ConfigError(
            f"a key rotation is unfinished: {pending} holds the new master key. Run "
            "`python -m bot keys rotate` (it resumes with that file), then "
            "`python -m bot keys retire`"
        )
    if path.exists():
        return read_key_file(path)
    if pending.exists():
        # Never generate a fresh key beside a pending one: that would orphan the store.
        raise ConfigError(f"{path} is missing but {pending} exists; restore {path} from a copy")
    key = MasterKey(random_key())
    write_key_file(path, key)
    log.warning(
        "created a new master key in %s (mode 0600). For production, move it to a secret: "
        "set BOT_MASTER_KEY to the file's contents, then delete the file.",
        path,
    )
    return key


@dataclass(frozen=True)
class Delivered:
    """The new key and where the operator has it."""

    key: MasterKey
    where: str
    written: Path | None = None  # a key file this run made (removed if the run fails)

    def withdraw(self) -> None:
        """The run failed before the key wrapped anything: a file it made would open
        nothing, yet pass for the new key (issue 26). A resumed file is kept."""
        if self.written is None:
            return
        self.written.unlink(missing_ok=True)
        _fsync_dir(self.written.parent)


def deliver_new_key(settings: Settings, new_key_file: Path | None) -> Delivered:
    """The new key, already somewhere durable the operator controls, never only on stdout."""
    supplied = os.environ.get(NEW_KEY_ENV, "").strip()
    if supplied:
        return Delivered(MasterKey(decode_master_key(supplied, origin=NEW_KEY_ENV)), NEW_KEY_ENV)
    if settings.master_key is None and new_key_file is None:
        new_key_file = pending_key_file(settings)
    if new_key_file is None:
        raise ConfigError(
            f"give the new master key: set {NEW_KEY_ENV} to it, or pass --new-key-file PATH to "
            "have one written there (a new key is never only printed)"
        )
    written = None
    if new_key_file.exists():
        key = read_key_file(new_key_file)  # a rotation resumed after a crash
    else:
        key = MasterKey(random_key())
        write_key_file(new_key_file, key)
        written = new_key_file
    delivered = Delivered(key, str(new_key_file), written)
    if read_key_file(new_key_file) != key:
        delivered.withdraw()
        raise ConfigError(f"{new_key_file} did not read back as written")
    return delivered


async def stage_rotation(settings: Settings, old: MasterKey, new: MasterKey) -> int:
    """Wrap everything under `new` as well, then prove `new` opens it; undone on failure
    (only the wraps this run added: `KeyStore.unstage`). Returns how many keys `new` opens."""
    store = await KeyStore.open(settings.key_target, old)
    try:
        expected = await store.stage(new)
        try:
            verified = await KeyStore.open(settings.key_target, new)
            try:
                if not verified.opened_with_next_key:
                    raise RotationError("the re-wrapped keys did not verify")
                # More is fine: people who joined while the bot served with the staged key.
                opened = await verified.all_data_keys()
                if any(opened.get(pid) != key for pid, key in expected.items()):
                    raise RotationError("the re-wrapped keys did not verify")
                await verified.pseudonym_key()
                count = len(opened)
            finally:
                await verified.close()
        except BaseException:
            await store.unstage()
            raise
    finally:
        await store.close()
    return count


async def retire_old_key(settings: Settings) -> int:
    """Key-file mode: the pending file becomes the key file first (a crash after that leaves
    a key that opens the store), then the old wraps go."""
    if settings.master_key is None:
        pending = pending_key_file(settings)
        if pending.exists():
            new = read_key_file(pending)
            probe = await KeyStore.open(settings.key_target, new)  # refuses a key that fits nothing
            await probe.close()
            os.replace(pending, settings.key_file)
            _fsync_dir(settings.key_file.parent)
    current = resolve_master_key(settings, rotating=True)
    store = await KeyStore.open(settings.key_target, current)
    try:
        return await store.retire_old_key()
    finally:
        await store.close()


def say(line: str) -> None:
    """Print, or raise if it cannot reach the operator (stdout closed or broken)."""
    if sys.stdout is None:
        raise OSError("stdout is closed")
    print(line, file=sys.stdout)
    sys.stdout.flush()
