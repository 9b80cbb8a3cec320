"""Command line: `python -m bot [serve | sandbox | keys rotate | keys retire | keys reanchor |
backup [PATH] [--keys PATH] | stats | health | webhook set|delete|info | content check]`.

Every failure ends with one line on stderr and an exit code (README, Exit codes):
0 done; 1 a step that failed or could not be confirmed, or an unexpected error; 2 the
configuration, a key, the storage or the content is wrong (a token Telegram refuses
included); 3 Telegram could not be reached at start-up, after retries (a supervisor
starts it again later); 4 no space left on the disk or in the database. The traceback of
an unexpected error is logged at DEBUG only, with the token taken out.
"""

from __future__ import annotations

import gc

if __name__ == "__main__":
    # `python -m bot`: no collections while the bot's modules import, about a tenth of the
    # first poll for a few dozen unreachable objects (issue 25). `main` turns the collector
    # on again for every command but serving, whose Runtime does so at its first poll.
    gc.disable()

import asyncio
import logging
import os
import signal
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from bot.config import (
    ConfigError,
    Settings,
    check_key_placement,
    ensure_data_dir,
    load_settings,
)
from bot.content.loader import ContentError, check_all, content_dir
from bot.core.errors import is_disk_full
from bot.datalock import DataDirLock
from bot.features.crisis.screen import ModelScreen
from bot.keys import deliver_new_key, resolve_master_key, retire_old_key, say, stage_rotation
from bot.logs import configure_logging
from bot.matching.crisis import CrisisDetector
from bot.storage.database import StorageError
from bot.storage.keystore import KeyStore, RotationError, WrongMasterKeyError

if TYPE_CHECKING:
    import argparse

EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_UNREACHABLE = 3
EXIT_DISK_FULL = 4
log = logging.getLogger("bot")


def main(argv: list[str] | None = None) -> int:
    # Everything the bot writes (databases, copies, key files, caches, by any library) is
    # for its owner alone, whatever the shell's umask.
    os.umask(0o077)
    given = sys.argv[1:] if argv is None else argv
    try:
        # Serving, the command every start waits on, needs no parsing: argparse and the
        # grammar were a hundredth or two of the first poll (issue 25).
        if given in ([], ["serve"]):
            return _run(None)
        from bot.command_line import parser  # noqa: PLC0415

        args = parser().parse_args(given)
        if args.command not in (None, "serve"):
            gc.enable()  # off while the modules imported (above): only serving keeps it off
        return _run(args)
    except ContentError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        print(f"error: content has {len(exc.problems)} problem(s)", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # every other failure: one line, a documented code
        line, code = _failure(exc)
        _log_traceback(exc)
        print(f"error: {line}", file=sys.stderr)
        return code


def _failure(exc: BaseException) -> tuple[str, int]:
    """The one line and the exit code for a failure. Never the exception's text where it
    may carry the token (PTB puts it in InvalidToken's)."""
    from telegram.error import InvalidToken, NetworkError  # noqa: PLC0415

    if is_disk_full(exc):
        return "no space left on the disk (or the database is full); free some and start again", (
            EXIT_DISK_FULL
        )
    if isinstance(exc, ConfigError | WrongMasterKeyError | StorageError):
        return str(exc), EXIT_USAGE
    if isinstance(exc, InvalidToken):
        return (
            "Telegram refused the bot token (TELEGRAM_BOT_TOKEN): check it with @BotFather",
            EXIT_USAGE,
        )
    if isinstance(exc, NetworkError):  # TimedOut included
        return (
            f"cannot reach Telegram at start-up ({type(exc).__name__}, after retries); "
            "a supervisor can start the bot again later",
            EXIT_UNREACHABLE,
        )
    return f"stopped by an unexpected {type(exc).__name__} (details at BOT_LOG_LEVEL=DEBUG)", (
        EXIT_FAILED
    )


def _log_traceback(exc: BaseException) -> None:
    """At DEBUG only, and without the token, which URLs and PTB's messages can carry."""
    if not log.isEnabledFor(logging.DEBUG):
        return
    text = "".join(traceback.format_exception(exc))
    token = os.environ.get("TELEGRAM_BOT_TOKEN", "").strip()
    for secret in {token, token.partition(":")[2]} - {""}:
        text = text.replace(secret, "[token withheld]")
    log.debug("the failure's traceback:\n%s", text)


def _run(args: argparse.Namespace | None) -> int:
    """The command `args` names; None: serving, read from the environment alone."""
    if args is None:
        return _serve_from_environment()
    if args.command == "content" and args.content_command == "compile":
        return _compile(args.cache_dir)
    if args.command == "content":
        result = check_all(args.dir)
        problems = result.problems
        for line in (*problems, *result.notes):
            print(line)
        for line in result.review:
            print(f"review: {line}")
        where = args.dir or content_dir()
        if result.notes:
            print(f"{len(result.notes)} gap(s) in disabled languages (not shown to anyone)")
        if result.review:
            print(f"{len(result.review)} difference(s) to review (listed, not failing)")
        print(f"{len(problems)} problem(s) in {where}", file=sys.stderr if problems else sys.stdout)
        return 1 if problems else 0
    settings = load_settings()
    if args.command == "health":
        from bot.datalock import is_held  # noqa: PLC0415

        if is_held(settings.data_dir) and (settings.on_postgres or settings.data_db.is_file()):
            return 0
        print(f"no Steady process is serving {settings.data_dir}", file=sys.stderr)
        return 1
    configure_logging(settings.log_level)
    if args.command == "sandbox":
        from bot.sandbox import run_sandbox  # noqa: PLC0415 - only the sandbox needs it

        _warm_indexes()
        return asyncio.run(run_sandbox(args.data_dir, settings))
    if args.command == "keys" and args.keys_command == "retire":
        return asyncio.run(_retire(settings))
    if args.command == "keys" and args.keys_command == "reanchor":
        if not args.confirm:
            print(
                "error: `keys reanchor` accepts the data database as it is now, undoing any "
                "rollback it holds; run it again with --confirm if you restored it on purpose",
                file=sys.stderr,
            )
            return EXIT_USAGE
        return asyncio.run(_reanchor(settings))
    if args.command == "keys":
        return asyncio.run(_rotate(settings, args.new_key_file))
    if args.command == "backup":
        if args.path is None and args.keys is None:
            raise ConfigError("backup needs a PATH for the data copy, --keys PATH, or both")
        return asyncio.run(_backup(settings, args.path, args.keys))
    if args.command == "stats":
        return asyncio.run(_stats(settings, args.days))
    if args.command == "webhook":
        return asyncio.run(_webhook(settings, args.webhook_command))
    return _serve_from_environment(settings)


def _serve_from_environment(settings: Settings | None = None) -> int:
    if settings is None:
        settings = load_settings()
        configure_logging(settings.log_level)
    if settings.token is None:
        raise ConfigError(
            "TELEGRAM_BOT_TOKEN is not set; to try the bot without one, run `python -m bot sandbox`"
        )
    ensure_data_dir(settings.data_dir)
    check_key_placement(settings)
    return asyncio.run(_serve(settings))


def _compile(cache_dir: Path | None) -> int:
    from bot.content.compiled import compile_into  # noqa: PLC0415

    file = compile_into(cache_dir or load_settings().content_cache)  # problems: ContentError
    if file is None:
        print("error: could not write the compiled content", file=sys.stderr)
        return EXIT_FAILED
    print(f"Wrote the compiled content to {file}.")
    return 0


def _warm_indexes(detector: CrisisDetector | None = None, model: ModelScreen | None = None) -> None:
    """In a thread once the bot polls and the crisis model has loaded (in its own worker:
    not both at once on a small host's cores), none of it before the first poll (issue 25)
    or on the event loop: the crisis expressions the compiled content left uncompiled (a
    message needing one compiles it), then the time-zone names' index (about a second)."""
    from bot.geo import zone_index  # noqa: PLC0415

    if model is not None:
        model.wait_loaded()  # set however the loading ends
    if detector is not None:
        detector.warm()
    zone_index.warm()
    gc.freeze()  # what was just built lives as long as the process (runtime.py says why)


async def _serve(settings: Settings) -> int:
    gc.disable()  # until the first poll (the Runtime enables it): collections were 0.1 s of it
    from bot.runtime import Runtime  # noqa: PLC0415 - keeps `--help` and `content check` light

    runtime = Runtime(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await runtime.start()
        detector = runtime.services.content.detector if runtime.services else None
        model = runtime.services.crisis_model if runtime.services else None
        warming = loop.run_in_executor(None, _warm_indexes, detector, model)
        await stop.wait()
        warming.cancel()  # not started yet, or done: a build under way finishes on its own
    finally:
        await runtime.stop()
    return 0


async def _rotate(settings: Settings, new_key_file: Path | None) -> int:
    ensure_data_dir(settings.data_dir)
    lock = DataDirLock(settings.data_dir, "rotating keys (the running bot holds the old key)")
    lock.acquire()
    try:
        old = resolve_master_key(settings, rotating=True)
        await (await KeyStore.open(settings.key_target, old)).close()  # a wrong key: one line
        delivered = deliver_new_key(settings, new_key_file)
        try:
            count = await stage_rotation(settings, old, delivered.key)
        except RotationError as exc:
            delivered.withdraw()
            print(f"error: {exc}; the old key still works", file=sys.stderr)
            return EXIT_FAILED
        except BaseException:
            delivered.withdraw()  # nothing is wrapped under it: staging was undone
            raise
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


async def _reanchor(settings: Settings) -> int:
    from bot.people.row_versions import reanchor  # noqa: PLC0415
    from bot.runtime import open_storage  # noqa: PLC0415 - keeps `--help` light
    from bot.storage.journal import JournalStore  # noqa: PLC0415
    from bot.storage.people import PeopleStore  # noqa: PLC0415
    from bot.storage.worksheets import WorksheetStore  # noqa: PLC0415

    ensure_data_dir(settings.data_dir)
    lock = DataDirLock(settings.data_dir, "re-anchoring (the running bot holds the anchors)")
    lock.acquire()
    try:
        storage = await open_storage(settings)
        try:
            db = storage.db
            count = await reanchor(
                storage.keys, PeopleStore(db), JournalStore(db), WorksheetStore(db)
            )
        finally:
            await storage.close()
    finally:
        lock.release()
    try:
        say(f"Re-anchored: the current rows of {count} people are now the newest.")
    except (OSError, ValueError):
        return EXIT_FAILED
    return 0


async def _backup(settings: Settings, target: Path | None, keys: Path | None) -> int:
    """Consistent copies (SQLite's VACUUM INTO, safe while the bot runs) without the
    sqlite3 command-line tool, which the slim image lacks."""
    from bot.storage.database import Database  # noqa: PLC0415
    from bot.storage.schema import KEYSTORE_MIGRATIONS, MIGRATIONS  # noqa: PLC0415

    if settings.on_postgres:
        raise ConfigError(
            "on PostgreSQL, back up with pg_dump or the server's backups: the key store's "
            "database to a different place, with its own retention (README, Backups)"
        )
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

    from bot.features.crisis.memory import CHECK_PREFIX  # noqa: PLC0415
    from bot.storage.engines import open_data_database  # noqa: PLC0415
    from bot.storage.people import PeopleStore  # noqa: PLC0415

    if not settings.on_postgres and not settings.data_db.exists():
        raise ConfigError(f"no database at {settings.data_db}")
    db = await open_data_database(settings.data_target)
    try:
        store = PeopleStore(db)
        since = (datetime.now(UTC) - timedelta(days=days)).date().isoformat()
        print(f"people: {await store.count()}")
        counts = await store.crisis_counts(since)
        print(f"crisis replies since {since} (day, kind, count):")
        for day, kind, count in counts:
            if not kind.startswith(CHECK_PREFIX):
                print(f"  {day}  {kind:<15} {count}")
        print(f"safety checks since {since} (day, kind found, count):")
        for day, kind, count in counts:
            if kind.startswith(CHECK_PREFIX):
                print(f"  {day}  {kind.removeprefix(CHECK_PREFIX):<15} {count}")
    finally:
        await db.close()
    return 0


# Telegram's default, and what one reverse proxy in front of a few replicas handles easily.
WEBHOOK_MAX_CONNECTIONS = 40


async def _webhook(settings: Settings, command: str) -> int:
    from telegram import Bot  # noqa: PLC0415
    from telegram.error import TelegramError  # noqa: PLC0415

    from bot.transport.intake import ALLOWED_UPDATES  # noqa: PLC0415

    if settings.token is None:
        raise ConfigError("TELEGRAM_BOT_TOKEN is not set")
    url = settings.webhook_url
    if command == "set" and (url is None or settings.webhook_secret is None):
        raise ConfigError("webhook set needs BOT_WEBHOOK_URL and BOT_WEBHOOK_SECRET")
    bot = Bot(settings.token, base_url=settings.api_url or "https://api.telegram.org/bot")
    try:
        async with bot:
            if command == "set" and url is not None:
                await bot.set_webhook(
                    url,
                    secret_token=settings.webhook_secret,
                    max_connections=WEBHOOK_MAX_CONNECTIONS,
                    allowed_updates=list(ALLOWED_UPDATES),
                    drop_pending_updates=False,
                )
                print(f"Telegram now posts updates to {settings.webhook_url}.")
            elif command == "delete":
                await bot.delete_webhook(drop_pending_updates=False)
                print("Telegram stopped posting updates; they wait for long polling.")
            else:
                info = await bot.get_webhook_info()
                print(f"url: {info.url or '(none: long polling)'}")
                print(f"pending updates: {info.pending_update_count}")
                print(f"max connections: {info.max_connections}")
                print(f"allowed updates: {', '.join(info.allowed_updates or ()) or 'all'}")
                if info.last_error_date is not None:
                    print(f"last error: {info.last_error_date:%Y-%m-%d %H:%M:%S} UTC")
                    print(f"  {info.last_error_message}")
    except TelegramError as exc:
        print(f"error: Telegram refused: {type(exc).__name__}: {exc.message}", file=sys.stderr)
        return EXIT_FAILED
    return 0


if __name__ == "__main__":
    sys.exit(main())
