"""Callback queries expire (issue 23): presses that wait out a backlog are too old to
answer when the bot is back, against the emulator that refuses them as Telegram does."""

from __future__ import annotations

from datetime import timedelta

from tests.helpers.bot import USER, BotUnderTest


async def test_presses_answered_after_a_backlog_are_too_old_and_nothing_breaks(
    bot: BotUnderTest,
) -> None:
    """Telegram lets a callback query be answered only for a short while. Presses that
    wait while the bot is down are too old to answer when it is back: what they asked is
    still done, an unknown one is ignored, and nobody gets "something went wrong"."""
    app = bot
    await app.onboard()
    await app.send("/settings")
    menu = await app.next(containing="Your settings")
    await app.settle()
    await app.stop()
    app.emu.user_presses(USER, menu.message_id, "no-such-feature:x")
    app.emu.user_presses(USER, menu.message_id, "dsc:panic")
    app.clock.advance(timedelta(minutes=2))
    await app.start()
    await app.settle()
    assert app.emu.pending_updates() == 0
    assert menu.edits == 1  # what the press asked for (the panic word's step), done
    answers = [a for a in app.emu.callback_answers if a["message_id"] == menu.message_id]
    assert answers == []  # both refused as too old, as Telegram would
    assert not any("went wrong" in (m.text or "") for m in app.emu.messages_to(USER))
