"""Command line: `python -m bot [serve | sandbox | keys rotate | keys retire | backup PATH |
content check]`.

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
from bot.datalock import DataDirLock
from bot.keys import deliver_new_key, resolve_master_key, retire_old_key, say, stage_rotation
from bot.logs import configure_logging
from bot.storage.database import StorageError
from bot.storage.keystore import KeyStore, RotationError, WrongMasterKeyError

EXIT_FAILED = 1
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
    rotate = keys_sub.add_parser(
        "rotate",
        help="stage a new master key: every data key wrapped under it too; the old key keeps "
        "working until `keys retire`",
    )
    rotate.add_argument(
        "--new-key-file",
        type=Path,
        default=None,
        help="with BOT_MASTER_KEY: write the new key here (mode 0600) unless BOT_NEW_MASTER_KEY "
        "supplies it; in key-file mode it goes to master.key.new",
    )
    keys_sub.add_parser(
        "retire", help="after `keys rotate`, run with the new key: the old key stops working"
    )
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
    if args.command == "keys" and args.keys_command == "retire":
        return asyncio.run(_retire(settings))
    if args.command == "keys":
        return asyncio.run(_rotate(settings, args.new_key_file))
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


async def _rotate(settings: Settings, new_key_file: Path | None) -> int:
    ensure_data_dir(settings.data_dir)
    lock = DataDirLock(settings.data_dir, "rotating keys (the running bot holds the old key)")
    lock.acquire()
    try:
        old = resolve_master_key(settings, rotating=True)
        await (await KeyStore.open(settings.key_db, old)).close()  # a wrong key: one line
        delivered = deliver_new_key(settings, new_key_file)
        try:
            count = await stage_rotation(settings, old, delivered.key)
        except RotationError as exc:
            print(f"error: {exc}; the old key still works", file=sys.stderr)
            return EXIT_FAILED
    finally:
        lock.release()
    try:
        say(
            f"Staged: {count} data key(s) wrapped under the new key, verified; the new key is "
            f"in {delivered.where}. The old key still works."
        )
        if settings.master_key is None:
            say("Finish with `python -m bot keys retire` (master.key.new becomes master.key).")
        else:
            say(
                "Set BOT_MASTER_KEY to the new key, then run `python -m bot keys retire` "
                "with it: only then does the old key stop working."
            )
    except (OSError, ValueError):
        # Unconfirmed: the operator may not know what to do next. Nothing is lost (the old
        # key still opens everything), but this is not a success.
        print("error: could not print the next steps; the old key still works", file=sys.stderr)
        return EXIT_FAILED
    return 0


async def _retire(settings: Settings) -> int:
    ensure_data_dir(settings.data_dir)
    lock = DataDirLock(settings.data_dir, "retiring a key (the running bot holds it)")
    lock.acquire()
    try:
        count = await retire_old_key(settings)
    except RotationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    finally:
        lock.release()
    try:
        say(f"Retired the old master key: {count} data key(s) now open only with the new one.")
    except (OSError, ValueError):
        return EXIT_FAILED
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
