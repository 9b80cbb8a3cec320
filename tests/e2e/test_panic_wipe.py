"""The panic wipe is whole whatever the load (issue 26): everything known is deleted
before the decoy appears, however slowly the store answers."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from bot.emulator import SentMessage
from tests.helpers.bot import USER, BotUnderTest
from tests.helpers.discretion import TYPED, decoy_text, set_words

# A store this slow (a loaded machine, a busy PostgreSQL) is far past the 0.3 s the wipe
# used to give it before sending the decoy with the chat still full.
SLOW_STORE = 1.0


async def test_a_slow_store_still_leaves_only_the_decoy_when_it_appears(
    bot: BotUnderTest, monkeypatch: pytest.MonkeyPatch
) -> None:
    await bot.onboard()
    await set_words(bot)
    for text in ("a note about my day", "another note", "/worksheets"):
        await bot.send(text)
        await bot.next()
    await bot.settle()
    ledger = bot.services.ledger
    await ledger.flush()  # every id is in the store now, none only in memory
    assert len(bot.emu.visible_ids(USER)) > 8
    stored = ledger.stored

    async def slow_stored(person_id: str) -> list[int]:
        await asyncio.sleep(SLOW_STORE)  # the injected slowness, not a wait for the bot
        return await stored(person_id)

    monkeypatch.setattr(ledger, "stored", slow_stored)
    seen_with_decoy: list[list[int]] = []
    decoy = decoy_text(bot)

    def on_message(message: SentMessage, event: str) -> None:
        if event == "sent" and message.chat_id == USER and message.text == decoy:
            seen_with_decoy.append(bot.emu.visible_ids(USER))

    bot.emu.add_listener(on_message)
    await bot.send(TYPED)
    shown = await bot.next(containing=decoy, timeout=30)
    # At the moment the decoy appeared, it stood alone.
    assert seen_with_decoy == [[shown.message_id]]
    await bot.settle()
    assert bot.emu.visible_ids(USER) == [shown.message_id]


@pytest.mark.parametrize("loss", ["row deleted", "index unreadable"])
async def test_the_panic_word_works_when_its_index_row_is_lost(
    bot: BotUnderTest, loss: str
) -> None:
    """Issue 27, finding 9: the index of people with a panic word is only a list; losing
    a row of it (or all of it) must not turn the word into a worksheet answer."""
    await bot.onboard()
    await set_words(bot)
    await bot.send("/worksheets")
    await bot.next(containing="Worksheets")
    await bot.settle()
    db = bot.services.db
    if loss == "row deleted":
        await db.execute("DELETE FROM panic_words")
    else:
        await db.execute("DROP TABLE panic_words")
    await bot.restart()
    assert bot.services.cover.count() == 0  # memory knows of no word now
    bot.skip_all()
    await bot.send(TYPED)
    shown = await bot.next(containing=decoy_text(bot), timeout=30)
    await bot.settle()
    assert bot.emu.visible_ids(USER) == [shown.message_id]
    person = await bot.services.people.load(USER)
    assert person is not None and person.profile.cover
    if loss == "row deleted":  # put back where it was lost
        assert await bot.services.discretion.store.marked() == [person.person_id]


async def test_one_message_past_deleting_does_not_keep_the_rest_in_the_chat(
    bot: BotUnderTest,
) -> None:
    """Telegram's deleteMessages refuses a whole batch when one id in it is past the
    48-hour window (the emulator does too, issue 23). At the window's edge our ledger
    still lists an id Telegram will not take (its clock and ours differ by rounding, or
    more): every other message must still go."""
    await bot.onboard()
    await set_words(bot)
    await bot.settle()
    await bot.services.ledger.flush()
    first_ids = set(bot.emu.visible_ids(USER))
    start = bot.clock()
    bot.clock.advance(timedelta(hours=47))
    for text in ("a note about my day", "another note", "/worksheets"):
        await bot.send(text)
        await bot.next()
    await bot.settle()
    await bot.services.ledger.flush()
    later_ids = set(bot.emu.visible_ids(USER)) - first_ids
    assert len(later_ids) >= 6
    # The first messages' dates are whole seconds at `start`: half a second past 48 hours
    # they are too old for Telegram, and still inside the ledger's whole-second window.
    bot.clock.set(start + timedelta(hours=48, milliseconds=500))
    await bot.send(TYPED)
    shown = await bot.next(containing=decoy_text(bot), timeout=30)
    await bot.settle()
    visible = set(bot.emu.visible_ids(USER))
    assert later_ids.isdisjoint(visible), "deletable messages were left in the chat"
    assert shown.message_id in visible
    assert visible - {shown.message_id} <= first_ids  # only what Telegram refuses stays
    assert visible & first_ids, "no batch was refused: the test proved nothing"
