"""Crisis keywords through the real bot: in every state, never waiting on storage."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from telegram import Chat
from telegram.constants import ChatType

from bot.core.rich_text import Rich, Span
from bot.emulator import SentMessage
from bot.features.checkins.prefs import CheckinPrefs
from bot.features.crisis.held import HeldTexts
from bot.framework.chat import say_urgent
from bot.framework.context import Context
from tests.helpers.bot import USER, BotUnderTest, buttons_of
from tests.helpers.daily import entries, prompt_arrives
from tests.helpers.worksheets import (
    answer,
    begin,
    has_button,
    labels,
    person_of,
    saved_answers,
    sheet,
)

CHECK = "Are you safe right now?"


async def test_before_start_gives_likely_numbers_and_set_country_first(bot: BotUnderTest) -> None:
    await bot.send("help")
    reply = await bot.next()
    text = reply.text or ""
    # English speakers: the US, the UK, Canada and Ireland, then what works from a mobile.
    assert "• United States: 911" in text and "• United Kingdom: 999" in text
    assert "112 and 911 work from most mobile phones" in text
    assert "North and South America" not in text
    assert "findahelpline" in text.lower() or "Find A Helpline" in text
    assert "/guide" in text  # plain "help" may have meant "how do I use this"
    assert buttons_of(reply)[0] == ("Set my country", "crisis:where:g")
    await bot.settle()
    assert bot.unread() == []  # no "send /start" on top of the crisis reply


async def test_danger_leads_with_emergency_and_abuse_line_for_the_country(
    bot: BotUnderTest,
) -> None:
    await bot.onboard(country="United Kingdom")
    await bot.send("I think he's outside the house right now")
    reply = await bot.next()
    text = reply.text or ""
    assert text.index("999") < text.index("0808 2000 247")
    assert "press 55" in text
    assert "safe to call" in text
    assert "outside the house" not in text  # never echo what the person wrote
    labels = [label for label, _ in buttons_of(reply)]
    assert "Clear this from the chat" in labels
    assert "Set my country" not in labels


async def test_self_harm_leads_with_the_crisis_line(bot: BotUnderTest) -> None:
    await bot.onboard(country="Germany")
    await bot.send("honestly I just want to die")
    text = (await bot.next()).text or ""
    assert "0800 111 0 111" in text
    assert text.index("0800 111 0 111") < text.index("112")
    assert "help is possible" in text


async def test_mid_onboarding_keeps_the_question_open(bot: BotUnderTest) -> None:
    await bot.send("/start")
    await bot.next(containing="Which country")
    await bot.send("HEEELP!!!")
    await bot.next(containing="112")
    await bot.settle()
    assert bot.unread() == []  # the country question is not re-asked or complained about
    await bot.send("Ireland")
    await bot.next(containing="Ireland")


async def test_edited_message_and_photo_caption_trigger(bot: BotUnderTest) -> None:
    await bot.onboard(country="United States")
    message_id = await bot.send("an ordinary day")
    await bot.next()
    await bot.edit(message_id, "an ordinary day, but I'm not safe at home")
    await bot.next(containing="911")
    await bot.send(photo=True, caption="SOS")
    await bot.next(containing="988")
    await bot.settle()
    assert bot.unread() == []  # the caption's crisis reply replaces the "text only" note


async def test_sos_and_help_commands(bot: BotUnderTest) -> None:
    await bot.onboard(country="France")
    await bot.send("/sos")
    await bot.next(containing="3114")
    await bot.send("/help")
    await bot.next(containing="3114")
    await bot.next(containing="How Steady works")


async def test_clear_this_deletes_both_messages(bot: BotUnderTest) -> None:
    await bot.onboard()
    trigger = await bot.send("danger")
    reply = await bot.next(containing="999")
    await bot.press(reply, "Clear this from the chat")
    await bot.settle()
    assert {trigger, reply.message_id} <= bot.emu.deleted_ids(USER)


async def test_more_lines_and_grounding(bot: BotUnderTest) -> None:
    await bot.onboard()
    await bot.send("help")
    reply = await bot.next(containing="999")
    await bot.press(reply, "More support lines")
    more = await bot.next(containing="Domestic abuse support")
    assert "Men's Advice Line" in (more.text or "")
    await bot.press(more, "grounding")
    await bot.next(containing="feet on the floor")


async def test_reply_goes_out_when_storage_is_down(bot: BotUnderTest) -> None:
    await bot.onboard(country="Australia")
    await bot.services.db.conn.close()  # the data database is gone from under the bot
    await bot.services.keys.db.conn.close()
    await bot.send("please help me he is going to hurt me")
    reply = await bot.next()
    assert "000" in (reply.text or "")  # the country was still known, from memory


async def test_reply_after_restart_with_storage_down_uses_international_lines(
    bot: BotUnderTest,
) -> None:
    await bot.onboard(country="Australia")
    await bot.restart()  # memory is empty again
    await bot.services.db.conn.close()
    await bot.send("danger")
    reply = await bot.next()
    assert "112" in (reply.text or "")
    assert "Set my country" in [label for label, _ in buttons_of(reply)]


async def test_reply_does_not_wait_behind_the_persons_own_stuck_update(bot: BotUnderTest) -> None:
    await bot.onboard()
    # Held back long enough that even a loaded machine answers the crisis word first.
    bot.emu.inject_fault("sendMessage", "429", times=1, chat_id=USER, retry_after=10)
    sends_before = bot.emu.stats["sendMessage"]
    await bot.send("just saying hello")  # its reply hits flood control and waits 10 s
    await bot.emu.wait_for_call("sendMessage", count=sends_before + 1)
    await bot.send("danger")
    first = await bot.next()
    assert "999" in (first.text or "")  # the crisis reply overtook the stuck one
    await bot.next(containing="/worksheets")  # and the stuck one still arrives


async def test_everything_on_the_crisis_path_can_be_cleared(bot: BotUnderTest) -> None:
    await bot.onboard()
    await bot.send("help")
    reply = await bot.next(containing="999")
    await bot.press(reply, "More support lines")
    more = await bot.next(containing="Domestic abuse support")
    await bot.press(more, "grounding")
    grounding = await bot.next(containing="feet on the floor")
    await bot.send("/help")
    await bot.next(containing="999")
    guide = await bot.next(containing="How Steady works")
    await bot.send("/clear")
    await bot.next(containing="Cleared")
    deleted = bot.emu.deleted_ids(USER)
    for message in (reply, more, grounding, guide):
        assert message.message_id in deleted


async def test_country_without_local_lines_is_said_plainly(bot: BotUnderTest) -> None:
    await bot.send("/start")
    await bot.next(containing="Which country")
    await bot.send("Poland")
    await bot.next(containing="Poland")
    await bot.settle()
    bot.skip_all()
    await bot.send("danger")
    reply = await bot.next(containing="112")
    text = reply.text or ""
    assert "support lines for Poland" in text
    assert "112 or 997 or 999" in text  # Poland's own emergency numbers, not the EU's alone
    assert "Set my country" not in [label for label, _ in buttons_of(reply)]


async def test_silent_setting_is_respected(bot: BotUnderTest) -> None:
    await bot.onboard()
    await bot.send("/settings")
    menu = await bot.next(containing="Your settings")
    await bot.press(menu, "Make check-ins silent")
    await bot.settle()
    await bot.send("he is outside")
    reply = await bot.next(containing="999")
    assert reply.disable_notification


async def test_set_my_country_mid_onboarding_goes_on_with_onboarding(bot: BotUnderTest) -> None:
    await bot.send("/start")
    await bot.next(containing="Which country")
    await bot.send("help")
    reply = await bot.next(containing="112")
    await bot.press(reply, "Set my country")
    await bot.next(containing="Which country")
    await bot.send("Ireland")
    await bot.next(containing="1800 341 900")  # the reply again, with Ireland's lines
    await bot.next(containing="check-in once a day")  # onboarding continues, not settings


# --- issue 9: a next step for everyone, known or not ------------------------------------------


async def test_unknown_person_picks_a_country_and_gets_local_lines(bot: BotUnderTest) -> None:
    await bot.send("I want to die")  # the very first message, before /start
    reply = await bot.next(containing="help is possible")
    await bot.press(reply, "Set my country")
    ask = await bot.next(containing="Which country are you in?")
    labels = [label for label, _ in buttons_of(ask)]
    assert labels[:3] == ["United States", "United Kingdom", "Canada"]  # English speakers'
    await bot.press(ask, "Ireland")
    local = await bot.next(containing="Your country: Ireland.")
    text = local.text or ""
    assert "Samaritans Ireland: call 116 123" in text
    assert "999 or 112" in text
    assert "Set my country" not in [label for label, _ in buttons_of(local)]
    await bot.settle()
    # Remembered: in memory for the next reply, and stored like the onboarding country.
    await bot.send("he is outside the door")
    again = await bot.next(containing="1800 341 900")
    assert "Set my country" not in [label for label, _ in buttons_of(again)]
    person = await bot.services.people.load(USER)
    assert person is not None and person.profile.country == "IE"
    assert not person.profile.onboarded
    await bot.restart()
    await bot.send("danger")
    await bot.next(containing="1800 341 900")  # from storage after a restart


async def test_country_typed_in_spanish_is_understood(bot: BotUnderTest) -> None:
    spanish = bot.services.content.locales["es"].texts
    await bot.send("socorro", language_code="es")
    reply = await bot.next(containing="911")
    await bot.press(reply, spanish("crisis_help.btn_country"))
    ask = await bot.next(containing=spanish("crisis_help.ask_country")[:20])
    first = [label for label, _ in buttons_of(ask)][:3]
    assert set(first) <= {"España", "México", "Argentina"}  # ordered by language, not chosen
    await bot.send("Alemania")
    local = await bot.next(containing=spanish("crisis_help.country_set", country="Alemania")[:20])
    assert "116 016" in (local.text or "")
    await bot.settle()
    assert bot.unread() == []  # the typed name is not also answered as a stray message


async def test_typed_nation_gives_its_own_lines(bot: BotUnderTest) -> None:
    french = bot.services.content.locales["fr"].texts
    # Telegram in French, the words in English: the reply follows the person's language.
    await bot.send("please help me he is going to hurt me", language_code="fr")
    reply = await bot.next(containing="911")
    await bot.press(reply, french("crisis_help.btn_country"))
    await bot.next(containing=french("crisis_help.ask_country")[:20])
    await bot.send("Écosse")
    local = await bot.next(containing=french("crisis_help.country_set", country="Écosse")[:20])
    text = local.text or ""
    assert "0800 027 1234" in text  # Scotland's own abuse line
    assert "0808 2000 247" not in text  # not England's
    silent = bot.services.content.locales["fr"].book.helplines["GB"].lines[0].silent_option
    assert silent and silent in text  # "press 55", in French


async def test_unknown_country_name_asks_again_kindly(bot: BotUnderTest) -> None:
    await bot.send("help")
    reply = await bot.next(containing="911")
    await bot.press(reply, "Set my country")
    await bot.next(containing="Which country are you in?")
    await bot.send("Atlantis")
    again = await bot.next(containing="couldn't find a country")
    assert len(buttons_of(again)) >= 3
    await bot.settle()
    assert bot.unread() == []
    await bot.send("Nederland")
    await bot.next(containing="0800-2000")


async def test_uk_reply_asks_which_nation(bot: BotUnderTest) -> None:
    await bot.onboard(country="United Kingdom")
    await bot.send("he is outside")
    reply = await bot.next(containing="999")
    text = reply.text or ""
    assert "Scotland" in text and "0800 027 1234" in text  # each nation's line, by name
    assert text.count("press 55") == 1  # the silent option, once, without a doubled lead-in
    await bot.press(reply, "Wales")
    wales = await bot.next(containing="Your country: Wales.")
    assert "0808 80 10 800 · text 07860 077333" in (wales.text or "")
    await bot.settle()
    person = await bot.services.people.load(USER)
    assert person is not None and person.profile.country == "GB-WLS"
    assert person.profile.onboarded  # choosing a nation changes nothing else


async def test_grounding_goes_one_step_at_a_time_and_ends_with_a_way_back(
    bot: BotUnderTest,
) -> None:
    await bot.onboard()
    await bot.send("help")
    reply = await bot.next(containing="999")
    await bot.press(reply, "grounding")
    step = await bot.next(containing="feet on the floor")
    steps = 1
    while "How are you now?" not in (step.text or ""):
        assert steps < 10
        await bot.press(step, "Tap when you're ready")
        step = await bot.next()
        steps += 1
    assert steps > 3  # several steps, each its own message
    labels = [label for label, _ in buttons_of(step)]
    assert labels == ["Back to where I was", "My safety plan", "Support lines"]
    await bot.press(step, "My safety plan")
    plan = await bot.next(containing="safety plan")
    assert ("Your safety plan", "ws:open:safety_plan") in buttons_of(plan)
    await bot.press(step, "Back to where I was")
    await bot.next(containing="I'm here whenever you need me")
    await bot.press(step, "Support lines")
    await bot.next(containing="Domestic abuse support")


async def test_help_gives_the_lines_then_the_guide_without_contradiction(
    bot: BotUnderTest,
) -> None:
    await bot.onboard(country="France")
    await bot.send("/help")
    lines = await bot.next(containing="3114")
    assert "/guide" not in (lines.text or "")  # the guide follows; no "if you meant…"
    await bot.next(containing="How Steady works")


async def test_country_pick_works_when_storage_is_down(bot: BotUnderTest) -> None:
    await bot.send("danger")
    reply = await bot.next(containing="911")
    await bot.services.db.conn.close()
    await bot.services.keys.db.conn.close()
    await bot.press(reply, "Set my country")
    ask = await bot.next(containing="Which country are you in?")
    await bot.press(ask, "Australia")
    local = await bot.next(containing="Your country: Australia.")
    assert "1800 737 732" in (local.text or "")
    await bot.send("danger")
    await bot.next(containing="1800 737 732")  # kept in memory though storage is gone


async def test_after_choosing_a_country_unknown_person_can_still_start(bot: BotUnderTest) -> None:
    await bot.send("help")
    reply = await bot.next(containing="911")
    await bot.press(reply, "Set my country")
    ask = await bot.next(containing="Which country are you in?")
    await bot.press(ask, "Germany")
    await bot.next(containing="Your country: Germany.")
    await bot.settle()
    await bot.send("hello")
    await bot.next()  # a kind reply, whatever it is, and no traceback
    await bot.send("/start")
    await bot.next(containing="Which country")  # onboarding begins as for anyone new


# --- two tiers (issue 8) -------------------------------------------------------------------


async def test_tier_one_from_idle_is_the_emergency_reply_at_once(bot: BotUnderTest) -> None:
    await bot.onboard()
    await bot.send("he raped me")
    reply = await bot.next()
    assert "999" in (reply.text or "")
    assert CHECK not in (reply.text or "")


async def test_tier_two_from_idle_asks_and_says_nothing_else(bot: BotUnderTest) -> None:
    await bot.onboard()
    await bot.send("I'm not ok 😭😭😭")
    check = await bot.next()
    assert CHECK in (check.text or "")
    assert labels(check) == ["I need help now", "I'm safe", "Talk it through"]
    await bot.settle()
    assert bot.unread() == []  # no "send /worksheets" or storage note under the check
    await bot.press(check, "I'm safe")
    ack = await bot.next(containing="glad you're safe")
    assert "/" not in (ack.text or "")  # no menu of commands


async def test_tier_two_help_now_gives_the_emergency_reply_for_the_kind(bot: BotUnderTest) -> None:
    await bot.onboard(country="Germany")
    await bot.send("I was in danger back then but I'm safe now")
    check = await bot.next(containing=CHECK)
    await bot.press(check, "I need help now")
    reply = await bot.next(containing="112")
    assert "emergency" in (reply.text or "").lower()
    await bot.press(check, "Talk it through")
    offer = await bot.next(containing="What would help right now?")
    assert labels(offer) == ["A short grounding exercise", "My safety plan"]
    await bot.press(offer, "grounding")
    await bot.next(containing="feet on the floor")
    await bot.press(offer, "My safety plan")
    plan = await bot.next(containing="safety plan")
    assert ("Your safety plan", "ws:open:safety_plan") in buttons_of(plan)


async def test_a_forged_safety_check_button_still_gives_help(bot: BotUnderTest) -> None:
    await bot.onboard()
    await bot.send("I can't cope")
    check = await bot.next(containing=CHECK)
    await bot.press(check, data="check:help:nonsense")
    await bot.next(containing="999")


async def test_tier_one_inside_a_worksheet_asks_before_keeping_and_stays_on_the_question(
    bot: BotUnderTest,
) -> None:
    await bot.onboard()
    await begin(bot)
    words = "he choked me last night"
    await bot.send(words)
    reply = await bot.next(predicate=has_button("Continue the worksheet"))
    assert "999" in (reply.text or "")
    assert labels(reply)[-4:] == [
        "Keep as my answer",
        "Don't keep",
        "Continue the worksheet",
        "Pause",
    ]
    await bot.settle()
    assert await saved_answers(bot) == {}  # held until they say so
    await bot.restart()  # held sealed in storage: nothing lost
    await bot.press(reply, "Keep as my answer")
    await bot.next(containing="Kept with your answer")
    assert await saved_answers(bot) == {sheet(bot).questions[0].id: (words,)}
    await bot.press(reply, "Continue the worksheet")
    again = await bot.next(containing="Question 1 of")  # the same question, never the next
    assert words in (again.text or "")  # with what is saved quoted


async def test_tier_two_inside_a_worksheet_asks_and_leaves_the_person_there(
    bot: BotUnderTest,
) -> None:
    await bot.onboard()
    await begin(bot)
    words = "honestly I can't cope with any of this"
    await bot.send(words)
    check = await bot.next(predicate=has_button("Continue the worksheet"))
    assert CHECK in (check.text or "")
    assert labels(check)[:3] == ["I need help now", "I'm safe", "Talk it through"]
    await bot.press(check, "I'm safe")
    await bot.next(containing="glad you're safe")
    await bot.settle()
    assert not [m for m in bot.unread() if "Question" in (m.text or "")]  # nothing moved on
    await bot.press(check, "Don't keep")
    await bot.next(containing="Not kept")
    assert await saved_answers(bot) == {}
    await bot.press(check, "Continue the worksheet")
    await bot.next(containing="Question 1 of")


# --- both tiers where the conversation is (issue 8, the wiring) ----------------------------

TIER_TEXT = {1: "he choked me last night", 2: "honestly I can't cope with any of this"}


def is_reply(tier: int) -> Callable[[SentMessage], bool]:
    """The emergency reply (tier 1) or the safety check (tier 2)."""
    if tier == 1:
        return lambda m: "emergency" in (m.text or "").lower() and CHECK not in (m.text or "")
    return lambda m: CHECK in (m.text or "")


@pytest.mark.parametrize("tier", [1, 2])
async def test_both_tiers_mid_onboarding_keep_the_setup_step(bot: BotUnderTest, tier: int) -> None:
    await bot.send("/start")
    await bot.next(containing="Which country")
    await bot.send(TIER_TEXT[tier])
    reply = await bot.next(predicate=is_reply(tier))
    assert "/" not in (reply.text or "").split("\n")[0]  # no command menu, no storage talk
    await bot.settle()
    assert bot.unread() == []  # the country question is not re-asked or complained about
    await bot.send("Ireland")
    await bot.next(containing="Ireland")


@pytest.mark.parametrize("tier", [1, 2])
async def test_both_tiers_in_a_settings_step_keep_the_step(bot: BotUnderTest, tier: int) -> None:
    await bot.onboard()
    await bot.send("/settings")
    menu = await bot.next(containing="Your settings")
    await bot.press(menu, "Change time zone")
    await bot.find("Which time zone are you in?")  # the panel itself asks
    await bot.send(TIER_TEXT[tier])
    await bot.next(predicate=is_reply(tier))
    await bot.settle()
    assert bot.unread() == []  # not taken as a time zone, not asked again
    await bot.send("Europe/Dublin")
    await bot.find("Irish: Dublin")  # the step took it: the zone in plain words


@pytest.mark.parametrize("tier", [1, 2])
async def test_both_tiers_with_check_ins_paused(bot: BotUnderTest, tier: int) -> None:
    await bot.onboard()
    await bot.send("/pause")
    await bot.next(containing="paused")
    await bot.send(TIER_TEXT[tier])
    await bot.next(predicate=is_reply(tier))
    await bot.settle()
    assert bot.unread() == []  # no "send /worksheets" under it
    person = await person_of(bot)
    assert (
        person.profile.part(CheckinPrefs).paused and person.profile.part(HeldTexts).texts == ()
    )  # nothing to keep: not a reply


@pytest.mark.parametrize("tier", [1, 2])
async def test_both_tiers_in_a_worksheet_hold_the_answer_and_stay(
    bot: BotUnderTest, tier: int
) -> None:
    await bot.onboard()
    await begin(bot)
    await bot.send(TIER_TEXT[tier])
    reply = await bot.next(predicate=is_reply(tier))
    await bot.settle()
    reply = await bot.find(reply.text or "")  # with the buttons added since
    assert labels(reply)[-4:] == [
        "Keep as my answer",
        "Don't keep",
        "Continue the worksheet",
        "Pause",
    ]
    assert await saved_answers(bot) == {}
    await bot.press(reply, "Continue the worksheet")
    await bot.next(containing="Question 1 of")  # the question they were on


@pytest.mark.parametrize("tier", [1, 2])
async def test_both_tiers_in_the_journal_window_ask_before_keeping(
    bot: BotUnderTest, tier: int
) -> None:
    prompt = await prompt_arrives(bot)
    await bot.send(TIER_TEXT[tier])  # typed after the check-in, not a Telegram reply
    reply = await bot.next(predicate=is_reply(tier))
    await bot.settle()
    reply = await bot.find(reply.text or "")
    assert labels(reply)[-2:] == ["Keep in my journal", "Don't keep"]
    keep = dict(buttons_of(reply))["Keep in my journal"]
    assert await entries(bot) == []
    await bot.restart()  # held sealed in storage: the choice still works
    await bot.press(reply, "Don't keep")
    await bot.next(containing="Not kept")
    assert "Keep in my journal" not in labels(reply)  # the choice leaves the reply
    await bot.press(reply, data=keep)  # an old copy of the button
    await bot.next(containing="already been taken care of")
    assert await entries(bot) == []
    await bot.send("a quieter evening", reply_to_message_id=prompt.message_id)
    await bot.next(containing="Saved to your journal")
    assert await entries(bot) == ["a quieter evening"]


async def test_only_a_crisis_word_is_never_stored_reviewed_or_exported(
    bot: BotUnderTest,
) -> None:
    await bot.onboard()
    await begin(bot)
    for word in ("au secours", "HEEELP!!!"):
        await bot.send(word)
        reply = await bot.next(predicate=has_button("Continue the worksheet"))
        assert "Keep as my answer" not in labels(reply)  # nothing to keep: a call, not an answer
    await bot.press(reply, "Continue the worksheet")
    await bot.next(containing="Question 1 of")
    saved = await answer(bot, "my own words")
    assert await saved_answers(bot) == {sheet(bot).questions[0].id: ("my own words",)}
    await bot.press(saved, "Pause")
    await bot.next(containing="Paused")
    assert (await person_of(bot)).profile.part(HeldTexts).texts == ()
    await bot.send("/export")
    doc = await bot.next(predicate=lambda m: m.document is not None)
    assert doc.document is not None
    exported = doc.document.data.decode()
    assert "my own words" in exported
    assert "secours" not in exported and "HEEELP" not in exported


async def test_only_a_crisis_word_in_the_journal_window_is_not_journalled(
    bot: BotUnderTest,
) -> None:
    prompt = await prompt_arrives(bot)
    await bot.send("ayuda", reply_to_message_id=prompt.message_id)
    reply = await bot.next(containing="999")
    await bot.settle()
    assert "Keep in my journal" not in labels(await bot.find(reply.text or ""))
    assert await entries(bot) == []
    await bot.send("/journal")
    page = await bot.next(containing="journal")
    assert "ayuda" not in (page.text or "")


async def test_keep_and_dont_keep_each_file_their_own_text(bot: BotUnderTest) -> None:
    await bot.onboard()
    await begin(bot)
    await answer(bot, "first")
    kept, dropped = "he hit me and I want it written down", "he said he would kill me"
    await bot.send(kept)
    first = await bot.next(predicate=has_button("Keep as my answer"))
    await bot.send(dropped)
    second = await bot.next(predicate=has_button("Keep as my answer"))
    await bot.press(second, "Don't keep")
    await bot.next(containing="Not kept")
    await bot.press(first, "Keep as my answer")
    await bot.next(containing="Kept with your answer")
    assert await saved_answers(bot) == {sheet(bot).questions[0].id: ("first", kept)}
    assert (await person_of(bot)).profile.part(HeldTexts).texts == ()
    await bot.press(first, "Continue the worksheet")
    shown = await bot.next(containing="Question 1 of")
    assert kept in (shown.text or "") and dropped not in (shown.text or "")


async def test_an_edited_held_text_is_kept_as_edited(bot: BotUnderTest) -> None:
    await bot.onboard()
    await begin(bot)
    message_id = await bot.send("he hit me again yesterday")
    reply = await bot.next(predicate=has_button("Keep as my answer"))
    await bot.settle()
    await bot.edit(message_id, "he hit me again yesterday, and I left")
    await bot.next(predicate=is_reply(1))  # an edit is read for crisis words too
    await bot.settle()
    await bot.press(reply, "Keep as my answer")
    await bot.next(containing="Kept with your answer")
    first = sheet(bot).questions[0].id
    assert await saved_answers(bot) == {first: ("he hit me again yesterday, and I left",)}


async def test_safety_plan_answers_get_a_quiet_line_not_the_check(bot: BotUnderTest) -> None:
    await bot.onboard()
    await begin(bot, "safety_plan")
    await bot.send("my sister could help if things feel unsafe")  # not a crisis: plain Saved
    plain = await bot.next(containing="Saved")
    assert "support lines" not in (plain.text or "")
    await bot.send("I'm scared of him, so I'd go to Anna's")  # tier 2: quiet
    quiet = await bot.find("support lines are one tap away")  # "Saved." edited in place
    assert "Saved (2 messages)" in (quiet.text or "")
    assert "Support lines" in labels(quiet) and "Next" in labels(quiet)
    await bot.settle()
    assert not [m for m in bot.emu.messages_to(USER) if CHECK in (m.text or "")]
    first = sheet(bot, "safety_plan").questions[0].id
    assert len((await saved_answers(bot, "safety_plan"))[first]) == 2  # kept, no question
    await bot.press(quiet, "Support lines")
    await bot.next(containing="Domestic abuse support")
    await bot.send("if he finds me he'll kill me")  # tier 1 still interrupts
    reply = await bot.next(predicate=has_button("Keep as my answer"))
    assert "emergency" in (reply.text or "").lower()


async def test_a_safety_plan_answer_after_pausing_gets_the_check(bot: BotUnderTest) -> None:
    await bot.onboard()
    question = await begin(bot, "safety_plan")
    await bot.press(question, "Pause")
    await bot.next(containing="Paused")
    await bot.send("I'm scared of him")
    await bot.next(containing=CHECK)  # no longer answering the plan: the check as usual


async def test_safety_checks_are_counted_for_the_operator(bot: BotUnderTest) -> None:
    await bot.onboard()
    await bot.send("I'm not ok 😭😭😭")
    await bot.next(containing=CHECK)
    await bot.send("help")
    await bot.next(containing="999")
    await bot.settle()
    day = bot.clock().date().isoformat()
    counts = await bot.services.people.store.crisis_counts(day)
    assert (day, "check:general", 1) in counts and (day, "general", 1) in counts


# --- issue 21: the corrected numbers, as a person there reads them ---------------------------


async def _living_in(bot: BotUnderTest, country: str, named: str | None = None) -> None:
    """Onboarding with the country typed, as someone there would; `named`: how the bot
    names it back, when that differs."""
    await bot.send("/start")
    await bot.next(containing="Which country")
    await bot.send(country)
    await bot.next(containing=f"Country: {named or country}")
    await bot.settle()
    bot.skip_all()


async def test_a_person_in_sweden_is_given_112_not_the_retired_90000(bot: BotUnderTest) -> None:
    await _living_in(bot, "Sweden")
    await bot.send("he is going to hurt me")
    text = (await bot.next(containing="Emergency")).text or ""
    assert "• Emergency: call 112\n" in text
    assert "90000" not in text and "90 000" not in text
    assert "support lines for Sweden" in text


async def test_a_person_in_czechia_is_given_police_and_ambulance(bot: BotUnderTest) -> None:
    await _living_in(bot, "Czechia", "Czech Republic")
    await bot.send("he is going to hurt me")
    text = (await bot.next(containing="Emergency")).text or ""
    assert "call 112 or 158 or 155 (112 any emergency, 158 police, 155 ambulance)" in text
    assert "151" not in text


async def test_a_person_in_chile_is_given_carabineros_ambulance_and_fire(bot: BotUnderTest) -> None:
    await _living_in(bot, "Chile")
    await bot.send("he is going to hurt me")
    text = (await bot.next(containing="Emergency")).text or ""
    assert "call 133 or 131 or 132 (133 police, 131 ambulance, 132 fire)" in text
    assert "911" not in text


async def test_a_person_in_portugal_is_given_the_1411_suicide_line(bot: BotUnderTest) -> None:
    await _living_in(bot, "Portugal")
    await bot.send("honestly I just want to die")
    text = (await bot.next(containing="1411")).text or ""
    assert "1411 Linha Nacional de Prevenção do Suicídio: call 1411 (24/7, free)" in text
    assert text.index("1411") < text.index("Emergency: call 112")
    await bot.send("he is going to hurt me")
    danger = (await bot.next(containing="800 202 148")).text or ""
    assert danger.index("Emergency: call 112") < danger.index("800 202 148")


async def test_a_person_in_argentina_is_given_the_mental_health_line(bot: BotUnderTest) -> None:
    await _living_in(bot, "Argentina")
    await bot.send("honestly I just want to die")
    text = (await bot.next(containing="0800 999 0091")).text or ""
    assert "call 0800 999 0091 (24/7, free)" in text
    assert text.index("0800 999 0091") < text.index("Emergency: call 911")
    await bot.send("he is going to hurt me")
    danger = (await bot.next(containing="144")).text or ""
    assert "Emergency: call 911" in danger and "WhatsApp 11-2771-6463" in danger


async def test_no_country_yet_in_spanish_shows_spain_and_mexico(bot: BotUnderTest) -> None:
    await bot.send("ayuda", language_code="es")
    reply = await bot.next()
    text = reply.text or ""
    assert "• España: 112" in text and "• México: 911" in text
    assert "el 112 y el 911 funcionan desde la mayoría de los teléfonos móviles" in text
    assert buttons_of(reply)[0][1] == "crisis:where:g"  # the country picker first


async def test_the_crisis_bots_reply_is_built_as_telegram_echoes_it(bot: BotUnderTest) -> None:
    # The crisis path's reply is made from what was sent, not parsed from Telegram's echo
    # (issue 25): it must hold what the echo would, and its edits go on the crisis bot.
    await bot.onboard()
    assert bot.runtime is not None and bot.runtime.app is not None
    context = Context(bot.runtime.app, chat_id=USER, user_id=USER)
    rows = [[("More support lines", "x:1"), ("Not now", "x:2")], [("Later", "x:3")]]
    text = Rich("Call 999 now", [Span("bold", 5, 3)])
    built = await say_urgent(context, Chat(USER, ChatType.PRIVATE), text, buttons=rows, silent=True)
    echoed = await bot.next(containing="Call 999 now")
    assert (built.message_id, built.text, built.chat.id) == (echoed.message_id, echoed.text, USER)
    assert int(built.date.timestamp()) == echoed.date and echoed.disable_notification
    assert buttons_of(echoed) == [pair for row in rows for pair in row]
    assert built.reply_markup is not None
    assert [[(b.text, b.callback_data) for b in r] for r in built.reply_markup.inline_keyboard] == [
        list(row) for row in rows
    ]
    assert [(e.type, e.offset, e.length) for e in built.entities] == [("bold", 5, 3)]
    assert built.get_bot() is bot.services.urgent_bot
    await built.edit_reply_markup(reply_markup=None)  # as add_under_reply's edits
    (edited,) = [m for m in bot.emu.messages_to(USER) if m.message_id == built.message_id]
    assert not buttons_of(edited)
