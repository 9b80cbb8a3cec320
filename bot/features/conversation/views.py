"""What the bot says to the words that steer it: the menu, "stop", leaving a step, media.
Pure: a translator and facts in, text and buttons out."""

from __future__ import annotations

from collections.abc import Sequence

from bot.content.texts import Tx, feature_list
from bot.core.buttons import Button, Rows
from bot.features.checkins.callbacks import DailyButton
from bot.features.conversation.callbacks import MenuButton, StopButton
from bot.features.crisis.callbacks import CrisisButton

# The kinds of message that are not text, each with its own reply (conversation.media_*).
MEDIA_KINDS = ("photo", "video", "voice", "document", "sticker", "location", "contact", "other")


def support_button(tx: Tx) -> Button:
    # The crisis feature's own "more lines" button: the full list for the person's country.
    return (tx("conversation.btn_support"), CrisisButton("more", "g").encode())


def menu_buttons(tx: Tx, commands: Sequence[str], *, worksheet_waiting: bool) -> Rows:
    """Two to a row, the waiting worksheet first, support lines last."""
    flat: list[Button] = []
    if worksheet_waiting:
        flat.append((tx("conversation.btn_resume"), MenuButton("resume").encode()))
    flat += [(tx(f"conversation.btn_{name}"), MenuButton(name).encode()) for name in commands]
    rows = [flat[i : i + 2] for i in range(0, len(flat), 2)]
    return [*rows, [support_button(tx)]]


def menu_view(
    tx: Tx,
    commands: Sequence[str],
    *,
    lead: str = "",
    waiting: str = "",
    worksheet_waiting: bool = False,
    full: bool = True,
) -> tuple[str, Rows]:
    """`lead`: a line before the menu ("Hi. I'm here."); `waiting`: what still waits for
    them (a question, a paused worksheet); `full`: the list of commands, or the buttons only."""
    parts = [
        p
        for p in (lead, tx("conversation.menu", features=feature_list(tx)) if full else "", waiting)
        if p
    ]
    buttons = menu_buttons(tx, commands, worksheet_waiting=worksheet_waiting)
    return "\n\n".join(parts), buttons


def stop_view(tx: Tx, *, lead: str, on: bool, paused: bool) -> tuple[str, Rows] | None:
    """What "stop" offers for the daily check-ins; None when there are none to stop."""
    if paused:
        text = tx("conversation.stop_offer_paused")
        rows: Rows = [
            [(tx("conversation.btn_end"), StopButton("end").encode())],
            [(tx("daily.btn_resume"), DailyButton("resume").encode())],
        ]
    elif on:
        text = tx("conversation.stop_offer")
        rows = [
            [(tx("conversation.btn_pause"), DailyButton("pause").encode())],
            [(tx("conversation.btn_end"), StopButton("end").encode())],
            [(tx("conversation.btn_keep"), StopButton("keep").encode())],
        ]
    else:
        return None
    return "\n\n".join(p for p in (lead, text) if p), rows


def carry_on_buttons(tx: Tx, step: str) -> Rows:
    """After leaving onboarding: back to the step they left, or support lines."""
    return [
        [(tx("conversation.btn_carry_on"), StopButton(f"carry{step}").encode())],
        [support_button(tx)],
    ]
