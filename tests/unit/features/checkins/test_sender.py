"""The check-in's sendMessage body: what goes to Telegram for each claim, built from the
parts that are the same for everyone once (sender.py) and the same as built afresh."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest

from bot.content.prompt_model import Prompt, choose_next_prompt, current_cycle
from bot.core.buttons import Rows
from bot.features.checkins.policy import Claim, PromptPicker, pick_prompt
from bot.features.checkins.sender import CheckinSender
from bot.features.checkins.views import prompt_buttons, prompt_text
from bot.storage.deliveries import DELIVERED, DeliveryRow
from bot.transport.send_outcome import SendOutcome
from tests.helpers.bot import shared_content

CONTENT = shared_content()
PROMPTS = CONTENT.prompts


def markup(rows: Rows) -> dict[str, Any]:
    return {"inline_keyboard": [[{"text": t, "callback_data": d} for t, d in row] for row in rows]}


async def never(chat_id: int, body: bytes) -> SendOutcome:
    raise AssertionError("not sent here")


def claim(n: int, **changes: Any) -> Claim:
    values: dict[str, Any] = {
        "person_id": f"p{n}",
        "chat_id": 1000 + n,
        "local_date": "2026-12-01",
        "prompt": PROMPTS[n % len(PROMPTS)],
        "neutral": False,
        "silent": False,
        "resend": False,
        "due_utc": 0,
        "next_due_utc": None,
        "next_due_date": None,
        "language": "en",
        "country": None,
    }
    return Claim(**(values | changes))


def expected(c: Claim, *, day: int | None = None, paid: bool = False) -> dict[str, Any]:
    """The body as the Bot API reads it, built from the views directly."""
    locale = CONTENT.locales.variant(c.language, c.country)
    text = prompt_text(
        locale.texts, locale.prompts.get(c.prompt.id, c.prompt.text), neutral=c.neutral
    )
    if day is not None:
        text += "\n\n" + locale.texts("nocontact.checkin_line", day=day)
    body: dict[str, Any] = {
        "chat_id": c.chat_id,
        "text": text,
        "reply_markup": markup(prompt_buttons(locale.texts, c.local_date, show=c.neutral)),
    }
    if c.silent:
        body["disable_notification"] = True
    if paid:
        body["allow_paid_broadcast"] = True
    return body


@pytest.mark.parametrize("paid", [False, True])
def test_every_body_is_what_its_claim_says_whatever_was_sent_before(paid: bool) -> None:
    async def count_day(person_id: str) -> int | None:
        return None if person_id == "p3" else 40 + int(person_id[1:])

    sender = CheckinSender(never, CONTENT.locales, markup, count_day, paid_broadcast=paid)
    variety = [
        claim(1),
        claim(2, chat_id=-100123),  # the same prompt's bytes with another chat
        claim(1, chat_id=77),
        claim(2, silent=True),
        claim(4, neutral=True),
        claim(5, neutral=True, count_line=True),  # neutral: no count until "Show"
        claim(6, count_line=True),
        claim(3, count_line=True),  # asked for, but no count to show
        claim(8, local_date="2026-12-02"),
        claim(9, language="pt", country="BR"),
        claim(9, language="pt", country="PT"),  # the regional variant's own words
        claim(9, language="pt", country="BR", chat_id=5),
        claim(10, language="de", neutral=True, silent=True),
    ]
    for c in variety * 2:  # the second round is served from what the first encoded
        body = asyncio.run(sender.body(c))
        day = None if not c.count_line or c.neutral or c.person_id == "p3" else 40 + 6
        assert json.loads(body) == expected(c, day=day, paid=paid), c


def test_a_regional_variant_gets_its_own_buttons_after_its_language() -> None:
    # Both are "pt": a cache known by the code gave Portugal Brazil's buttons (and back).
    sender = CheckinSender(never, CONTENT.locales, markup)
    brazil = json.loads(asyncio.run(sender.body(claim(1, language="pt", country="BR"))))
    portugal = json.loads(asyncio.run(sender.body(claim(1, language="pt", country="PT"))))
    assert brazil["reply_markup"] != portugal["reply_markup"]
    assert portugal == expected(claim(1, language="pt", country="PT"))


def reference_pick(history: list[DeliveryRow], person_id: str, local_date: str) -> Prompt:
    """The pick as written before the picker: the cycle, then a seeded choice."""
    ids = [d.prompt_id for d in history if d.status in DELIVERED and d.prompt_id]
    rng = random.Random(f"{person_id}|{local_date}")
    last = ids[-1] if ids else None
    return choose_next_prompt(PROMPTS, current_cycle(ids, PROMPTS), rng, last_sent=last)


def test_the_picker_picks_what_the_cycle_and_the_seed_say() -> None:
    picker = PromptPicker(PROMPTS)
    rng = random.Random(7)
    statuses = ["sent", "claimed", "snoozed", "skipped", "failed"]
    for n in range(300):
        history = [
            DeliveryRow(f"day-{i:03d}", p.id, rng.choice(statuses), None, 1)
            for i, p in enumerate(rng.choices(PROMPTS, k=rng.randrange(0, 2 * len(PROMPTS))))
        ]
        day = f"2026-12-{1 + n % 28:02d}"
        assert picker(history, f"p{n}", day) == reference_pick(history, f"p{n}", day)
        assert pick_prompt(PROMPTS, history, f"p{n}", day) == reference_pick(history, f"p{n}", day)
