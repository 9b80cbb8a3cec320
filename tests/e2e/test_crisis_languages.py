"""Per language, through the real bot: a threat from a partner gets the danger reply with
that country's domestic-abuse line (never the suicide reply), and the help word brings the
emergency reply idle and at a worksheet question, never kept as the answer (issue 22)."""

from __future__ import annotations

import pytest

from bot.content.helplines import LineKind, parts_of
from bot.features.crisis.held import HeldTexts
from tests.helpers.bot import BotUnderTest
from tests.helpers.worksheets import begin, has_button, labels, person_of, saved_answers

# language -> (country, a threat as people report it, the help word, "help me")
CASES = {
    "en": ("GB", "he said he'd kill me if I leave", "help", "help me"),
    "es": ("ES", "dice que me mata si lo dejo", "ayuda", "ayúdame"),
    "fr": ("FR", "il a dit qu'il allait me tuer", "aide", "aide-moi"),
    "de": ("DE", "er hat gesagt, er bringt mich um", "Hilfe", "hilf mir"),
    "it": ("IT", "mi ha detto che mi ammazza se lo lascio", "aiuto", "aiutami"),
    "nl": ("NL", "hij zei dat hij me gaat vermoorden", "hulp", "help mij"),
    "pt": ("BR", "ele falou que ia me matar", "ajuda", "me ajuda"),
}


def phones(bot: BotUnderTest, code: str, kind: LineKind) -> list[str]:
    """The country's lines of a kind; the UK's abuse lines are its nations' own."""
    book = bot.services.content.helplines
    lines = list(book[code].lines)
    if kind == LineKind.DOMESTIC_ABUSE and parts_of(book, code):
        lines = [line for part in parts_of(book, code) for line in part.lines]
    return [line.phone for line in lines if line.kind == kind and line.phone]


@pytest.mark.parametrize("lang", sorted(CASES))
async def test_a_threat_gets_the_danger_reply_with_the_countrys_abuse_line(
    model_bot: BotUnderTest, lang: str
) -> None:
    bot = model_bot
    code, threat, _, _ = CASES[lang]
    await bot.onboard(country=code)
    await bot.send(threat)
    reply = await bot.next(predicate=lambda m: "Clear this from the chat" in labels(m))
    text = reply.text or ""
    abuse = phones(bot, code, LineKind.DOMESTIC_ABUSE)
    assert abuse and abuse[0] in text, (lang, abuse, text)
    assert "safe to call" in text  # the danger reply's own words
    assert "help is possible" not in text  # never the suicide reply instead


@pytest.mark.parametrize("lang", sorted(CASES))
async def test_the_help_word_brings_the_lines_idle_and_mid_worksheet(
    model_bot: BotUnderTest, lang: str
) -> None:
    bot = model_bot
    code, _, word, help_me = CASES[lang]
    await bot.onboard(country=code)
    emergency = phones(bot, code, LineKind.EMERGENCY)
    expected = emergency[0].split(";")[0].split(" or ")[0].strip() if emergency else "112"
    await bot.send(word)
    idle = await bot.next(predicate=lambda m: "Clear this from the chat" in labels(m))
    assert expected in (idle.text or ""), (lang, expected, idle.text)
    assert "Are you safe right now?" not in (idle.text or "")  # the lines, not a check
    await bot.settle()
    await begin(bot)
    for typed in (word, help_me):
        await bot.send(typed)
        reply = await bot.next(predicate=has_button("Continue the worksheet"))
        assert expected in (reply.text or ""), (lang, typed, reply.text)
        assert "Keep as my answer" not in labels(reply)  # a call, never an answer
    await bot.settle()
    assert await saved_answers(bot) == {}
    assert (await person_of(bot)).profile.part(HeldTexts).texts == ()
