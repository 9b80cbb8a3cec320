"""When the overload queue's slots come back (bot/transport/ordering.py, `pump`): only once
nothing waits and nothing runs. A queue that empties while a batch still runs is no sign
the loop has caught up; reopening every slot then let the next poll start a full burst
ahead of a crisis reply (a CI run saw 32 admitted at once after the governor had lowered
the slots to 8)."""

from __future__ import annotations

from typing import Any

from telegram import Update

from bot.matching.crisis import CrisisMatch
from bot.matching.crisis_screen import CrisisScreen
from bot.transport.ordering import CrisisFirstUpdateProcessor

MOST = 8


def nothing_urgent(text: str) -> CrisisMatch | None:
    return None


def raw(update_id: int, chat: int) -> dict[str, Any]:
    return {
        "update_id": update_id,
        "message": {
            "message_id": update_id,
            "date": 0,
            "chat": {"id": chat, "type": "private"},
            "from": {"id": chat, "is_bot": False, "first_name": "P"},
            "text": "an ordinary answer",
        },
    }


async def finish(processor: CrisisFirstUpdateProcessor, update: Update) -> None:
    async def handled() -> None:
        return None

    await processor.do_process_update(update, handled())


async def test_slots_stay_lowered_while_the_admitted_still_run() -> None:
    screen = CrisisScreen(nothing_urgent)
    processor = CrisisFirstUpdateProcessor(screen, max_concurrent_updates=MOST)
    handed: list[Update] = []
    processor.intake(lambda item: Update.de_json(item, None), handed.append)
    try:
        # The governor saw the loop lag: two slots.
        processor.governor.slots = processor.admission.slots = 2
        for n in range(2):
            processor.admit(raw(n, chat=100 + n), None)
        processor.pump()
        assert len(handed) == 2 and processor.admission.waiting == 0
        # Nothing waits, but both still run: the slots stay where the lag put them.
        assert processor.admission.slots == 2

        # The next poll's batch: two more start, not the full eight.
        for n in range(2, 8):
            processor.admit(raw(n, chat=100 + n), None)
        processor.pump()
        assert len(handed) == 2 and processor.admission.waiting == 6
        await finish(processor, handed[0])
        assert len(handed) == 3  # one done, one more in its slot

        # Everything handled: nothing waits, nothing runs, every slot is open again.
        done = 1
        while done < len(handed):
            await finish(processor, handed[done])
            done += 1
        assert done == 8
        assert processor.admission.slots == MOST
        await processor.drain()  # returns: idle was set
    finally:
        await processor.shutdown()
        await screen.close()
