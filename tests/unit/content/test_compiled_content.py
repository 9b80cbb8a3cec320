"""The content's compiled form (bot/content/compiled.py): read back when nothing it was
built from changed, built again (and validated) when anything did, and never a reason for
the bot not to start."""

from __future__ import annotations

import os
import pickle
import shutil
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.config import load_settings
from bot.content import compiled
from bot.content.compiled import cache_file, content_digest, load_compiled, read_compiled
from bot.content.loader import Content, ContentError, content_dir, load_content

MESSAGES = ("i want to kill myself", "he has a knife", "quiero morir", "what a lovely day")


@pytest.fixture
def content_copy(tmp_path: Path) -> Path:
    target = tmp_path / "content"
    shutil.copytree(
        content_dir(),
        target,
        ignore=shutil.ignore_patterns("*.py", "__pycache__", "crisis_model"),
    )
    return target


@pytest.fixture
def built(content_copy: Path, tmp_path: Path) -> tuple[Path, Path, Content]:
    """(content folder, cache folder, the content as built): one cold load, written."""
    cache = tmp_path / "cache"
    return content_copy, cache, load_compiled(cache, content_copy)


def _no_rebuild(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object, **__: object) -> Content:
        raise AssertionError("the content was built again")

    monkeypatch.setattr(compiled, "load_content", refuse)


def _reads_the_same(found: Content, fresh: Content) -> None:
    assert found.texts.data == fresh.texts.data
    assert found.locales.codes == fresh.locales.codes
    assert found.helplines.keys() == fresh.helplines.keys()
    assert found.crisis_terms == fresh.crisis_terms
    for message in MESSAGES:
        assert found.detector.detect(message) == fresh.detector.detect(message), message


def test_unchanged_content_is_read_back_not_built(
    built: tuple[Path, Path, Content], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, cache, fresh = built
    assert [f.name for f in cache.iterdir()] == [cache_file(cache, content_digest(root)).name]
    _no_rebuild(monkeypatch)
    found = load_compiled(cache, root)
    assert found is not fresh
    _reads_the_same(found, fresh)
    assert found.detector.detect("i want to kill myself") is not None


def test_the_file_keeps_the_expressions_uncompiled_until_asked(
    built: tuple[Path, Path, Content],
) -> None:
    root, cache, _ = built
    found = read_compiled(cache_file(cache, content_digest(root)))
    assert found is not None
    entries = found.detector._entries
    assert entries and not any(e.compiled._regex for e in entries)
    found.detector.warm()
    assert all(e.compiled._regex for e in entries)


def test_an_edit_builds_and_validates_again(
    built: tuple[Path, Path, Content], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, cache, _ = built
    before = content_digest(root)
    terms = root / "crisis_terms.yaml"
    terms.write_text(terms.read_text(encoding="utf-8") + "\n# a comment\n", encoding="utf-8")
    assert content_digest(root) != before
    assert load_compiled(cache, root).crisis_terms  # built again, and written
    assert [f.name for f in cache.iterdir()] == [cache_file(cache, content_digest(root)).name]
    # Broken content is refused, whatever was compiled from the content before it.
    terms.write_text("categories: [\n", encoding="utf-8")
    with pytest.raises(ContentError):
        load_compiled(cache, root)
    _no_rebuild(monkeypatch)
    with pytest.raises(AssertionError):
        load_compiled(cache, root)


def test_a_new_file_or_folder_changes_the_digest(content_copy: Path) -> None:
    before = content_digest(content_copy)
    (content_copy / "locales" / "xx").mkdir()
    assert content_digest(content_copy) != before


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"not a pickle at all",
        pickle.dumps({"texts": "a dict, not content"}),
        # A pickle that would run a command as it loads: refused, never run.
        b"cos\nsystem\n(S'touch /tmp/steady-compiled-test-ran'\ntR.",
    ],
    ids=["empty", "garbage", "not-content", "foreign-global"],
)
def test_a_damaged_file_is_built_again(built: tuple[Path, Path, Content], damage: bytes) -> None:
    root, cache, fresh = built
    file = cache_file(cache, content_digest(root))
    file.write_bytes(damage)
    found = load_compiled(cache, root)
    _reads_the_same(found, fresh)
    assert not Path("/tmp/steady-compiled-test-ran").exists()
    assert read_compiled(file) is not None  # written again, whole


def test_a_truncated_file_is_built_again(built: tuple[Path, Path, Content]) -> None:
    root, cache, fresh = built
    file = cache_file(cache, content_digest(root))
    file.write_bytes(file.read_bytes()[: file.stat().st_size // 2])
    assert read_compiled(file) is None
    _reads_the_same(load_compiled(cache, root), fresh)


def test_a_file_others_may_write_is_not_read(built: tuple[Path, Path, Content]) -> None:
    root, cache, _ = built
    file = cache_file(cache, content_digest(root))
    file.chmod(0o620)
    assert read_compiled(file) is None
    file.chmod(0o600)
    assert read_compiled(file) is not None


def test_an_unwritable_cache_still_serves(content_copy: Path, tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_bytes(b"")
    found = load_compiled(blocked / "cache", content_copy)  # its parent is a file
    assert found.detector.detect("i want to kill myself") is not None


def test_no_cache_dir_is_load_content(content_copy: Path) -> None:
    assert load_compiled(None, content_copy).texts.data == load_content(content_copy).texts.data


def test_written_files_are_private_unless_asked(built: tuple[Path, Path, Content]) -> None:
    root, cache, content = built
    file = cache_file(cache, content_digest(root))
    assert file.stat().st_mode & 0o777 == 0o600
    assert compiled.write_compiled(content, file, mode=0o644)
    assert file.stat().st_mode & 0o777 == 0o644
    assert not [f for f in os.listdir(cache) if f.startswith(".new-")]  # no leftovers


def test_cache_dir_setting(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert load_settings({"BOT_DATA_DIR": str(data)}, dotenv=None).content_cache == data / "cache"
    chosen = load_settings({"BOT_DATA_DIR": str(data), "BOT_CACHE_DIR": "/opt/c"}, dotenv=None)
    assert chosen.content_cache == Path("/opt/c")


def test_content_compile_writes_a_file_the_bot_then_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "build-cache"
    umask = os.umask(0o022)
    try:
        assert main(["content", "compile", "--cache-dir", str(cache)]) == 0
    finally:
        os.umask(umask)  # main() sets the bot's own
    file = cache_file(cache, content_digest(content_dir()))
    assert str(file) in capsys.readouterr().out
    assert file.stat().st_mode & 0o777 == 0o644  # the image builds it as root for its user
    _no_rebuild(monkeypatch)
    assert load_compiled(cache).detector.detect("i want to kill myself") is not None


def _stamps(cache: Path) -> list[Path]:
    return sorted(cache.glob(f"{compiled.STAMP}*"))


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inputs count as left alone at once (the copy above was made a moment ago)."""
    monkeypatch.setattr(compiled, "SETTLE_SECONDS", -1.0)


@pytest.mark.usefixtures("settled")
def test_a_stamp_spares_reading_the_inputs_bytes(
    content_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    fresh = load_compiled(cache, content_copy)
    (stamp,) = _stamps(cache)
    assert stamp.read_text() == content_digest(content_copy)
    assert stamp.stat().st_mode & 0o777 == 0o600

    def refuse(_: Path) -> str:
        raise AssertionError("the inputs' bytes were read")

    monkeypatch.setattr(compiled, "content_digest", refuse)
    _no_rebuild(monkeypatch)
    _reads_the_same(load_compiled(cache, content_copy), fresh)


@pytest.mark.usefixtures("settled")
def test_an_edit_that_keeps_size_and_modification_time_is_still_seen(
    content_copy: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    load_compiled(cache, content_copy)
    terms = content_copy / "crisis_terms.yaml"
    text = terms.read_text(encoding="utf-8")
    terms.write_text(text + "\n# a\n", encoding="utf-8")
    load_compiled(cache, content_copy)  # built again, and stamped
    before = terms.stat()
    edited_digest = content_digest(content_copy)
    # The same length again, and the modification time put back: only the change time
    # (which no program can set back) tells.
    terms.write_text(text + "\n# b\n", encoding="utf-8")
    os.utime(terms, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert terms.stat().st_size == before.st_size and terms.stat().st_mtime_ns == before.st_mtime_ns
    digest = content_digest(content_copy)
    assert digest != edited_digest
    load_compiled(cache, content_copy)
    assert [f.name for f in cache.glob(f"{compiled.PREFIX}*")] == [cache_file(cache, digest).name]
    (stamp,) = _stamps(cache)
    assert stamp.read_text() == digest


def test_no_stamp_while_an_input_was_just_changed(built: tuple[Path, Path, Content]) -> None:
    _, cache, _ = built  # the content was copied a moment ago
    assert _stamps(cache) == []


@pytest.mark.usefixtures("settled")
@pytest.mark.parametrize("names", ["0" * 64, "not a digest", ""])
def test_a_stamp_naming_nothing_usable_falls_back_to_the_bytes(
    content_copy: Path, tmp_path: Path, names: str
) -> None:
    cache = tmp_path / "cache"
    fresh = load_compiled(cache, content_copy)
    (stamp,) = _stamps(cache)
    stamp.write_text(names)
    _reads_the_same(load_compiled(cache, content_copy), fresh)
    assert stamp.read_text() == content_digest(content_copy)  # written again


@pytest.mark.usefixtures("settled")
def test_a_stamp_others_may_write_is_not_followed(content_copy: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    load_compiled(cache, content_copy)
    (stamp,) = _stamps(cache)
    stamp.chmod(0o622)
    assert compiled._stamped(stamp) is None
    stamp.chmod(0o600)
    assert compiled._stamped(stamp) == content_digest(content_copy)
