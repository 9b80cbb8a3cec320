"""The panic word's steps: choosing words, the decoy, the sweep."""

from __future__ import annotations

from bot.content.decoys import start_sequence
from bot.emulator import SentMessage
from tests.helpers.bot import USER, BotUnderTest, buttons_of

WORD = "Blueberry pancakes"

BACK = "violet harbour"

# What the person types in a hurry: the same words, shouted, with a typo.
TYPED = "BLUEBERY PANCAKES!"


def has_button(data: str) -> object:
    return lambda m: any(d == data for _, d in buttons_of(m))


async def settings_menu(bot: BotUnderTest) -> SentMessage:
    await bot.send("/settings")
    return await bot.next(predicate=has_button("dsc:menu"))


async def set_words(
    bot: BotUnderTest, *, back: str | None = None, erase: bool = False, theme: str | None = None
) -> None:
    menu = await settings_menu(bot)
    await bot.press(menu, data="dsc:panic")
    await bot.settle()
    await bot.send(WORD)
    shown = await bot.next(containing="panic word is set")
    if back is not None:
        await bot.press(shown, data="dsc:return")
        await bot.settle()
        await bot.send(back)
        shown = await bot.next(containing="return word is set")
    if erase:
        await bot.press(shown, data="dsc:erase:on")
    if theme is not None:
        await bot.press(shown, data=f"dsc:theme:{theme}")
    await bot.settle()


def decoy_text(bot: BotUnderTest, theme: str = "quote") -> str:
    day = bot.clock().date()
    return bot.offers.discretion.decoys.cover_message(theme, "en", start_sequence(day))


async def panic(bot: BotUnderTest, theme: str = "quote") -> SentMessage:
    await bot.send(TYPED)
    decoy = await bot.next(containing=decoy_text(bot, theme))
    # The wipe is whole whenever it ends, however slow the machine: wait for the chat to
    # show only the decoy (deletions may run on after it), not for a time. A wipe that
    # drops work never gets there and fails here, only later.
    try:
        await bot.until(
            lambda: bot.emu.visible_ids(USER) == [decoy.message_id],
            "the chat shows only the decoy",
        )
    except TimeoutError as exc:
        left = bot.emu.visible_ids(USER)
        raise AssertionError(f"{exc}: ids {left} visible, decoy {decoy.message_id}") from None
    await bot.settle()
    return decoy


async def sweep(bot: BotUnderTest) -> None:
    assert bot.runtime is not None and bot.runtime.app is not None
    await bot.settle()
    await bot.runtime.jobs["self_removal_sweep"].run(bot.runtime.app)
    await bot.settle()
