"""Webhook mode's steps: a free port, the hook's address, setting it."""

from __future__ import annotations

import socket

from tests.helpers.bot import BotUnderTest

SECRET = "test_secret-1"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def hook_url(bot: BotUnderTest) -> str:
    assert bot.settings.webhook_url is not None
    return bot.settings.webhook_url


async def set_webhook(bot: BotUnderTest) -> None:
    assert bot.runtime is not None and bot.runtime.app is not None
    await bot.runtime.app.bot.set_webhook(hook_url(bot), secret_token=SECRET)
