"""The command line's grammar (`python -m bot --help`): its commands and their options.

Apart from bot/__main__.py, which runs them, so that what a command does and what it
accepts can each be read on their own.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def parser() -> argparse.ArgumentParser:
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
    reanchor = keys_sub.add_parser(
        "reanchor",
        help="after restoring a data backup older than the key store: accept the rows now "
        "there as the newest, so nobody is refused as rolled back",
    )
    reanchor.add_argument(
        "--confirm",
        action="store_true",
        help="required: the data database was restored on purpose (this ends rollback "
        "protection for what the backup undid)",
    )
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
    webhook = sub.add_parser(
        "webhook", help="the deploy step of webhook mode: tell Telegram where to post updates"
    )
    webhook_sub = webhook.add_subparsers(dest="webhook_command", required=True)
    webhook_sub.add_parser(
        "set", help="post updates to BOT_WEBHOOK_URL with BOT_WEBHOOK_SECRET (stops polling)"
    )
    webhook_sub.add_parser("delete", help="stop posting; updates wait for long polling again")
    webhook_sub.add_parser("info", help="where Telegram posts, what is pending, the last error")
    stats = sub.add_parser("stats", help="counts for the operator: people, crisis replies")
    stats.add_argument("--days", type=int, default=30, help="how many days back (default 30)")
    content = sub.add_parser("content", help="content tools")
    content_sub = content.add_subparsers(dest="content_command", required=True)
    check = content_sub.add_parser("check", help="validate content/ and list every problem")
    check.add_argument("--dir", type=Path, default=None, help="content folder to check")
    compile_ = content_sub.add_parser(
        "compile",
        help="validate content/ and write its compiled form (a quick start; at build time)",
    )
    compile_.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        help="where to write it (default BOT_CACHE_DIR, else BOT_DATA_DIR/cache)",
    )
    return parser
