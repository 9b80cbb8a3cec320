"""The whole bot in every language, end to end: a person whose Telegram is set to a
language meets not one English sentence from /start through a worksheet, a check-in, the
crisis reply, /settings and /export; the choice is stored and can be switched.

The tests run on `complete_content` (tests/helpers/locale_fill.py): the real translations, with
any gap a translator has not filled yet shown as a marker, never as English; so they hold
the code to "every text goes through the person's translator" in every language today.
"""

from __future__ import annotations

import io
import os
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
from pypdf import PdfReader

from bot.content.loader import Content, load_content
from bot.core.clock import ManualClock
from bot.emulator import BotApiEmulator, SentMessage
from bot.features.checkins.handlers import JOB_NAME
from bot.geo import lookup as geo
from bot.logs import pin_noisy_loggers
from tests.helpers.bot import USER, BotUnderTest, buttons_of, make_settings, shared_content
from tests.helpers.jobs import pause_every_job, run_every_job
from tests.helpers.locale_fill import LANGUAGES, complete_content, english_sentences, shown

# The crisis word a person types in each language (content/crisis_terms.yaml).
HELP_WORD = {"es": "ayuda", "fr": "SOS", "de": "hilfe", "it": "aiuto", "nl": "hulp", "pt": "ajuda"}
# A country whose lines and zones exist, per language; Telegram says es-ES, pt-BR, …
COUNTRY = {"es": "ES", "fr": "FR", "de": "DE", "it": "IT", "nl": "NL", "pt": "BR"}
TELEGRAM_CODE = {"es": "es-ES", "fr": "fr", "de": "de", "it": "it", "nl": "nl", "pt": "pt-BR"}

_COMPLETE: Content | None = None
_ENGLISH: set[str] | None = None


@pytest.fixture
def every_language(tmp_path_factory: pytest.TempPathFactory) -> Content:
    global _COMPLETE  # noqa: PLW0603 - loaded once: content is immutable
    if _COMPLETE is None:
        _COMPLETE = load_content(complete_content(tmp_path_factory.mktemp("c") / "content"))
    return _COMPLETE


def english() -> set[str]:
    global _ENGLISH  # noqa: PLW0603
    if _ENGLISH is None:
        _ENGLISH = english_sentences(shared_content())
    return _ENGLISH


@pytest.fixture
async def polyglot(
    emulator: BotApiEmulator, tmp_path: Path, clock: ManualClock, every_language: Content
) -> AsyncIterator[BotUnderTest]:
    pin_noisy_loggers()
    under_test = BotUnderTest(emulator, make_settings(tmp_path / "data", emulator.base_url), clock)
    under_test.content = every_language
    await under_test.start()
    tick = under_test.runtime.jobs.get(JOB_NAME) if under_test.runtime is not None else None
    if tick is not None:
        tick.enabled = False  # the test runs the daily pass itself
    try:
        yield under_test
    finally:
        await under_test.stop()
        assert not emulator.internal_errors, emulator.internal_errors


def data_with(message: SentMessage, prefix: str) -> str:
    found = [d for _, d in buttons_of(message) if d.startswith(prefix)]
    assert found, f"no {prefix!r} button on {message.text!r}: {buttons_of(message)}"
    return found[0]


async def next_with_button(bot: BotUnderTest, *prefixes: str) -> SentMessage:
    return await bot.next(predicate=lambda m: any(d.startswith(prefixes) for _, d in buttons_of(m)))


def helpline_words(content: Content) -> list[str]:
    """The services' own names ("National Domestic Abuse Helpline"): shown as each service
    calls itself, so not scanned here. Their hours and notes are translated and scanned."""
    found = {
        " ".join(line.name.split())
        for country in content.helplines.values()
        for line in country.lines
    }
    return sorted(found, key=len, reverse=True)


def short_english(lang: str, content: Content) -> set[str]:
    """English texts under four words ("Skip", "Not now"): a button label or message equal
    to one is English too, unless the language writes it the same way ("OK", "Ok")."""
    english_texts, own = content.locales["en"].texts, content.locales[lang].texts
    theirs, mine = english_texts.keys(), own.keys()  # Texts is not a mapping: no iteration
    short = {english_texts(k) for k in theirs if len(english_texts(k).split()) < 4}
    return short - {own(k) for k in mine}


def english_in(bot: BotUnderTest, lang: str | None = None) -> list[str]:
    sentences, data = english(), helpline_words(bot.services.content)
    short = short_english(lang, bot.services.content) if lang else set()
    found = []
    for text in shown(iter(bot.emu.messages_to(USER))):
        if text in short:
            found.append(f"{text!r} (an English label)")
        seen = text
        for value in data:
            seen = seen.replace(value, "")
        found += [f"{sentence!r} in {seen!r}" for sentence in sentences if sentence in seen]
    return found


def write_transcript(bot: BotUnderTest, lang: str) -> None:
    """With STEADY_TRANSCRIPTS=<dir>, what the person saw, for a read-through by a native
    speaker (docs/content.md); nothing is written otherwise."""
    folder = os.environ.get("STEADY_TRANSCRIPTS")
    if not folder:
        return
    lines: list[str] = []
    for message in bot.emu.messages_to(USER):
        lines.append(message.text or f"[{message.document.filename if message.document else '?'}]")
        labels = [
            label
            for row in (message.reply_markup or {}).get("inline_keyboard", [])
            for label in (b.get("text", "") for b in row)
        ]
        if labels:
            lines.append("  [" + "] [".join(labels) + "]")
        lines.append("---")
    Path(folder).mkdir(parents=True, exist_ok=True)
    (Path(folder) / f"{lang}.txt").write_text("\n".join(lines), encoding="utf-8")


async def send_as(bot: BotUnderTest, text: str, language: str) -> None:
    bot.emu.user_sends(USER, text, language_code=language)


def ending_with(message: SentMessage, suffix: str) -> str:
    found = [d for _, d in buttons_of(message) if d.endswith(suffix)]
    assert found, f"no button ending {suffix!r} on {message.text!r}"
    return found[0]


async def urge_walk(bot: BotUnderTest, code: str) -> None:
    """Every step of /urge, with a held draft; then the jobs: the check-back 20 minutes on,
    the draft's offer back the next day. Nothing of it may be English."""
    pause_every_job(bot)
    await send_as(bot, "/urge", code)
    ask = await next_with_button(bot, "urg:s:")
    bot.emu.user_presses(USER, ask.message_id, "urg:s:7")
    trigger = await next_with_button(bot, "urg:t:")
    bot.emu.user_presses(USER, trigger.message_id, data_with(trigger, "urg:t:"))
    offer = await next_with_button(bot, "urg:dw:")
    bot.emu.user_presses(USER, offer.message_id, data_with(offer, "urg:dw:"))
    await bot.next()  # "Write it here"
    await send_as(bot, "words I will not send", code)
    step = await next_with_button(bot, "urg:n:")
    steps = 1
    while any(d.startswith("urg:n:") for _, d in buttons_of(step)):
        bot.emu.user_presses(USER, step.message_id, data_with(step, "urg:n:"))
        step = await next_with_button(bot, "urg:n:", "urg:a:")
        steps += 1
    assert steps > 3  # every breathing step was shown
    bot.emu.user_presses(USER, step.message_id, ending_with(step, ":done"))
    await bot.next()
    bot.clock.advance(timedelta(minutes=21))
    await run_every_job(bot)
    check_back = await next_with_button(bot, "urg:f:")
    bot.emu.user_presses(USER, check_back.message_id, ending_with(check_back, ":3"))
    await bot.next()
    bot.clock.advance(timedelta(hours=25))
    await run_every_job(bot)
    offer_back = await next_with_button(bot, "urg:dr:")
    bot.emu.user_presses(USER, offer_back.message_id, data_with(offer_back, "urg:dr:"))
    await next_with_button(bot, "urg:dk:")
    await run_every_job(bot)


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_a_person_meets_only_their_language(polyglot: BotUnderTest, lang: str) -> None:
    bot, code = polyglot, TELEGRAM_CODE[lang]
    locale = bot.services.content.locales[lang]
    tx = locale.texts

    # Onboarding: Telegram's language is served, so no language question.
    await send_as(bot, "/start", code)
    await bot.next(containing=tx("start.welcome")[:30])
    ask = await next_with_button(bot, "cty:")
    assert (ask.text or "").startswith(tx("setup.ask_country")[:20])
    bot.emu.user_presses(USER, ask.message_id, f"cty:{COUNTRY[lang]}")
    step = await next_with_button(bot, "tz:", "time:")
    if data_with(step, "").startswith("tz:"):
        bot.emu.user_presses(USER, step.message_id, data_with(step, "tz:"))
        step = await next_with_button(bot, "time:")
    bot.emu.user_presses(USER, step.message_id, "time:09:00")
    safety = await next_with_button(bot, "safe:")
    bot.emu.user_presses(USER, safety.message_id, "safe:no")
    await bot.next(containing=tx("setup.done")[:20])
    await bot.settle()
    person = await bot.services.people.load(USER)
    assert person is not None and person.profile.language == lang  # stored, sealed

    # A worksheet: open the first, start, answer one question, pause.
    await send_as(bot, "/worksheets", code)
    listing = await next_with_button(bot, "ws:open")
    bot.emu.user_presses(USER, listing.message_id, data_with(listing, "ws:open"))
    intro = await next_with_button(bot, "ws:go")
    bot.emu.user_presses(USER, intro.message_id, data_with(intro, "ws:go"))
    question = await next_with_button(bot, "ws:pause")
    await send_as(bot, "an answer of mine", code)
    saved = await bot.next(containing=tx("worksheets.saved")[:12])
    bot.emu.user_presses(USER, saved.message_id, data_with(saved, "ws:pause"))
    await bot.next(containing=tx("worksheets.paused")[:12])
    assert question.text

    # A check-in, sent from the job (no update): the stored language, the translated prompt.
    await bot.settle()
    due = (await bot.services.people.load(USER)).next_due_utc  # type: ignore[union-attr]
    assert due is not None
    bot.clock.advance(timedelta(seconds=due - bot.clock().timestamp() + 1))
    await bot.dispatcher.run_once()
    texts = [t[:25] for t in locale.prompts.values()]
    prompt = await bot.next(predicate=lambda m: any(t in (m.text or "") for t in texts))
    await send_as(bot, "a reply to the check-in", code)
    await bot.settle()
    assert prompt.text

    # The crisis reply, in the language's own word.
    await send_as(bot, HELP_WORD[lang], code)
    reply = await next_with_button(bot, "crisis:", "check:")
    if data_with(reply, "").startswith("check:"):  # tier two asks first: "Are you safe?"
        bot.emu.user_presses(USER, reply.message_id, data_with(reply, "check:help"))
        await next_with_button(bot, "crisis:")

    # /settings has the language row, in the language's own name.
    await send_as(bot, "/settings", code)
    menu = await next_with_button(bot, "set:")
    assert data_with(menu, "set:language")
    zone = person.profile.timezone
    assert zone is not None
    english_zone = geo.zone_label(zone, "en", country=COUNTRY[lang])
    own_zone = geo.zone_label(zone, lang, country=COUNTRY[lang])
    assert own_zone in (menu.text or "")  # CLDR's name for the zone, in the language
    assert english_zone == own_zone or english_zone not in (menu.text or "")

    # /export: headings in the language, Markdown and PDF.
    await send_as(bot, "/export", code)
    doc = await bot.next(predicate=lambda m: m.document is not None)
    assert doc.document is not None
    markdown = doc.document.data.decode()
    assert f"# {tx('worksheets.export.doc_title')}" in markdown
    bot.emu.user_presses(USER, doc.message_id, data_with(doc, "ws:pdf"))
    pdf = await bot.next(predicate=lambda m: m.document is not None)
    assert pdf.document is not None
    text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf.document.data)).pages)
    assert " ".join(tx("worksheets.export.doc_journal").split()) in " ".join(text.split())
    await bot.settle()

    # The newer features' first steps, and replies to what is not a command.
    for command in ("/guide", "/journal", "/urge", "/reasons", "/record", "/progress"):
        await send_as(bot, command, code)
        await bot.next()
        await bot.settle()
    bot.emu.user_sends(USER, sticker=True, language_code=code)
    await bot.next()
    await send_as(bot, "/nosuchcommand", code)
    await bot.next()
    await bot.settle()

    # The whole list of lines, hours and notes included.
    await send_as(bot, "/sos", code)
    reply = await next_with_button(bot, "crisis:more")
    bot.emu.user_presses(USER, reply.message_id, data_with(reply, "crisis:more"))
    await bot.next(containing=tx("crisis_help.heading_elsewhere")[:12])

    # /urge to the end, then what its job sends later: the check-back, the draft offered
    # back the next day (and the next day's check-in), every scheduled job run.
    await urge_walk(bot, code)

    # /forget: the question, and the goodbye, in the language too.
    await send_as(bot, "/forget", code)
    confirm = await next_with_button(bot, "forget:")
    bot.emu.user_presses(USER, confirm.message_id, "forget:yes")
    await bot.find(tx("forget.done")[:20])  # the question, answered in place
    await bot.settle()

    write_transcript(bot, lang)
    assert english_in(bot, lang) == []


async def test_switching_language_in_settings(polyglot: BotUnderTest) -> None:
    bot = polyglot
    spanish = bot.services.content.locales["es"].texts
    await bot.onboard()  # Telegram in English
    await bot.send("/settings")
    menu = await bot.next(containing="Country")
    assert ("🌐 English", "set:language") in buttons_of(menu)
    await bot.press(menu, "🌐 English")
    picker = await bot.find("Which language")  # the menu, edited in place
    assert picker.message_id == menu.message_id
    assert ("Español", "lang:es") in buttons_of(picker)
    await bot.press(picker, data="lang:es")
    await bot.settle()
    edited = bot.emu.messages_to(USER)[menu.index]
    assert ("🌐 Español", "set:language") in buttons_of(edited)
    assert (edited.text or "").startswith(spanish("settings.summary").split("{")[0][:10])
    assert "Reino Unido" in (edited.text or "")  # the country, named in Spanish (CLDR)
    person = await bot.services.people.load(USER)
    assert person is not None and person.profile.language == "es"
    # Telegram would show this person the English menu: their chat gets a Spanish one.
    chat_menu = bot.emu.commands_for({"type": "chat", "chat_id": USER})
    assert chat_menu and {c["description"] for c in chat_menu} >= {spanish("commands.settings")}

    # Every reply from now on, whatever Telegram says, and after a restart.
    await bot.restart()
    bot.skip_all()
    await bot.send("/worksheets")
    await bot.next(containing=spanish("worksheets.list_title")[:12])
    await bot.send("ayuda")
    reply = await bot.next(
        predicate=lambda m: any(d.startswith("crisis:") for _, d in buttons_of(m))
    )
    assert (reply.text or "").startswith(spanish("crisis_help.general_lead")[:12])


async def test_onboarding_asks_the_language_only_when_telegram_does_not_say(
    polyglot: BotUnderTest,
) -> None:
    bot = polyglot
    await send_as(bot, "/start", "ja")  # a language we do not serve
    await bot.next(containing="Hi. I'm Steady")
    ask = await next_with_button(bot, "lang:")
    assert [d for _, d in buttons_of(ask)] == [
        f"lang:{c}" for c in bot.services.content.locales.codes
    ]
    await send_as(bot, "/start", "ja")  # again, before answering: the same question
    ask = await next_with_button(bot, "lang:")
    bot.emu.user_presses(USER, ask.message_id, "lang:de")
    country = await next_with_button(bot, "cty:")
    german = bot.services.content.locales["de"].texts
    assert (country.text or "").startswith(german("setup.ask_country")[:20])
    person = await bot.services.people.load(USER)
    assert person is not None and person.profile.language == "de"

    # Telegram in a served language: no question, the language is stored at once.
    bot.emu.user_sends(2002, "/start", language_code="it-IT")
    await bot.next(2002, containing=bot.services.content.locales["it"].texts("start.welcome")[:20])
    asked = await bot.next(2002, predicate=lambda m: bool(buttons_of(m)))
    assert all(d.startswith("cty:") for _, d in buttons_of(asked))
    person = await bot.services.people.load(2002)
    assert person is not None and person.profile.language == "it"


async def test_menu_and_descriptions_are_published_per_language(polyglot: BotUnderTest) -> None:
    bot = polyglot
    locales = bot.services.content.locales
    english = locales["en"].texts
    assert bot.emu.description() == english("about.description")
    assert {c["command"] for c in bot.emu.commands_for()} >= {"start", "settings", "sos"}
    for code in LANGUAGES:
        texts = locales[code].texts
        assert bot.emu.description(code) == texts("about.description")
        assert bot.emu.short_description(code) == texts("about.short_description")
        menu = bot.emu.commands_for(language_code=code)
        assert [c["command"] for c in menu] == [c["command"] for c in bot.emu.commands_for()]
        assert {c["description"] for c in menu} == {texts(f"commands.{c['command']}") for c in menu}
