"""Deleting a chat's messages when Telegram's deleteMessages is all-or-nothing (one id that
cannot be deleted refuses the whole batch): every deletable id still goes, in few calls,
and a failure to reach Telegram is handed back for a retry, never raised."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from telegram import Bot
from telegram.error import BadRequest, NetworkError

from bot.framework.chat import delete_all, delete_quietly
from bot.framework.context import Context


class AllOrNothing:
    """deleteMessages as Telegram does it: refused whole if any id cannot go."""

    def __init__(self, present: set[int], stuck: set[int], down: int = 0) -> None:
        self.present, self.stuck, self.down = present, stuck, down
        self.calls = 0

    def _call(self) -> None:
        self.calls += 1
        if self.down:
            self.down -= 1
            raise NetworkError("unreachable")

    async def delete_messages(self, chat_id: int, ids: Sequence[int], **_: Any) -> bool:
        self._call()
        if any(i in self.stuck or i not in self.present for i in ids):
            raise BadRequest("Message can't be deleted")
        self.present -= set(ids)
        return True

    async def delete_message(self, chat_id: int, message_id: int, **_: Any) -> bool:
        return await self.delete_messages(chat_id, [message_id])


NO_CONTEXT = cast(Context, None)


async def test_every_deletable_id_goes_though_some_refuse_the_batch() -> None:
    ids = list(range(1, 251))
    fake = AllOrNothing(present=set(ids) - {40}, stuck={7, 130, 131})
    later = await delete_all(NO_CONTEXT, 1, ids, bot=cast(Bot, fake))
    assert later == []
    assert fake.present == {7, 130, 131}  # only what Telegram would never delete
    assert fake.calls < 60  # halving, not one call per id (250)


async def test_unreachable_telegram_hands_the_ids_back() -> None:
    ids = list(range(1, 151))
    fake = AllOrNothing(present=set(ids), stuck=set(), down=1)
    later = await delete_all(NO_CONTEXT, 1, ids, bot=cast(Bot, fake))
    assert sorted(later) == list(range(1, 101))  # the first batch, for the caller to retry
    assert fake.present == set(range(1, 101))
    assert await delete_all(NO_CONTEXT, 1, later, bot=cast(Bot, fake)) == []
    assert fake.present == set()


async def test_delete_quietly_counts_what_went() -> None:
    fake = AllOrNothing(present=set(range(1, 11)), stuck={3})
    assert await delete_quietly(NO_CONTEXT, 1, list(range(1, 11)), bot=cast(Bot, fake)) == 9
