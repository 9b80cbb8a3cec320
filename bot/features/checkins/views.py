"""What daily check-ins and the journal look like: the prompt message and its buttons, and
a page of journal entries. Pure: data and a translator in, text and buttons out."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from bot.content.texts import Tx
from bot.core import local_format
from bot.core.buttons import Button, Rows
from bot.core.telegram_text import ELLIPSIS, MESSAGE_LIMIT, truncate, utf16_len
from bot.features.checkins.callbacks import DailyButton, JournalButton
from bot.features.checkins.journal import Entry, Page
from bot.features.urge.views import checkin_rows

PROMPT_PREVIEW = 90  # characters of the prompt shown above each journal entry


def prompt_text(tx: Tx, prompt: str, *, neutral: bool, shown: bool = False) -> str:
    """With neutral wording the message holds nothing but a plain header until the person
    taps "Show": expanded notifications and lock screens show several lines, not just the
    first. Otherwise the prompt itself opens the message."""
    body = f"{prompt}\n\n{tx('daily.reply_hint')}"
    if not neutral:
        return body
    if not shown:
        return f"{tx('daily.neutral_header')}\n\n{tx('daily.neutral_tap')}"
    return f"{tx('daily.neutral_header')}\n\n{body}"


def prompt_buttons(tx: Tx, local_date: str, *, show: bool = False) -> Rows:
    # The date rides along so a button on an old prompt cannot act on today's.
    def button(key: str, action: str, day: str = local_date) -> tuple[str, str]:
        return (tx(key), DailyButton(action, day).encode())

    rows: Rows = [[button("daily.btn_show", "show")]] if show else []
    return [
        *rows,
        [button("daily.btn_snooze", "snooze")],
        [button("daily.btn_skip", "skip"), button("daily.btn_pause", "pause", "")],
        # The day's 1-5 mood (optional) and "A hard moment" (issue 15).
        *checkin_rows(tx, local_date),
    ]


def _when(created_at: int, zone: str, now: dt.datetime, language: str) -> str:
    local = dt.datetime.fromtimestamp(created_at, ZoneInfo(zone))
    other_year = local.year != now.astimezone(ZoneInfo(zone)).year
    return local_format.weekday_moment(local, language, with_year=other_year)


def render_page(
    heading: str,
    entries: list[Entry],
    prompts: dict[str, str],
    zone: str,
    now: dt.datetime,
    limit: int = MESSAGE_LIMIT,
    language: str = "en",
    shortened: str = "",
) -> str:
    """Newest first; each entry gets an equal share of what the message has room for, and
    a short entry's unused share passes on to the ones after it. When one had to be cut,
    `shortened` (one line saying where the whole is) closes the page."""
    blocks: list[tuple[str, str]] = []
    for entry in entries:
        head = _when(entry.created_at, zone, now, language)
        prompt = prompts.get(entry.prompt_id or "")
        if prompt:
            head += f"\n“{truncate(prompt, PROMPT_PREVIEW, marker=ELLIPSIS)}”"
        blocks.append((head, entry.text))
    fixed = utf16_len(heading) + sum(utf16_len(h) + 4 for h, _ in blocks)
    room = limit - fixed - (utf16_len(shortened) + 2 if shortened else 0)
    parts = [heading]
    cut = False
    for index, (head, text) in enumerate(blocks):
        share = max(room // (len(blocks) - index), 1)
        body = truncate(text, share, marker=ELLIPSIS)
        cut = cut or body != text
        room -= utf16_len(body)
        parts.append(f"{head}\n{body}")
    if cut and shortened:
        parts.append(shortened)
    return "\n\n".join(parts)


def journal_page(
    tx: Tx,
    page: Page,
    size: int,
    prompts: dict[str, str],
    zone: str,
    now: dt.datetime,
    *,
    daily_on: bool,
    language: str = "en",
) -> tuple[str, Rows]:
    """One page of /journal, newest first, with Older / Newer / Close."""
    close = (tx("journal.btn_close"), JournalButton(None).encode())
    offset = page.offset
    if not page.entries:
        text = tx("journal.empty")
        if not daily_on:
            text += "\n\n" + tx("journal.empty_daily_off")
        return text, [[close]]
    pages = -(-page.total // size)
    if pages <= 1:
        heading = tx("journal.heading_one")
    else:
        heading = tx("journal.heading", page=offset // size + 1, pages=pages)
    text = render_page(
        heading,
        page.entries,
        prompts,
        zone,
        now,
        language=language,
        shortened=tx("journal.shortened"),
    )
    row: list[Button] = []
    if offset + size < page.total:
        row.append((tx("journal.btn_older"), JournalButton(offset + size).encode()))
    if offset > 0:
        row.append((tx("journal.btn_newer"), JournalButton(max(offset - size, 0)).encode()))
    return text, [row, [close]] if row else [[close]]
