"""The check-in sender: one claimed prompt becomes one Telegram message.

The pass engine (delivery.py) calls it with a `Claim` and gets back what became of the
send (`SendOutcome`, from the transport edge): the sender knows the message's words and
buttons, the transport knows Telegram, and neither knows the pass.

At the morning peak every prompt is alike but for its text and chat, so the body is
encoded here as JSON bytes: the keyboard (the same for everyone on a date and language)
once per date, the text with the C encoder, no PTB objects on the way out or back
(docs/performance.md has what each of those cost).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from bot.content.locales import Locale, Locales
from bot.core.buttons import Rows
from bot.features.checkins.policy import Claim
from bot.features.checkins.views import prompt_buttons, prompt_text
from bot.transport.send_outcome import SendOutcome

# The no-contact day for a person who asked for it in their check-in (or None).
CountDay = Callable[[str], Awaitable[int | None]]
# Sends a body already encoded as JSON to a chat (bot/transport/send_outcome.py).
PostMessage = Callable[[int, bytes], Awaitable[SendOutcome]]
# The Bot API's JSON form of an inline keyboard (its one builder lives with the handlers).
Markup = Callable[[Rows], dict[str, Any]]

# A few dates x neutral or not x seven languages and their regional variants.
_MARKUPS_KEPT = 64
# Bodies but for the chat: prompts x languages x a date or two x neutral x silent.
_TAILS_KEPT = 4096


class CheckinSender:
    """What the engine calls to send one prompt, in the language stored with the person
    (a job has no update to take it from). `count_day`: the no-contact day, added at the
    end when asked for (never with neutral wording: there it waits for "Show"). With
    `paid_broadcast`, prompts use Telegram's paid higher rate (BOT_PAID_BROADCAST)."""

    def __init__(
        self,
        post: PostMessage,
        locales: Locales,
        markup: Markup,
        count_day: CountDay | None = None,
        *,
        paid_broadcast: bool = False,
    ) -> None:
        self._post = post
        self._locales = locales
        self._markup = markup
        self._count_day = count_day
        self._paid = ',"allow_paid_broadcast":true' if paid_broadcast else ""
        # Both caches know a locale by the object (`id`; the Locales hold every one for the
        # process's life): a regional variant has its language's code, not its texts.
        self._markups: dict[tuple[str, bool, int], str] = {}
        # At the peak thousands get the same prompt on the same date: everything after the
        # chat id is the same bytes for them, encoded once.
        self._tails: dict[tuple[int, str, str, bool, bool], bytes] = {}

    async def __call__(self, claim: Claim) -> SendOutcome:
        return await self._post(claim.chat_id, await self.body(claim))

    async def body(self, claim: Claim) -> bytes:
        """The sendMessage body for `claim`, as JSON bytes."""
        locale = self._locales.variant(claim.language, claim.country)
        head = b'{"chat_id":%d,' % int(claim.chat_id)
        if claim.count_line and not claim.neutral and self._count_day is not None:
            # The person's own count in the text: theirs alone.
            return head + await self._counted_tail(claim, locale)
        key = (id(locale), claim.prompt.id, claim.local_date, claim.neutral, claim.silent)
        tail = self._tails.get(key)
        if tail is None:
            if len(self._tails) >= _TAILS_KEPT:
                self._tails.clear()
            tail = self._tails[key] = self._tail(claim, locale, self._text(claim, locale))
        return head + tail

    async def _counted_tail(self, claim: Claim, locale: Locale) -> bytes:
        text = self._text(claim, locale)
        if self._count_day is not None:
            day = await self._count_day(claim.person_id)
            if day is not None:
                text = f"{text}\n\n{locale.texts('nocontact.checkin_line', day=day)}"
        return self._tail(claim, locale, text)

    def _text(self, claim: Claim, locale: Locale) -> str:
        prompt = locale.prompts.get(claim.prompt.id, claim.prompt.text)
        return prompt_text(locale.texts, prompt, neutral=claim.neutral)

    def _tail(self, claim: Claim, locale: Locale, text: str) -> bytes:
        """The body after the chat id: text, buttons, and the send's options."""
        key = (claim.local_date, claim.neutral, id(locale))
        markup = self._markups.get(key)
        if markup is None:
            if len(self._markups) > _MARKUPS_KEPT:
                self._markups.clear()
            rows = prompt_buttons(locale.texts, claim.local_date, show=claim.neutral)
            markup = json.dumps(self._markup(rows), separators=(",", ":"), ensure_ascii=False)
            self._markups[key] = markup
        silent = ',"disable_notification":true' if claim.silent else ""
        encoded = json.dumps(text, ensure_ascii=False)
        return f'"text":{encoded},"reply_markup":{markup}{silent}{self._paid}}}'.encode()
