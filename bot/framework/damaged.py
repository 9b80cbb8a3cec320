"""One damaged row, offered for erasure: after /resume, a worksheet's review, /journal or
/export showed everything else, a row that did not open (noted by the worksheet and
journal services, bot/people/damaged.py) is named in one message with [Erase it] and
[Keep it]. The whole person's data not opening is another matter (the settings row, the
key): that is `offer_erasure` of /forget."""

from __future__ import annotations

import logging

from telegram import Update

from bot.core.callbacks import Choice
from bot.framework.chat import current_person, replace_or_say, say
from bot.framework.context import Context
from bot.people.service import Person

log = logging.getLogger(__name__)


class DamagedButton(
    Choice, prefix="dmg", pattern=r"(?:erase|keep):(?:a:[0-9]{1,12}|j:[0-9a-f]{24})"
):
    """`dmg:erase|keep:a:<message id>` (a worksheet answer's part) or `...:j:<entry id>`
    (a journal entry): one row that no longer opens, erased or left as it is."""

    @property
    def erase(self) -> bool:
        return self.value.startswith("erase:")

    @property
    def kind(self) -> str:
        return self.value.split(":")[1]

    @property
    def key(self) -> str:
        return self.value.split(":")[2]


async def offer_damaged(context: Context, person: Person) -> None:
    """Say so for each row that did not open in what was just shown (none: nothing)."""
    services = context.services
    found = [("a", str(m)) for m in services.worksheet_flow.take_damaged(person)]
    found += [("j", e) for e in services.journal.take_damaged(person)]
    tx = context.tx
    for kind, key in found:
        buttons = [
            [(tx("damaged.btn_erase"), DamagedButton(f"erase:{kind}:{key}").encode())],
            [(tx("damaged.btn_keep"), DamagedButton(f"keep:{kind}:{key}").encode())],
        ]
        await say(context, person.chat_id, tx("damaged.offer"), person=person, buttons=buttons)


async def on_damaged_button(update: Update, context: Context, data: DamagedButton) -> None:
    person = await current_person(update, context)
    if person is None:
        return
    tx = context.tx
    if not data.erase:
        await replace_or_say(context, update, tx("damaged.kept"), person=person)
        return
    services = context.services
    if data.kind == "a":
        erased = await services.worksheet_flow.erase_damaged(person, int(data.key))
    else:
        erased = await services.journal.erase_damaged(person, data.key)
    log.info("damaged row erased" if erased else "damaged row kept: it opens")
    await replace_or_say(
        context, update, tx("damaged.erased" if erased else "damaged.kept"), person=person
    )
