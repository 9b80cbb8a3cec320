"""Issue 23: Portuguese for people in Portugal reads as European Portuguese where it matters
most: onboarding, the crisis reply and the check-in. The variant (content/locales/pt/
variants/PT) is chosen by Telegram's "pt-PT", or by the country Portugal; Brazilian
Portuguese stays for everyone else."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from datetime import timedelta

from bot.emulator import SentMessage
from bot.features.checkins.prefs import CheckinPrefs
from tests.helpers.bot import USER, BotUnderTest, buttons_of
from tests.helpers.jobs import pause_every_job

# Words and forms a reader in Portugal takes for Brazil at once.
BRAZILIAN = re.compile(r"\b(celular|digite|digitar|você|Oi|tela|salvo|pule|jeito)\b", re.I)


def with_button(prefix: str | tuple[str, ...]) -> Callable[[SentMessage], bool]:
    return lambda m: any(d.startswith(prefix) for _, d in buttons_of(m))


def brazilian_in(messages: list[SentMessage]) -> list[str]:
    found = []
    for message in messages:
        labels = " ".join(label for label, _ in buttons_of(message))
        for text in (message.text or "", labels):
            found += [f"{m.group(0)!r} in {text[:60]!r}" for m in BRAZILIAN.finditer(text)]
    return found


async def walk(bot: BotUnderTest, code: str, country: str) -> None:
    """Onboarding, the crisis reply, a check-in: in Telegram language `code`."""
    pause_every_job(bot)
    bot.emu.user_sends(USER, "/start", language_code=code)
    ask = await bot.next(predicate=with_button("cty:"))
    bot.emu.user_presses(USER, ask.message_id, f"cty:{country}")
    step = await bot.next(
        predicate=lambda m: bool(with_button("tz:")(m) or with_button("time:")(m))
    )
    if any(d.startswith("tz:") for _, d in buttons_of(step)):
        bot.emu.user_sends(USER, "Lisboa" if country == "PT" else "São Paulo", language_code=code)
        step = await bot.next(predicate=with_button("time:"))
    bot.emu.user_sends(USER, "às 21h", language_code=code)
    safety = await bot.next(predicate=with_button("safe:"))
    bot.emu.user_presses(USER, safety.message_id, "safe:no")
    await bot.settle()
    bot.emu.user_sends(USER, "ajuda", language_code=code)
    await bot.next(predicate=with_button(("crisis:", "check:")))
    await bot.settle()
    person = await bot.services.people.load(USER)
    assert person is not None and person.profile.part(CheckinPrefs).daily_time == "21:00"
    due = person.next_due_utc
    assert due is not None
    bot.clock.advance(timedelta(seconds=due - bot.clock().timestamp() + 1))
    await bot.dispatcher.run_once()
    await bot.next(predicate=with_button("dly:"))
    await bot.settle()


def prompts_left_out(bot: BotUnderTest, messages: list[SentMessage]) -> list[SentMessage]:
    """The check-in's prompt sentence is scanned only where the variant has its own (the
    prompts most marked as Brazilian, content/locales/pt/variants/PT/prompts.yaml); the
    rest of the check-in, its buttons and frame, always."""
    brazilian = bot.services.content.locales["pt"].prompts
    european = bot.services.content.locales.variant("pt", "PT").prompts
    shared = [text for pid, text in brazilian.items() if european[pid] == text]
    out = []
    for message in messages:
        text = message.text or ""
        for prompt in shared:
            text = text.replace(prompt, "")
        out.append(dataclasses.replace(message, text=text))
    return out


async def test_a_person_in_portugal_reads_european_portuguese(bot: BotUnderTest) -> None:
    await walk(bot, "pt-PT", "PT")
    seen = bot.emu.messages_to(USER)
    european = bot.services.content.locales.variant("pt", "PT").texts
    assert any(european("setup.ask_time").split("\n")[0] in (m.text or "") for m in seen)
    assert brazilian_in(prompts_left_out(bot, seen)) == []


async def test_the_country_alone_chooses_it_and_brazil_keeps_its_own(bot: BotUnderTest) -> None:
    await walk(bot, "pt", "PT")  # Telegram says only "pt"; the country is Portugal
    after_country = bot.emu.messages_to(USER)[2:]  # the welcome came before it was known
    assert brazilian_in(prompts_left_out(bot, after_country)) == []
    bot.emu.user_sends(2002, "/start", language_code="pt-BR")
    ask = await bot.next(2002, predicate=with_button("cty:"))
    assert "Em que país você está?" in (ask.text or "")
