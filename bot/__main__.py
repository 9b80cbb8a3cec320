"""Command line: `python -m bot [serve | sandbox | keys rotate | backup PATH | content check]`.

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

from bot.config import ConfigError, Settings, ensure_data_dir, load_settings
from bot.content import ContentError, check_content, content_dir
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
    backup = sub.add_parser("backup", help="write a consistent copy of the data database")
    backup.add_argument("path", type=Path, help="where to write the copy (must not exist)")
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
        problems = check_content(args.dir)
        for problem in problems:
            print(problem)
        where = args.dir or content_dir()
        print(f"{len(problems)} problem(s) in {where}", file=sys.stderr if problems else sys.stdout)
        return 1 if problems else 0
    settings = load_settings()
    configure_logging(settings.log_level)
    if args.command == "sandbox":
        from bot.sandbox import run_sandbox  # noqa: PLC0415 - only the sandbox needs it

        return asyncio.run(run_sandbox(args.data_dir, settings))
    if args.command == "keys":
        return asyncio.run(_rotate(settings))
    if args.command == "backup":
        return asyncio.run(_backup(settings, args.path))
    if args.command == "stats":
        return asyncio.run(_stats(settings, args.days))
    if settings.token is None:
        raise ConfigError(
            "TELEGRAM_BOT_TOKEN is not set; to try the bot without one, run `python -m bot sandbox`"
        )
    return asyncio.run(_serve(settings))


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


async def _backup(settings: Settings, target: Path) -> int:
    from bot.storage.database import Database  # noqa: PLC0415
    from bot.storage.schema import MIGRATIONS  # noqa: PLC0415

    if target.exists():
        raise ConfigError(f"{target} already exists; choose a new file name")
    if not settings.data_db.exists():
        raise ConfigError(f"no database at {settings.data_db}")
    db = await Database.open(settings.data_db, MIGRATIONS)
    try:
        await db.backup_to(target)
    finally:
        await db.close()
    print(f"Wrote a consistent copy of {settings.data_db} to {target}.")
    print(
        f"The keys are in {settings.key_db}: back it up separately, to a different place. "
        "Without it the copy is unreadable; keeping them apart is what lets /forget "
        "erase a person from old backups too."
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
