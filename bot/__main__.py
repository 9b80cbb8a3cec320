"""Command line: `python -m bot [serve | sandbox | keys rotate | backup [PATH] [--keys PATH] |
stats | health | content check]`.

Every expected failure (configuration, key, storage, content) ends with one line on stderr
and exit code 2; tracebacks are for bugs only.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from pathlib import Path

from bot.config import (
    ConfigError,
    Settings,
    check_key_placement,
    ensure_data_dir,
    load_settings,
)
from bot.content import ContentError, check_report, content_dir
from bot.crypto import MasterKey, random_key
from bot.datalock import DataDirLock
from bot.keys import encode_key, resolve_master_key, write_key_file
from bot.logs import configure_logging
from bot.storage.database import StorageError
from bot.storage.keystore import WrongMasterKeyError

EXIT_USAGE = 2
log = logging.getLogger("bot")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="Steady: a discreet Telegram companion. With no command, serves Telegram "
        "by long polling (needs TELEGRAM_BOT_TOKEN).",
    )
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("serve", help="serve Telegram by long polling (the default)")
    sandbox = sub.add_parser("sandbox", help="try the bot in this terminal, no token needed")
    sandbox.add_argument(
        "--data-dir", type=Path, default=Path("./sandbox-data"), help="default ./sandbox-data"
    )
    keys = sub.add_parser("keys", help="key management")
    keys_sub = keys.add_subparsers(dest="keys_command", required=True)
    keys_sub.add_parser("rotate", help="make a new master key and re-wrap every data key")
    backup = sub.add_parser(
        "backup", help="write a consistent copy of the data database and/or the key store"
    )
    backup.add_argument(
        "path", type=Path, nargs="?", help="where to write the data copy (must not exist)"
    )
    backup.add_argument(
        "--keys",
        type=Path,
        default=None,
        metavar="PATH",
        help="also (or only) copy the key store here; keep it apart from the data copy",
    )
    sub.add_parser(
        "health", help="exit 0 while a bot serves this data dir (for Docker's HEALTHCHECK)"
    )
    stats = sub.add_parser("stats", help="counts for the operator: people, crisis replies")
    stats.add_argument("--days", type=int, default=30, help="how many days back (default 30)")
    content = sub.add_parser("content", help="content tools")
    content_sub = content.add_subparsers(dest="content_command", required=True)
    check = content_sub.add_parser("check", help="validate content/ and list every problem")
    check.add_argument("--dir", type=Path, default=None, help="content folder to check")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except (ConfigError, WrongMasterKeyError, StorageError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ContentError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        print(f"error: content has {len(exc.problems)} problem(s)", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


def _run(args: argparse.Namespace) -> int:
    if args.command == "content":
        problems, notes = check_report(args.dir)
        for problem in problems:
            print(problem)
        for note in notes:
            print(note)
        where = args.dir or content_dir()
        if notes:
            print(f"{len(notes)} gap(s) in disabled languages (not shown to anyone)")
        print(f"{len(problems)} problem(s) in {where}", file=sys.stderr if problems else sys.stdout)
        return 1 if problems else 0
    settings = load_settings()
    if args.command == "health":
        from bot.datalock import is_held  # noqa: PLC0415

        if is_held(settings.data_dir) and settings.data_db.is_file():
            return 0
        print(f"no Steady process is serving {settings.data_dir}", file=sys.stderr)
        return 1
    configure_logging(settings.log_level)
    if args.command == "sandbox":
        from bot.sandbox import run_sandbox  # noqa: PLC0415 - only the sandbox needs it

        _warm_indexes()
        return asyncio.run(run_sandbox(args.data_dir, settings))
    if args.command == "keys":
        return asyncio.run(_rotate(settings))
    if args.command == "backup":
        if args.path is None and args.keys is None:
            raise ConfigError("backup needs a PATH for the data copy, --keys PATH, or both")
        return asyncio.run(_backup(settings, args.path, args.keys))
    if args.command == "stats":
        return asyncio.run(_stats(settings, args.days))
    if settings.token is None:
        raise ConfigError(
            "TELEGRAM_BOT_TOKEN is not set; to try the bot without one, run `python -m bot sandbox`"
        )
    ensure_data_dir(settings.data_dir)
    check_key_placement(settings)
    _warm_indexes()
    return asyncio.run(_serve(settings))


def _warm_indexes() -> None:
    """Built before serving (about a second and 70 MB; docs/performance.md), so no person's
    answer waits on it inside the event loop."""
    from bot.services import zone_names  # noqa: PLC0415

    zone_names.warm()


async def _serve(settings: Settings) -> int:
    from bot.runtime import Runtime  # noqa: PLC0415 - keeps `--help` and `content check` light

    runtime = Runtime(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await runtime.start()
        await stop.wait()
    finally:
        await runtime.stop()
    return 0


async def _rotate(settings: Settings) -> int:
    from bot.storage.keystore import KeyStore  # noqa: PLC0415

    ensure_data_dir(settings.data_dir)
    lock = DataDirLock(settings.data_dir, "rotating keys (the running bot holds the old key)")
    lock.acquire()
    old = resolve_master_key(settings)
    new = MasterKey(random_key())
    try:
        store = await KeyStore.open(settings.key_db, old)
    except BaseException:
        lock.release()
        raise
    try:
        if settings.master_key is None:
            # Write the new key beside the old one first: if re-wrapping fails, the old file
            # still opens the store; if it succeeds, the swap below is one rename.
            pending = settings.key_file.with_name("master.key.new")
            write_key_file(pending, new)
            count = await store.rotate(new)
            pending.replace(settings.key_file)
            print(
                f"Rotated: {count} data key(s) re-wrapped; {settings.key_file} holds the new key."
            )
        else:
            count = await store.rotate(new)
            print(f"Rotated: {count} data key(s) re-wrapped.")
            print("Set BOT_MASTER_KEY to this new value now; the old key no longer works:")
            print(encode_key(new))
    finally:
        await store.close()
        lock.release()
    return 0


async def _backup(settings: Settings, target: Path | None, keys: Path | None) -> int:
    """Consistent copies (SQLite's VACUUM INTO, safe while the bot runs) without the
    sqlite3 command-line tool, which the slim image lacks."""
    from bot.storage.database import Database  # noqa: PLC0415
    from bot.storage.schema import KEYSTORE_MIGRATIONS, MIGRATIONS  # noqa: PLC0415

    copies = [(target, settings.data_db, MIGRATIONS), (keys, settings.key_db, KEYSTORE_MIGRATIONS)]
    wanted = [(to, source, schema) for to, source, schema in copies if to is not None]
    if target is not None and keys is not None and target.resolve() == keys.resolve():
        raise ConfigError("the data copy and the key-store copy need different file names")
    for to, source, _ in wanted:
        if to.exists():
            raise ConfigError(f"{to} already exists; choose a new file name")
        if not source.exists():
            raise ConfigError(f"no database at {source}")
    for to, source, schema in wanted:
        db = await Database.open(source, schema)
        try:
            await db.backup_to(to)
        finally:
            await db.close()
        print(f"Wrote a consistent copy of {source} to {to}.")
    if keys is None:
        print(
            f"The keys are in {settings.key_db}: back it up separately, to a different place "
            "(`backup --keys PATH`). Without it the copy is unreadable; keeping them apart is "
            "what lets /forget erase a person from old backups too."
        )
    else:
        print(
            "Keep the key-store copy apart from the data copy (another disk, another "
            "account): together, and with the master key, they open everything."
        )
    return 0


async def _stats(settings: Settings, days: int) -> int:
    from datetime import UTC, datetime, timedelta  # noqa: PLC0415

    from bot.storage.database import Database  # noqa: PLC0415
    from bot.storage.people import PeopleStore  # noqa: PLC0415
    from bot.storage.schema import MIGRATIONS  # noqa: PLC0415

    if not settings.data_db.exists():
        raise ConfigError(f"no database at {settings.data_db}")
    db = await Database.open(settings.data_db, MIGRATIONS)
    try:
        store = PeopleStore(db)
        since = (datetime.now(UTC) - timedelta(days=days)).date().isoformat()
        print(f"people: {await store.count()}")
        print(f"crisis replies since {since} (day, kind, count):")
        for day, kind, count in await store.crisis_counts(since):
            print(f"  {day}  {kind:<10} {count}")
    finally:
        await db.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
