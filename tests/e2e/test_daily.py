"""Daily check-ins and the journal, end to end: the real bot, the emulator, a ManualClock.

The repeating tick job is paused in these tests (`daily()`), and each test runs dispatch
passes itself with `run_once()`, so what is sent depends only on the clock the test sets.
One test runs the job itself, to cover the production path.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.core.clock import ManualClock
from bot.emulator import BotApiEmulator
from bot.features.checkins.handlers import JOB_NAME
from bot.people.service import Person
from bot.storage.deliveries import DeliveryRow
from tests.helpers.bot import GIVE_UP, TOO_LATE, USER, BotUnderTest, buttons_of, make_settings
from tests.helpers.daily import (
    HINT,
    daily,
    entries,
    join,
    journal,
    person,
    prompt_arrives,
    prompts_to,
    run,
    utc,
)

LONDON = 2001
NEW_YORK = 2002
KOLKATA = 2003


async def record(bot: BotUnderTest, user: int, day: str) -> DeliveryRow | None:
    p = await person(bot, user)
    return await daily(bot).store.record(p.person_id, day)


def due_at(p: Person) -> datetime | None:
    return None if p.next_due_utc is None else datetime.fromtimestamp(p.next_due_utc, UTC)


async def test_prompts_go_out_at_local_time_in_each_zone(bot: BotUnderTest) -> None:
    # START is Monday 2026-11-30 09:00 UTC: 09:00 in London, 04:00 in New York, 14:30 in Kolkata.
    await join(bot, LONDON, country="GB")
    await join(bot, NEW_YORK, country="US", zone="America/New_York")
    await join(bot, KOLKATA, country="IN")
    assert due_at(await person(bot, NEW_YORK)) == utc(2026, 11, 30, 12, 30)
    assert due_at(await person(bot, KOLKATA)) == utc(2026, 12, 1, 2, 0)
    assert due_at(await person(bot, LONDON)) == utc(2026, 12, 1, 7, 30)

    steps: list[tuple[datetime, dict[int, int]]] = [
        (utc(2026, 11, 30, 12, 29, 59), {NEW_YORK: 0, KOLKATA: 0, LONDON: 0}),
        (utc(2026, 11, 30, 12, 30), {NEW_YORK: 1, KOLKATA: 0, LONDON: 0}),
        (utc(2026, 12, 1, 1, 59), {NEW_YORK: 1, KOLKATA: 0, LONDON: 0}),
        (utc(2026, 12, 1, 2, 0), {NEW_YORK: 1, KOLKATA: 1, LONDON: 0}),
        (utc(2026, 12, 1, 7, 30), {NEW_YORK: 1, KOLKATA: 1, LONDON: 1}),
        (utc(2026, 12, 1, 7, 45), {NEW_YORK: 1, KOLKATA: 1, LONDON: 1}),
    ]
    for when, expected in steps:
        bot.clock.set(when)
        await run(bot)
        assert {u: len(prompts_to(bot, u)) for u in expected} == expected, when
    # Each got the local date it belongs to, and moved on to the next one.
    assert (await record(bot, NEW_YORK, "2026-11-30")) is not None
    assert (await record(bot, KOLKATA, "2026-12-01")) is not None
    assert due_at(await person(bot, NEW_YORK)) == utc(2026, 12, 1, 12, 30)
    first = prompts_to(bot, LONDON)[0]
    assert not first.disable_notification
    assert [label for label, _ in buttons_of(first)] == [
        "Remind me in an hour",
        "Skip today",
        "Pause check-ins",
        "1 (low)",
        "2",
        "3",
        "4",
        "5 (good)",
        "A hard moment",
    ]


async def test_clock_change_keeps_the_local_time(bot: BotUnderTest) -> None:
    # Europe/London moves to BST on Sunday 2027-03-28: 07:30 local is 06:30 UTC from then.
    bot.clock.set(utc(2027, 3, 26, 12, 0))
    await join(bot)
    bot.clock.set(utc(2027, 3, 27, 7, 30))
    assert (await run(bot)).sent == 1
    assert due_at(await person(bot)) == utc(2027, 3, 28, 6, 30)
    bot.clock.set(utc(2027, 3, 28, 6, 30))
    assert (await run(bot)).sent == 1
    assert len(prompts_to(bot)) == 2


async def test_exactly_once_per_local_day_across_restarts(bot: BotUnderTest) -> None:
    await join(bot)
    due = utc(2026, 12, 1, 7, 30)
    bot.clock.set(due)
    assert (await run(bot)).sent == 1
    await bot.restart()
    bot.clock.advance(timedelta(minutes=5))
    assert (await run(bot)).sent == 0
    # Even if something points the row back at a day that has its prompt, it is not sent.
    p = await person(bot)
    await daily(bot).store.reschedule(p.person_id, int(due.timestamp()), "2026-12-01")
    report = await run(bot)
    assert (report.sent, report.dropped) == (0, 1)
    assert due_at(await person(bot)) == utc(2026, 12, 2, 7, 30)
    # Moving the time later the same day does not bring a second one either.
    await bot.send("/settings")
    menu = await bot.next(containing="Your settings")
    await bot.press(menu, "Change check-in time")
    await bot.find("What time would you like")  # the panel itself asks
    await bot.send("21:00")
    await bot.next(containing="Your settings")
    assert due_at(await person(bot)) == utc(2026, 12, 2, 21, 0)
    bot.clock.set(utc(2026, 12, 2, 21, 0))
    assert (await run(bot)).sent == 1
    assert len(prompts_to(bot)) == 2


async def test_crash_between_claim_and_send_is_not_resent(bot: BotUnderTest) -> None:
    """At most once: a claimed prompt whose send may or may not have happened is lost."""
    await join(bot)
    bot.clock.set(utc(2026, 12, 1, 7, 30))
    await bot.settle()
    claims = await daily(bot).claim()  # claimed and recorded; the "crash" comes before send
    assert len(claims) == 1
    await bot.restart()
    assert (await run(bot)).sent == 0
    assert prompts_to(bot) == []
    row = await record(bot, USER, "2026-12-01")
    assert row is not None and row.status == "claimed"
    assert due_at(await person(bot)) == utc(2026, 12, 2, 7, 30)
    bot.clock.set(utc(2026, 12, 2, 7, 30))
    assert (await run(bot)).sent == 1


async def test_downtime_one_hour_sends_three_hours_skips(bot: BotUnderTest) -> None:
    await join(bot)
    await bot.stop()
    bot.clock.set(utc(2026, 12, 1, 8, 30))  # an hour late
    await bot.start()
    assert (await run(bot)).sent == 1
    await bot.stop()
    bot.clock.set(utc(2026, 12, 2, 10, 31))  # three hours late: no stale prompt
    await bot.start()
    report = await run(bot)
    assert (report.sent, report.skipped) == (0, 1)
    row = await record(bot, USER, "2026-12-02")
    assert row is not None and row.status == "skipped"
    assert len(prompts_to(bot)) == 1
    assert due_at(await person(bot)) == utc(2026, 12, 3, 7, 30)
    bot.clock.set(utc(2026, 12, 3, 7, 30))
    assert (await run(bot)).sent == 1


async def test_flood_control_is_retried_and_delivered(bot: BotUnderTest) -> None:
    await join(bot)
    bot.emu.inject_fault("sendMessage", "429", chat_id=USER, retry_after=1)
    bot.clock.set(utc(2026, 12, 1, 7, 30))
    assert (await run(bot)).sent == 1
    assert len(prompts_to(bot)) == 1
    row = await record(bot, USER, "2026-12-01")
    assert row is not None and row.status == "sent"


async def test_server_error_is_retried_and_delivered(bot: BotUnderTest) -> None:
    await join(bot)
    bot.emu.inject_fault("sendMessage", "500", chat_id=USER)
    bot.clock.set(utc(2026, 12, 1, 7, 30))
    assert (await run(bot)).sent == 1
    assert len(prompts_to(bot)) == 1


async def test_blocked_bot_stops_sending_until_start(bot: BotUnderTest) -> None:
    await join(bot)
    bot.emu.block(USER)
    bot.clock.set(utc(2026, 12, 1, 7, 30))
    report = await run(bot)
    assert (report.sent, report.blocked) == (0, 1)
    p = await person(bot)
    assert not p.active and p.next_due_utc is None
    row = await record(bot, USER, "2026-12-01")
    assert row is not None and row.status == "failed"
    calls = len(bot.emu.calls)
    bot.clock.set(utc(2026, 12, 2, 7, 30))
    assert (await run(bot)).due == 0
    assert len(bot.emu.calls) == calls  # not even an attempt
    bot.emu.unblock(USER)
    await bot.send("/start")
    await bot.next(containing="Welcome back")
    p = await person(bot)
    assert p.active and due_at(p) == utc(2026, 12, 3, 7, 30)
    bot.clock.set(utc(2026, 12, 3, 7, 30))
    assert (await run(bot)).sent == 1
    assert len(prompts_to(bot)) == 1


async def test_neutral_wording_and_silent(bot: BotUnderTest) -> None:
    await join(bot, discreet=True)  # discreet mode turns on neutral wording and silence
    await join(bot, LONDON)
    bot.clock.set(utc(2026, 12, 1, 7, 30))
    await run(bot)
    [quiet] = prompts_to(bot)
    assert (quiet.text or "").splitlines()[0] == "Your daily check-in"
    assert quiet.disable_notification
    # Nothing else in it until the person asks: previews show more than one line.
    assert not any(p.text[:30] in (quiet.text or "") for p in bot.services.content.prompts)
    await bot.press(quiet, "Show")
    shown = await bot.find("Your words are kept")
    assert shown.message_id == quiet.message_id
    assert any(p.text[:30] in (shown.text or "") for p in bot.services.content.prompts)
    assert "Show" not in [label for label, _ in buttons_of(shown)]
    [plain] = prompts_to(bot, LONDON)
    first_line = (plain.text or "").splitlines()[0]
    assert first_line != "Your daily check-in"
    assert any(first_line in p.text for p in bot.services.content.prompts)
    assert not plain.disable_notification


async def test_snooze_resends_the_same_prompt_once(bot: BotUnderTest) -> None:
    await join(bot)
    bot.clock.set(utc(2026, 12, 1, 7, 30))
    await run(bot)
    [prompt] = prompts_to(bot)
    bot.clock.set(utc(2026, 12, 1, 7, 40))
    bot.skip_all()
    await bot.press(prompt, "Remind me in an hour")
    await bot.next(containing="in about an hour")
    assert buttons_of(bot.emu.messages_to(USER)[prompt.index]) == []  # can't press twice
    bot.clock.set(utc(2026, 12, 1, 8, 39))
    assert (await run(bot)).sent == 0
    bot.clock.set(utc(2026, 12, 1, 8, 40))
    report = await run(bot)
    assert (report.sent, report.resent) == (1, 1)
    first, again = prompts_to(bot)
    assert again.text == first.text
    row = await record(bot, USER, "2026-12-01")
    assert row is not None and row.status == "sent" and row.message_id == again.message_id
    assert due_at(await person(bot)) == utc(2026, 12, 2, 7, 30)
    bot.clock.set(utc(2026, 12, 2, 7, 30))
    assert (await run(bot)).sent == 1
    assert len(prompts_to(bot)) == 3


async def test_snooze_during_downtime_is_not_sent_late(bot: BotUnderTest) -> None:
    await join(bot)
    bot.clock.set(utc(2026, 12, 1, 7, 30))
    await run(bot)
    [prompt] = prompts_to(bot)
    await bot.press(prompt, "Remind me in an hour")
    await bot.next(containing="in about an hour")
    await bot.stop()
    bot.clock.set(utc(2026, 12, 1, 11, 31))
    await bot.start()
    assert (await run(bot)).sent == 0
    row = await record(bot, USER, "2026-12-01")
    assert row is not None and row.status == "sent"
    assert due_at(await person(bot)) == utc(2026, 12, 2, 7, 30)


async def test_skip_today_from_settings(bot: BotUnderTest) -> None:
    await join(bot)
    bot.clock.set(utc(2026, 12, 1, 6, 0))
    await bot.send("/settings")
    menu = await bot.next(containing="Your settings")
    await bot.press(menu, "Skip today's check-in")
    await bot.next(containing="no check-in today")
    await bot.settle()
    menu = bot.emu.messages_to(USER)[menu.index]  # the menu, edited in place
    assert "Don't skip today" in [label for label, _ in buttons_of(menu)]
    bot.clock.set(utc(2026, 12, 1, 7, 30))
    report = await run(bot)
    assert (report.sent, report.skipped) == (0, 1)
    bot.clock.set(utc(2026, 12, 2, 7, 30))
    assert (await run(bot)).sent == 1


async def test_skip_can_be_undone_before_the_prompt(bot: BotUnderTest) -> None:
    await join(bot)
    bot.clock.set(utc(2026, 12, 1, 6, 0))
    await bot.send("/settings")
    menu = await bot.next(containing="Your settings")
    await bot.press(menu, "Skip today's check-in")
    await bot.next(containing="no check-in today")
    await bot.settle()
    await bot.press(bot.emu.messages_to(USER)[menu.index], "Don't skip today")
    await bot.next(containing="back on")
    bot.clock.set(utc(2026, 12, 1, 7, 30))
    assert (await run(bot)).sent == 1


async def test_pause_from_the_prompt_and_resume(bot: BotUnderTest) -> None:
    await join(bot)
    bot.clock.set(utc(2026, 12, 1, 7, 30))
    await run(bot)
    [prompt] = prompts_to(bot)
    bot.skip_all()
    await bot.press(prompt, "Pause check-ins")
    paused = await bot.next(containing="paused")
    assert (await person(bot)).next_due_utc is None
    bot.clock.set(utc(2026, 12, 2, 7, 30))
    assert (await run(bot)).due == 0
    await bot.press(paused, "Resume check-ins")
    await bot.next(containing="back on, at 07:30")
    assert due_at(await person(bot)) == utc(2026, 12, 3, 7, 30)
    # /settings shows the pause the prompt's button set, and can undo it too.
    await bot.send("/settings")
    menu = await bot.next(containing="Your settings")
    assert "(paused)" not in (menu.text or "")
    await bot.press(menu, "Pause check-ins")
    await bot.settle()
    menu = bot.emu.messages_to(USER)[menu.index]
    assert "(paused)" in (menu.text or "")
    assert (await person(bot)).next_due_utc is None
    await bot.press(menu, "Resume check-ins")
    await bot.settle()
    assert due_at(await person(bot)) == utc(2026, 12, 3, 7, 30)


async def test_days_of_the_week(bot: BotUnderTest) -> None:
    await join(bot)
    await bot.send("/settings")
    menu = await bot.next(containing="Your settings")
    await bot.press(menu, "Choose days")
    days = await bot.find("Which days")
    await bot.press(days, data="day:tue")
    await bot.settle()
    days = await bot.find("Which days")
    await bot.press(days, data="day:done")
    await bot.settle()
    assert due_at(await person(bot)) == utc(2026, 12, 2, 7, 30)  # Wednesday
    bot.clock.set(utc(2026, 12, 1, 7, 30))
    assert (await run(bot)).due == 0
    bot.clock.set(utc(2026, 12, 2, 7, 30))
    assert (await run(bot)).sent == 1
    assert due_at(await person(bot)) == utc(2026, 12, 3, 7, 30)


async def test_tick_job_runs_a_pass(bot: BotUnderTest) -> None:
    await join(bot)
    daily(bot)
    assert bot.runtime is not None
    job = bot.runtime.jobs.get(JOB_NAME)
    assert job is not None
    assert (job.job.coalesce, job.job.max_instances) == (True, 1)
    assert job.job.misfire_grace_time is not None
    bot.clock.set(utc(2026, 12, 1, 7, 30))
    assert bot.runtime is not None and bot.runtime.app is not None
    await job.run(bot.runtime.app)  # what APScheduler calls on each tick
    await bot.next(containing=HINT)


async def test_a_reply_lands_in_the_journal_and_journal_shows_it(bot: BotUnderTest) -> None:
    prompt = await prompt_arrives(bot)
    bot.clock.advance(timedelta(minutes=20))
    await bot.send("The kettle, the window, a blue mug.", reply_to_message_id=prompt.message_id)
    await bot.next(containing="Saved to your journal")
    assert await entries(bot) == ["The kettle, the window, a blue mug."]
    stored = (await journal(bot).page(await person(bot), 0, 1)).entries[0]
    assert stored.prompt_id == (await record(bot, USER, "2026-12-01")).prompt_id  # type: ignore[union-attr]
    await bot.send("/journal")
    shown = await bot.next(containing="Your journal")
    assert "The kettle, the window, a blue mug." in (shown.text or "")
    assert shown.protect_content
    assert "Tue 1 Dec, 07:50" in (shown.text or "")  # London local time


async def test_free_text_within_twelve_hours_is_a_reply(bot: BotUnderTest) -> None:
    await prompt_arrives(bot)
    bot.clock.advance(timedelta(hours=11, minutes=59))
    await bot.send("Late, but here: I noticed the rain.")
    saved = await bot.next(containing="Saved to your journal")
    assert [label for label, _ in buttons_of(saved)] == ["Undo"]
    # Only the first free text: more is offered to keep, not swept in.
    bot.clock.advance(timedelta(minutes=3))
    await bot.send("And the smell of it.")
    await bot.next(containing="Would you like it in your journal?")
    bot.clock.advance(timedelta(minutes=30))
    await bot.send("hello?")  # a greeting, never an entry
    await bot.next(containing="I'm here")
    assert await entries(bot) == ["Late, but here: I noticed the rain."]


async def test_free_text_after_twelve_hours_is_not_a_reply(bot: BotUnderTest) -> None:
    await prompt_arrives(bot)
    bot.clock.advance(timedelta(hours=12, minutes=1))
    await bot.send("Is anyone there?")
    await bot.next(containing="/worksheets")
    assert await entries(bot) == []


async def test_pending_question_gets_free_text_a_reply_goes_to_the_journal(
    bot: BotUnderTest,
) -> None:
    prompt = await prompt_arrives(bot)
    p = await person(bot)
    await bot.services.people.set_state(p, "setup:time:settings")  # a question is waiting
    await bot.send("sunlight on the floor")
    await bot.next(containing="didn't catch that time")
    # An explicit Telegram reply to the prompt goes where it points: to the journal, so
    # the words are kept rather than misread as a time; the question stays open.
    await bot.send("the kettle", reply_to_message_id=prompt.message_id)
    await bot.next(containing="Saved to your journal")
    assert await entries(bot) == ["the kettle"]
    assert (await person(bot)).state == "setup:time:settings"


async def test_skip_on_the_prompt_closes_the_reply_window(bot: BotUnderTest) -> None:
    prompt = await prompt_arrives(bot)
    await bot.press(prompt, "Skip today")
    await bot.next(containing="nothing more from me today")
    await bot.send("just chatting")
    await bot.next(containing="/worksheets")
    assert await entries(bot) == []
    # An explicit Telegram reply is still the person's choice to write.
    await bot.send("actually, one thing", reply_to_message_id=prompt.message_id)
    await bot.next(containing="Saved to your journal")


async def test_an_edited_reply_updates_its_entry(bot: BotUnderTest) -> None:
    prompt = await prompt_arrives(bot)
    message_id = await bot.send("I felt tierd", reply_to_message_id=prompt.message_id)
    await bot.next(containing="Saved to your journal")
    await bot.edit(message_id, "I felt tired, and that's allowed")
    await bot.settle()
    assert await entries(bot) == ["I felt tired, and that's allowed"]
    assert bot.unread() == []  # no chatter about an edit


async def test_a_crisis_reply_is_kept_only_when_asked_without_a_cheerful_ack(
    bot: BotUnderTest,
) -> None:
    prompt = await prompt_arrives(bot)
    await bot.send("some days I want to die", reply_to_message_id=prompt.message_id)
    reply = await bot.next(containing="glad you told me")
    await bot.settle()
    assert await entries(bot) == []  # held until they choose
    assert not any("Saved to your journal" in (m.text or "") for m in bot.unread())
    await bot.press(reply, "Keep in my journal")
    await bot.next(containing="Kept in your journal")
    assert await entries(bot) == ["some days I want to die"]


async def test_journal_pages(bot: BotUnderTest) -> None:
    prompt = await prompt_arrives(bot)
    long = "word " * 819  # the longest a person can send: with the heading, over one message
    for n in range(7):
        bot.clock.advance(timedelta(minutes=1))
        text = long if n == 5 else f"entry {n}"
        await bot.send(text, reply_to_message_id=prompt.message_id)
        await bot.next(containing="Saved to your journal")
    await bot.send("/journal")
    first = await bot.next(containing="Your journal")
    text = first.text or ""
    assert "page 1 of 2" in text
    assert "entry 6" in text and "entry 2" in text and "entry 1" not in text
    assert len(text.encode("utf-16-le")) // 2 <= 4096
    assert first.protect_content
    labels = [label for label, _ in buttons_of(first)]
    assert "Older" in labels and "Newer" not in labels
    await bot.press(first, "Older")
    await bot.settle()
    older = bot.emu.messages_to(USER)[first.index]
    assert "page 2 of 2" in (older.text or "")
    assert "entry 1" in (older.text or "") and "entry 0" in (older.text or "")
    assert [label for label, _ in buttons_of(older)] == ["Newer", "Close"]
    await bot.press(older, "Close")
    await bot.settle()
    assert first.message_id in bot.emu.deleted_ids(USER)


async def test_empty_journal(bot: BotUnderTest) -> None:
    await bot.onboard()  # no daily check-in chosen
    await bot.send("/journal")
    shown = await bot.next(containing="journal is empty")
    assert "turn them on in /settings" in (shown.text or "")


async def test_forget_removes_deliveries_and_journal(bot: BotUnderTest) -> None:
    prompt = await prompt_arrives(bot)
    await bot.send("mine", reply_to_message_id=prompt.message_id)
    await bot.next(containing="Saved to your journal")
    p = await person(bot)
    await bot.send("/forget")
    confirm = await bot.next(containing="Delete everything")
    await bot.press(confirm, data="forget:yes")
    await bot.settle()
    db = bot.services.db
    for table in ("deliveries", "journal"):
        row = await db.fetch_one(
            f"SELECT COUNT(*) AS n FROM {table} WHERE person_id = ?", (p.person_id,)
        )
        assert row is not None and row["n"] == 0


async def test_no_check_in_before_onboarding_is_finished(bot: BotUnderTest) -> None:
    daily(bot)
    await bot.send("/start")
    ask = await bot.next(containing="Which country")
    await bot.press(ask, data="cty:GB")
    await bot.next(containing="check-in once a day")
    await bot.send("07:30")
    safety = await bot.next(containing="Could someone else read")
    bot.clock.set(utc(2026, 12, 1, 7, 30))  # they stopped at the safety question
    report = await run(bot)
    assert report.sent == 0
    await bot.press(safety, "Yes, maybe")  # later they come back and finish
    advice = await bot.next(containing="passcode")
    await bot.press(advice, "Turn on discreet mode")
    await bot.next(containing="All set")
    bot.clock.set(utc(2026, 12, 2, 7, 30))
    await run(bot)
    assert prompts_to(bot, USER)[-1].disable_notification  # silent, as they chose


async def test_a_new_time_keeps_a_pause(bot: BotUnderTest) -> None:
    await join(bot)
    await bot.send("/settings")
    menu = await bot.next(containing="Your settings")
    await bot.press(menu, "Pause check-ins")
    await bot.settle()
    await bot.send("/settings")
    menu = await bot.next(containing="Your settings")
    await bot.press(menu, "Change check-in time")
    await bot.find("What time would you like")
    await bot.send("20:00")
    await bot.next(containing="still paused")
    bot.clock.set(utc(2026, 12, 1, 20, 0))
    assert (await run(bot)).sent == 0


async def test_a_timed_out_prompt_is_not_sent_twice(
    emulator: BotApiEmulator, tmp_path: Path, clock: ManualClock
) -> None:
    settings = make_settings(tmp_path / "data", emulator.base_url, http_timeout=GIVE_UP)
    under_test = BotUnderTest(emulator, settings, clock)
    await under_test.start()
    try:
        await join(under_test)
        emulator.inject_fault("sendMessage", "timeout", times=1, chat_id=USER, delay=TOO_LATE)
        under_test.clock.set(utc(2026, 12, 1, 7, 30))
        report = await run(under_test)
        assert (report.sent, report.unknown) == (0, 1)
        # The emulator finishes the slow answer after the bot gave up: it did arrive, once.
        await emulator.wait_for_message(USER, predicate=lambda m: HINT in (m.text or ""))
        assert len(prompts_to(under_test, USER)) == 1
        assert (await run(under_test)).sent == 0  # and nothing re-sends it
        assert len(prompts_to(under_test, USER)) == 1
    finally:
        await under_test.stop()


async def test_a_reply_after_a_timed_out_prompt_is_kept(
    emulator: BotApiEmulator, tmp_path: Path, clock: ManualClock
) -> None:
    settings = make_settings(tmp_path / "data", emulator.base_url, http_timeout=GIVE_UP)
    under_test = BotUnderTest(emulator, settings, clock)
    await under_test.start()
    try:
        await join(under_test)
        emulator.inject_fault("sendMessage", "timeout", times=1, chat_id=USER, delay=TOO_LATE)
        under_test.clock.set(utc(2026, 12, 1, 7, 30))
        await run(under_test)
        await emulator.wait_for_message(USER, predicate=lambda m: HINT in (m.text or ""))
        under_test.skip_all()
        under_test.clock.advance(timedelta(minutes=10))
        await under_test.send("it did arrive, and here is my answer")
        await under_test.next(containing="Saved to your journal")
    finally:
        await under_test.stop()


async def test_skip_today_on_yesterdays_prompt_skips_today(bot: BotUnderTest) -> None:
    yesterday = await prompt_arrives(bot)  # Tue 1 Dec, 07:30 London
    bot.clock.set(utc(2026, 12, 2, 6, 0))  # Wednesday, before its check-in
    await bot.press(yesterday, "Skip today")
    await bot.settle()
    bot.clock.set(utc(2026, 12, 2, 7, 30))
    assert (await run(bot)).sent == 0  # Wednesday's was skipped, as the button said
    bot.clock.set(utc(2026, 12, 3, 7, 30))
    assert (await run(bot)).sent == 1  # and Thursday's comes as usual


async def test_forged_journal_page_is_ignored(bot: BotUnderTest) -> None:
    await join(bot)
    await bot.send("/journal")
    shown = await bot.next(containing="journal")
    for data in ("jrn:²", "jrn:-5", "jrn:99999999", "jrn:", "jrn:1e3"):
        await bot.press(shown, data=data)
    await bot.settle()
    assert not [m for m in bot.unread() if "went wrong" in (m.text or "")]


async def test_discreet_mode_removes_journal_replies(bot: BotUnderTest) -> None:
    await join(bot, discreet=True)
    bot.clock.set(utc(2026, 12, 1, 7, 30))
    await run(bot)
    [prompt] = prompts_to(bot)
    reply = await bot.send("words I don't want left here", reply_to_message_id=prompt.message_id)
    await bot.find("Saved to your journal")
    await bot.settle()
    assert reply in bot.emu.deleted_ids(USER)
    assert await entries(bot) == ["words I don't want left here"]


async def test_check_in_commands(bot: BotUnderTest) -> None:
    await join(bot)
    names = [c["command"] for c in bot.emu.commands]
    assert {"checkin", "pause", "skip"} <= set(names)
    bot.clock.set(utc(2026, 12, 1, 6, 0))  # Tuesday morning, before the check-in
    await bot.send("/skip")
    await bot.next(containing="no check-in today")
    bot.clock.set(utc(2026, 12, 1, 7, 30))
    assert (await run(bot)).sent == 0  # Tuesday's was skipped...
    await bot.send("/pause")
    await bot.next(containing="paused")
    bot.clock.set(utc(2026, 12, 2, 7, 30))
    assert (await run(bot)).sent == 0  # ...and then everything paused
    await bot.send("/checkin")
    await bot.next(containing="Your settings")


async def test_paid_broadcast_marks_check_ins_only(
    emulator: BotApiEmulator, tmp_path: Path, clock: ManualClock
) -> None:
    """BOT_PAID_BROADCAST: prompts carry allow_paid_broadcast (Telegram's higher, paid
    rate); nothing else the bot sends does."""
    settings = make_settings(tmp_path / "data", emulator.base_url, paid_broadcast=True)
    under_test = BotUnderTest(emulator, settings, clock)
    await under_test.start()
    try:
        await join(under_test)
        under_test.clock.set(utc(2026, 12, 1, 7, 30))
        assert (await run(under_test)).sent == 1
        # Method names are case-insensitive; the prompt goes out as "sendmessage" (daily.py).
        sends = [p for method, p in emulator.calls if method.lower() == "sendmessage"]
        paid = [p for p in sends if p.get("allow_paid_broadcast")]
        assert len(paid) == 1 and HINT in str(paid[0].get("text"))
        assert len(sends) > 1  # the onboarding messages went out unmarked
    finally:
        await under_test.stop()
