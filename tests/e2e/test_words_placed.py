"""Words go to the right place (issue 23).

- A check-in sent after a worksheet question is the latest thing the bot asked: the first
  free text answers the check-in (the journal), and the worksheet question keeps waiting
  for its own answer.
- Free text that answers nothing is offered, never dropped: [Keep in my journal] [Don't
  keep], for a person whose check-ins are off too, and for a 4,000-character message.
- In discreet mode the offer leaves the chat with the words, as discreet messages do.
"""

from __future__ import annotations

from datetime import timedelta

from bot.features.crisis.held import HeldTexts
from tests.helpers.bot import USER, BotUnderTest
from tests.helpers.daily import join, person
from tests.helpers.daily import run as run_daily
from tests.helpers.discretion import BACK, panic, set_words, sweep
from tests.helpers.worksheets import begin, saved_answers

OFFER = "Would you like it in your journal?"


async def journal_texts(bot: BotUnderTest) -> list[str]:
    return [e.text for e in await bot.offers.journal.all(await person(bot))]


async def test_a_check_in_after_the_question_takes_the_first_free_text(
    bot: BotUnderTest,
) -> None:
    await join(bot, time="07:30")
    await begin(bot)  # Question 1 waits
    bot.clock.advance(timedelta(hours=22, minutes=31))  # Tuesday 07:31 in London
    await run_daily(bot)
    await bot.find("Your words are kept")
    bot.skip_all()
    await bot.send("Slept badly, but I got up.")
    await bot.next(containing="Saved to your journal")
    await bot.settle()
    assert await journal_texts(bot) == ["Slept badly, but I got up."]
    assert await saved_answers(bot) == {}
    # The next words answer the question still waiting.
    await bot.send("my answer to the first question")
    await bot.next(containing="Saved")
    await bot.settle()
    assert list((await saved_answers(bot)).values()) == [("my answer to the first question",)]
    assert await journal_texts(bot) == ["Slept badly, but I got up."]


async def test_free_text_is_offered_with_check_ins_off(bot: BotUnderTest) -> None:
    await bot.onboard()  # no daily check-ins
    await bot.send("I feel so confused today, nothing makes sense")
    offer = await bot.next(containing=OFFER)
    await bot.press(offer, "Keep in my journal")
    await bot.next(containing="Kept in your journal")
    await bot.settle()
    assert await journal_texts(bot) == ["I feel so confused today, nothing makes sense"]

    long = ("I keep going over what happened, and it does not get clearer. " * 70)[:4000]
    await bot.send(long)
    offer = await bot.next(containing=OFFER)
    await bot.press(offer, "Keep in my journal")
    await bot.next(containing="Kept in your journal")
    await bot.settle()
    assert long.strip() in await journal_texts(bot)

    await bot.send("not this one")
    offer = await bot.next(containing=OFFER)
    await bot.press(offer, "Don't keep")
    await bot.next(containing="Not kept")
    await bot.settle()
    assert "not this one" not in await journal_texts(bot)
    assert (await person(bot)).profile.part(HeldTexts).texts == ()


async def test_the_offer_leaves_with_the_words_in_discreet_mode(bot: BotUnderTest) -> None:
    await join(bot, discreet=True)
    words = await bot.send("I feel so confused today, nothing makes sense")
    offer = await bot.next(predicate=lambda m: "journal" in (m.text or "").lower())
    await sweep(bot)
    assert not offer.deleted  # time to choose
    bot.clock.advance(timedelta(minutes=11))
    await sweep(bot)
    assert offer.deleted
    assert words in bot.emu.deleted_ids(USER)


async def test_the_offer_is_the_same_message_noted_for_clear_and_held_in_cover(
    bot: BotUnderTest,
) -> None:
    # The offer goes out as JSON and its answer is read for the id alone (issue 25, the
    # framework's `say_id`): the same keyboard reaches the chat, its id is noted for
    # /clear and the panic wipe, and a chat in cover gets no offer at all.
    await bot.onboard()
    words = await bot.send("a note about my day")
    offer = await bot.next(containing=OFFER)
    rows = offer.reply_markup["inline_keyboard"] if offer.reply_markup else []
    assert [b["text"] for b in rows[0]] == ["Keep in my journal", "Don't keep"]
    assert len(rows) > 1 and all("callback_data" in b for row in rows for b in row)
    assert offer.entities is None
    await bot.settle()
    noted = await bot.services.ledger.deletable((await person(bot)).person_id)
    assert offer.message_id in noted and words in noted
    await bot.send("/clear")
    await bot.next(containing="Cleared")
    assert offer.deleted and words in bot.emu.deleted_ids(USER)

    await set_words(bot, back=BACK)
    await panic(bot)
    bot.skip_all()
    await bot.send("another note about my day")
    await bot.settle()
    assert not [m for m in bot.emu.messages_to(USER) if OFFER in (m.text or "") and not m.deleted]
