"""Webhook mode end to end: the emulator posts updates as Telegram does; the bot answers
each POST only once the update is handled."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from telegram import Update

from bot.core.clock import ManualClock
from bot.emulator import BotApiEmulator
from bot.logs import pin_noisy_loggers
from bot.storage.updates import UpdateStore
from bot.transport.webhook import SECRET_HEADER, WebhookServer
from tests.helpers.bot import USER, BotUnderTest, make_settings
from tests.helpers.webhook import (
    SECRET,
    free_port,
    hook_url,
    set_webhook,
)

METRICS_TOKEN = "metrics-token-for-tests"


@pytest.fixture
async def hooked(
    emulator: BotApiEmulator, tmp_path: Path, clock: ManualClock
) -> AsyncIterator[BotUnderTest]:
    pin_noisy_loggers()
    port = free_port()
    settings = make_settings(
        tmp_path / "data",
        emulator.base_url,
        webhook_url=f"http://127.0.0.1:{port}/tg/hook",
        webhook_listen=("127.0.0.1", port),
        webhook_secret=SECRET,
        metrics_token=METRICS_TOKEN,
    )
    under_test = BotUnderTest(emulator, settings, clock)
    await under_test.start()
    try:
        yield under_test
    finally:
        await under_test.stop()
        assert not emulator.internal_errors, emulator.internal_errors


async def test_a_wrong_secret_gets_403_and_nothing_is_handled(hooked: BotUnderTest) -> None:
    update = {
        "update_id": 7,
        "message": {
            "message_id": 1,
            "date": 0,
            "text": "danger",
            "chat": {"id": USER, "type": "private"},
            "from": {"id": USER, "is_bot": False, "first_name": "T"},
        },
    }
    base = hook_url(hooked).rsplit("/tg/hook", 1)[0]
    async with aiohttp.ClientSession() as http:
        for headers in ({}, {SECRET_HEADER: "wrong"}, {SECRET_HEADER: SECRET + "x"}):
            async with http.post(hook_url(hooked), json=update, headers=headers) as response:
                assert response.status == 403
        async with http.post(
            hook_url(hooked), data=b"not json", headers={SECRET_HEADER: SECRET}
        ) as response:
            assert response.status == 400
        async with http.get(f"{base}/healthz") as response:
            assert response.status == 200
        bearer = {"Authorization": f"Bearer {METRICS_TOKEN}"}
        async with http.get(f"{base}/metrics", headers=bearer) as response:
            page = await response.text()
    assert 'steady_updates_total{outcome="rejected"} 3.0' in page
    assert "danger" not in page
    assert hooked.emu.messages_to(USER) == []  # nothing was handled


async def test_metrics_need_the_configured_token_and_are_off_without_one(
    hooked: BotUnderTest,
) -> None:
    """Issue 27 (minor): /metrics answered anyone who could reach the webhook's port."""
    base = hook_url(hooked).rsplit("/tg/hook", 1)[0]
    async with aiohttp.ClientSession() as http:
        for headers in (
            {},
            {"Authorization": "Bearer wrong"},
            {"Authorization": METRICS_TOKEN},
            {"Authorization": f"Bearer {METRICS_TOKEN}x"},
        ):
            async with http.get(f"{base}/metrics", headers=headers) as response:
                assert response.status == 401
                assert "steady_" not in await response.text()
        bearer = {"Authorization": f"Bearer {METRICS_TOKEN}"}
        async with http.get(f"{base}/metrics", headers=bearer) as response:
            assert response.status == 200
            assert "steady_updates_total" in await response.text()
    # A replica with no token configured does not serve the page at all.
    runtime = hooked.runtime
    assert runtime is not None and runtime.app is not None
    server = WebhookServer(
        runtime.app,
        url=hook_url(hooked),
        listen=("127.0.0.1", 0),
        secret=SECRET,
        seen=UpdateStore(hooked.services.db),
        metrics=hooked.services.metrics,
        clock=hooked.clock,
    )
    await server.start()
    try:
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{server.port}/metrics") as response:
                assert response.status == 404
            async with http.get(f"http://127.0.0.1:{server.port}/healthz") as response:
                assert response.status == 200
    finally:
        await server.stop()


async def test_duplicates_change_nothing_but_crisis_replies_are_never_held_back(
    hooked: BotUnderTest,
) -> None:
    await set_webhook(hooked)
    pusher = await hooked.emu.push_webhook(duplicate=True)
    await hooked.onboard()
    sent_once = hooked.emu.stats["sendMessage"]
    await hooked.send("danger")
    await hooked.next(containing="999")
    await hooked.next(containing="999")  # the redelivered crisis message: answered again
    await hooked.settle()
    ids = [update_id for update_id, _, _ in pusher.log.posts]
    assert len(ids) == 2 * len(set(ids)) and all(s == 200 for _, _, s in pusher.log.posts)
    metrics = hooked.services.metrics
    handled = metrics.updates.labels(outcome="handled").value
    duplicate = metrics.updates.labels(outcome="duplicate").value
    assert handled == duplicate == len(set(ids))  # every second delivery did nothing...
    assert hooked.emu.stats["sendMessage"] == sent_once + 2  # ...but the crisis reply
    page = metrics.render().decode()
    assert 'steady_crisis_replies_total{kind="danger"}' in page


async def test_getupdates_is_refused_while_a_webhook_is_set(hooked: BotUnderTest) -> None:
    await set_webhook(hooked)
    assert hooked.emu.webhook is not None and hooked.emu.webhook.secret == SECRET
    assert hooked.runtime is not None and hooked.runtime.app is not None
    info = await hooked.runtime.app.bot.get_webhook_info()
    assert info.url == hook_url(hooked)
    await hooked.runtime.app.bot.delete_webhook()
    assert hooked.emu.webhook is None


def _user(uid: int) -> dict[str, object]:
    return {"id": uid, "is_bot": False, "first_name": "T"}


# Real shapes of updates that carry no chat, or no private chat (issue 27, finding 7): the
# route must answer every one 200 and go on to the next person's crisis message.
ODD_UPDATES: list[dict[str, object]] = [
    {  # a button on an inline-mode message: no message, only inline_message_id
        "callback_query": {
            "id": "q1",
            "from": _user(USER + 5),
            "chat_instance": "42",
            "inline_message_id": "AAAA",
            "data": "x",
        }
    },
    {"inline_query": {"id": "q2", "from": _user(USER + 5), "query": "help", "offset": ""}},
    {
        "poll": {
            "id": "p1",
            "question": "help?",
            "options": [{"text": "a", "voter_count": 0}],
            "total_voter_count": 0,
            "is_closed": False,
            "is_anonymous": True,
            "type": "regular",
            "allows_multiple_answers": False,
        }
    },
    {
        "my_chat_member": {
            "chat": {"id": USER + 5, "type": "private", "first_name": "T"},
            "from": _user(USER + 5),
            "date": 0,
            "old_chat_member": {"status": "member", "user": _user(99)},
            "new_chat_member": {"status": "kicked", "user": _user(99), "until_date": 0},
        }
    },
    {
        "channel_post": {
            "message_id": 3,
            "date": 0,
            "text": "help",
            "chat": {"id": -100123, "type": "channel", "title": "c"},
        }
    },
    # A message that lost its chat (Bot API drift, a proxy that trims): PTB still parses it.
    {"message": {"message_id": 4, "date": 0, "text": "help", "from": _user(USER + 5)}},
    {"edited_message": {"message_id": 5, "date": 0, "edit_date": 1, "text": "help me"}},
]


async def test_updates_without_a_chat_never_get_500_and_the_next_crisis_is_answered(
    hooked: BotUnderTest,
) -> None:
    async with aiohttp.ClientSession() as http:
        for number, body in enumerate(ODD_UPDATES, start=100):
            update = {"update_id": number, **body}
            async with http.post(
                hook_url(hooked), json=update, headers={SECRET_HEADER: SECRET}
            ) as response:
                assert response.status == 200, (sorted(body), response.status)
    await set_webhook(hooked)
    await hooked.emu.push_webhook()
    await hooked.send("I want to die")
    await hooked.next(containing="999")


async def test_the_common_update_is_parsed_lean_on_the_webhook_too(
    hooked: BotUnderTest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person's plain text reaches the handlers with PTB's general parser broken (issue
    25: the webhook takes the lean parse, as polling does); without the lean path the
    update is skipped as unparsable and nothing is answered."""

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("PTB's update parser")

    await set_webhook(hooked)
    await hooked.emu.push_webhook()
    await hooked.onboard()
    monkeypatch.setattr(Update, "de_json", broken)
    await hooked.send("I went for a walk today")
    await hooked.next(containing="Would you like it in your journal?")  # the keep offer
    unparsable = hooked.services.metrics.updates.labels(outcome="unparsable").value
    assert unparsable == 0
