"""The content's compiled form: everything `load_content` builds, kept in one file named by
a digest of what it was built from, so a start with unchanged content and code loads it in
a few tens of milliseconds instead of validating and compiling for a second or more.

What the digest covers: every file and folder name under the content folder and the bytes
of every file, the folder's own path, every `.py` file of the `bot` package, the Python
version and the versions of the libraries content is built with (Babel's country names,
libphonenumber's numbers, PyYAML). A file is only ever written after `load_content`
validated the same inputs, so loading it checks nothing less: any change to what went in
names a different file, and the old one is not read.

The file holds content only (no person's data, no key): it lives in BOT_CACHE_DIR, or in
the data dir's `cache/`, or wherever `python -m bot content compile` puts it at build time
(the Docker image's, so that a first start with an empty data dir is quick too).

Reading and hashing those inputs (about 600 files) was itself a few hundredths of a second
of every start (issue 25). So a small stamp file beside the compiled form names it by what
`os.stat` says of the same inputs (each file's size, modification and change times, inode
and device) instead of their bytes: when every one of them is as it was, the digest it
names is the one the bytes would give. Any write to a file moves its change time, which no
program sets back; anything else that differs (a copy, an image pulled elsewhere) only
means the bytes are read and hashed as before, and a new stamp written. A stamp is only
written when no input changed in the last `SETTLE_SECONDS`, so that a file system whose
times are coarse cannot hide an edit made in the same tick as the stamp.

Loading it never stops the bot: a missing, stale, truncated, corrupt or foreign file is
set aside and the content built and validated as before (and the file written again).
Since a pickle can name code to run, the reader accepts only the content's own classes
and a few plain types (`_ALLOWED`), and only a file that nobody but its owner (this user
or root) can write.
"""

from __future__ import annotations

import gc
import hashlib
import io
import logging
import os
import pickle
import stat
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

from bot.content.loader import Content, content_dir, load_content

log = logging.getLogger(__name__)

# Bump when the file's layout changes in a way the digest of the code would not show.
FORMAT = 1
PREFIX = "content-"
SUFFIX = ".pickle"
STAMP = "stamp-"  # then the stat digest; holds the content digest it stands for
SETTLE_SECONDS = 2.0
_PACKAGE = Path(__file__).resolve().parents[1]  # bot/, whose code builds the content
_LIBRARIES = ("babel", "phonenumbers", "PyYAML")
# Beside the content's classes (modules under these), the only globals a file may name.
_MODULES = ("bot.content.", "bot.matching.")
_ALLOWED = frozenset(
    {
        ("datetime", "date"),
        ("pathlib", "PosixPath"),
        ("pathlib", "WindowsPath"),
        ("re", "_compile"),  # the few expressions kept compiled (the crisis stems' one)
    }
)


def _library_versions() -> str:
    found = []
    for name in _LIBRARIES:
        try:
            found.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name}=?")
    return ";".join(found)


def _add_tree(digest: hashlib._Hash, root: Path, suffix: str = "") -> None:
    """Every folder's name and every file's name and bytes (files ending in `suffix`)."""
    for folder, folders, files in sorted(os.walk(root)):
        folders[:] = sorted(f for f in folders if f != "__pycache__")
        where = Path(folder).relative_to(root).as_posix()
        digest.update(f"d {where}\0".encode())
        for name in sorted(files):
            if name.endswith(suffix):
                data = (Path(folder) / name).read_bytes()
                digest.update(f"f {name} {len(data)}\0".encode())
                digest.update(data)


def _header(root: Path) -> bytes:
    return (
        f"steady-content {FORMAT}\0{sys.version}\0{sys.implementation.cache_tag}\0"
        f"{_library_versions()}\0{root.resolve()}\0"
    ).encode()


def content_digest(root: Path) -> str:
    """What the compiled form of the content at `root` is named by (see the module's doc)."""
    digest = hashlib.sha256(_header(root))
    _add_tree(digest, root)
    digest.update(b"\0code\0")
    _add_tree(digest, _PACKAGE, ".py")
    return digest.hexdigest()


def _stat_tree(digest: hashlib._Hash, root: Path, suffix: str = "") -> float:
    """As `_add_tree`, with what `os.stat` says of each file instead of its bytes; the
    newest modification or change time seen (seconds)."""
    newest = 0.0
    for folder, folders, files in sorted(os.walk(root)):
        folders[:] = sorted(f for f in folders if f != "__pycache__")
        digest.update(f"d {Path(folder).relative_to(root).as_posix()}\0".encode())
        for name in sorted(files):
            if name.endswith(suffix):
                info = os.stat(os.path.join(folder, name))
                digest.update(
                    f"f {name} {info.st_size} {info.st_mtime_ns} {info.st_ctime_ns} "
                    f"{info.st_ino} {info.st_dev}\0".encode()
                )
                newest = max(newest, info.st_mtime, info.st_ctime)
    return newest


def stat_digest(root: Path) -> tuple[str, bool]:
    """What the stamp for the content at `root` is named by, and whether every input has
    been left alone for `SETTLE_SECONDS` (only then is a stamp written)."""
    digest = hashlib.sha256(_header(root))
    newest = _stat_tree(digest, root)
    digest.update(b"\0code\0")
    newest = max(newest, _stat_tree(digest, _PACKAGE, ".py"))
    return digest.hexdigest(), newest < time.time() - SETTLE_SECONDS


def _stamped(stamp: Path) -> str | None:
    """The content digest a stamp names, when it is there and only its owner wrote it."""
    try:
        with stamp.open("rb") as handle:
            if not _trusted(os.fstat(handle.fileno())):
                return None
            named = handle.read(100).decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    hexdigits = set("0123456789abcdef")
    return named if len(named) == 64 and set(named) <= hexdigits else None


def _replace(file: Path, data: bytes, mode: int, others: str) -> None:
    """Write `file` atomically (a reader sees the old file or the whole new one), then
    remove the folder's other files matching `others`, which no start will ask for again.
    Raises OSError."""
    handle, temporary = tempfile.mkstemp(prefix=".new-", dir=file.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, file)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    for old in file.parent.glob(others):
        if old != file:
            old.unlink(missing_ok=True)


def _write_stamp(stamp: Path, digest: str, mode: int) -> None:
    """Atomically, replacing the folder's other stamps; nothing but a log line on failure."""
    try:
        _replace(stamp, digest.encode("ascii"), mode, f"{STAMP}*")
    except OSError as exc:
        log.info("content stamp not written (%s)", type(exc).__name__)


def cache_file(cache_dir: Path, digest: str) -> Path:
    return cache_dir / f"{PREFIX}{digest}{SUFFIX}"


class _ContentUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> object:
        if (module, name) in _ALLOWED:
            return super().find_class(module, name)
        if module.startswith(_MODULES):
            found = super().find_class(module, name)
            if isinstance(found, type):
                return found
        raise pickle.UnpicklingError(f"the compiled content names {module}.{name}")


def _trusted(info: os.stat_result) -> bool:
    """Only its owner can have written it, and the owner is this user or root."""
    writable_by_others = info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    return stat.S_ISREG(info.st_mode) and not writable_by_others and info.st_uid in {os.getuid(), 0}


def read_compiled(file: Path) -> Content | None:
    """The content in `file`, or None (logged) when it is missing or cannot be used."""
    try:
        with file.open("rb") as handle:
            info = os.fstat(handle.fileno())
            if not _trusted(info):
                log.warning("compiled content not used: others may write %s", file.name)
                return None
            data = handle.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        log.warning("compiled content not read (%s)", type(exc).__name__)
        return None
    # Millions of small objects: the collector's passes over them while they are made
    # would double the time, and none of them is garbage yet.
    collecting = gc.isenabled()
    gc.disable()
    try:
        found = _ContentUnpickler(io.BytesIO(data)).load()
    except Exception as exc:  # corrupt, truncated, foreign: built again instead
        log.warning("compiled content not used (%s); building it again", type(exc).__name__)
        return None
    finally:
        if collecting:
            gc.enable()
    if not isinstance(found, Content):
        log.warning("compiled content not used (not content); building it again")
        return None
    return found


def write_compiled(content: Content, file: Path, *, mode: int = 0o600) -> bool:
    """Write atomically (a reader sees the old file or the whole new one), then remove the
    folder's other compiled files, which no start will ask for again. False (logged) when
    the folder cannot be written: the bot serves all the same."""
    try:
        file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        data = pickle.dumps(content, protocol=pickle.HIGHEST_PROTOCOL)
        _replace(file, data, mode, f"{PREFIX}*{SUFFIX}")
    except OSError as exc:
        log.warning("compiled content not written (%s)", type(exc).__name__)
        return False
    return True


def load_compiled(cache_dir: Path | None, root: Path | None = None) -> Content:
    """The content, from its compiled form in `cache_dir` when there is one for exactly
    these inputs; else loaded and validated (ContentError as `load_content`), then written
    there. `cache_dir` None: no compiled form, `load_content` alone."""
    root = root or content_dir()
    if cache_dir is None:
        return load_content(root)
    quick, settled = stat_digest(root)
    stamp = cache_dir / f"{STAMP}{quick}"
    named = _stamped(stamp)
    if named is not None:
        found = read_compiled(cache_file(cache_dir, named))
        if found is not None:
            return found
    digest = content_digest(root)
    file = cache_file(cache_dir, digest)
    found = read_compiled(file)
    if found is None:
        found = load_content(root)
        if not write_compiled(found, file):
            return found
    if settled:
        _write_stamp(stamp, digest, 0o600)
    return found


def compile_into(cache_dir: Path, root: Path | None = None) -> Path | None:
    """Build time (`python -m bot content compile`, the Docker image): the compiled form
    in `cache_dir`, so that the first start, even with an empty data dir, reads it. Readable
    by all (content only): the image builds it as root for the bot's user. The file, or
    None when it could not be written; ContentError as `load_content`."""
    root = root or content_dir()
    content = load_content(root)
    digest = content_digest(root)
    file = cache_file(cache_dir, digest)
    if not write_compiled(content, file, mode=0o644):
        return None
    quick, settled = stat_digest(root)
    if settled:
        _write_stamp(cache_dir / f"{STAMP}{quick}", digest, 0o644)
    return file
