"""Service messages in a private chat (issue 23): Telegram's notes about the chat itself
are not something the person wrote, so the bot says nothing to them. The shapes are the
Bot API's own (a Message whose only content field is the service field)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers.bot import USER, BotUnderTest

SERVICE_FIELDS: list[tuple[str, dict[str, Any]]] = [
    # Settings > Auto-delete messages > 1 day
    ("message_auto_delete_timer_changed", {"message_auto_delete_time": 86400}),
    # and turned off again
    ("message_auto_delete_timer_changed", {"message_auto_delete_time": 0}),
    # a chat wallpaper chosen
    (
        "chat_background_set",
        {
            "type": {
                "type": "fill",
                "fill": {"type": "solid", "color": 3355443},
                "dark_theme_dimming": 20,
            }
        },
    ),
    # the person allowed the bot to write (a mini app or a login widget)
    ("write_access_allowed", {"from_request": True}),
]


@pytest.mark.parametrize("started", [False, True])
async def test_service_messages_get_no_reply(bot: BotUnderTest, started: bool) -> None:
    if started:
        await bot.onboard()
    bot.skip_all()
    welcome_or_last = bot.emu.messages_to(USER)
    for field, value in SERVICE_FIELDS:
        await bot.send(other=(field, value))
    if welcome_or_last:
        # Pinning one of the bot's messages: the service message quotes it whole.
        pinned = welcome_or_last[-1]
        await bot.send(
            other=(
                "pinned_message",
                {
                    "message_id": pinned.message_id,
                    "date": 1764493200,
                    "chat": {"id": USER, "type": "private", "first_name": "Test"},
                    "text": pinned.text or "",
                },
            )
        )
    await bot.settle()
    assert bot.unread() == []
    # The bot is still listening: a real message right after gets its reply.
    await bot.send("/menu")
    await bot.next()
