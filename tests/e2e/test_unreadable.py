"""Deletion never depends on decryption: with any kind of row damaged, /forget still
erases everything, and someone whose data cannot be opened is offered erasure. An older
copy of a row put back is refused the same way, and logged."""

from __future__ import annotations

import pytest

from bot.people.service import RolledBackError
from bot.storage.database import Database
from bot.storage.worksheets import answer_slot
from tests.conftest import USER, BotUnderTest, buttons_of
from tests.e2e.test_canaries import CANARY, PERSON, write_everywhere

# (which database, table, sealed column): every kind of row that holds a ciphertext.
SEALED = [
    ("data", "people", "profile_enc"),
    ("data", "people", "chat_enc"),
    ("data", "journal", "text_enc"),
    ("data", "answer_parts", "text_enc"),
    ("keys", "data_keys", "wrapped"),
]


def flipped(blob: bytes) -> bytes:
    middle = len(blob) // 2
    return blob[:middle] + bytes([blob[middle] ^ 0x5A]) + blob[middle + 1 :]


async def corrupt(db: Database, table: str, column: str) -> int:
    rows = await db.fetch_all(f"SELECT rowid, {column} FROM {table}")
    for row in rows:
        await db.execute(
            f"UPDATE {table} SET {column} = ? WHERE rowid = ?",
            (flipped(bytes(row[1])), row[0]),
        )
    return len(rows)


@pytest.mark.parametrize(("which", "table", "column"), SEALED)
async def test_forget_works_with_any_kind_of_row_corrupted(
    bot: BotUnderTest, which: str, table: str, column: str
) -> None:
    await write_everywhere(bot)
    person = await bot.services.people.load(PERSON)
    assert person is not None
    db = bot.services.db if which == "data" else bot.services.keys.db
    assert await corrupt(db, table, column) > 0
    await bot.restart()  # nothing opened is cached any more

    await bot.send("/forget", user=PERSON)
    offer = await bot.next(
        PERSON,
        predicate=lambda m: any(
            t in (m.text or "") for t in ("Delete everything", "can't be opened")
        ),
    )
    if table in ("people", "data_keys"):  # everything about them is unreadable: say so
        assert "can't be opened" in (offer.text or "")
    await bot.press(offer, data="forget:yes", user=PERSON)
    await bot.find("Everything is deleted", chat=PERSON)
    await bot.settle()
    services = bot.services
    for name in ("people", "journal", "answer_parts", "worksheet_progress", "deliveries"):
        row = await services.db.fetch_one(f"SELECT COUNT(*) AS n FROM {name}")
        assert row is not None and row["n"] == 0, name
    keys = await services.keys.db.fetch_one("SELECT COUNT(*) AS n FROM data_keys")
    assert keys is not None and keys["n"] == 0
    assert services.people.person_id(PERSON) != person.person_id  # the link is gone too
    # ... and they can start afresh.
    await bot.send("/start", user=PERSON)
    await bot.next(PERSON, containing="Which country")


async def test_a_rolled_back_row_is_refused_and_reported(
    bot: BotUnderTest, caplog: pytest.LogCaptureFixture
) -> None:
    await bot.onboard()
    people = bot.services.people
    person = await people.load(USER)
    assert person is not None and not person.profile.silent
    db = bot.services.db
    old = await db.fetch_one(
        "SELECT profile_enc FROM people WHERE person_id = ?", (person.person_id,)
    )
    assert old is not None
    person.profile.silent = True  # a setting someone would want to undo
    await people.save(person)
    await db.execute(
        "UPDATE people SET profile_enc = ? WHERE person_id = ?",
        (old["profile_enc"], person.person_id),
    )
    await bot.restart()
    with pytest.raises(RolledBackError):
        await bot.services.people.load(USER)
    assert "refused a rolled-back person row" in caplog.text
    await bot.send("hello")
    offer = await bot.next(containing="can't be opened")
    assert any(d == "forget:yes" for _, d in buttons_of(offer))


async def test_a_rolled_back_journal_entry_is_refused_and_erasure_offered(
    bot: BotUnderTest, caplog: pytest.LogCaptureFixture
) -> None:
    await write_everywhere(bot)  # ends with a journal entry by reply, then edited
    db = bot.services.db
    rows = await db.fetch_all("SELECT entry_id, version FROM journal")
    assert any(int(r["version"]) > 0 for r in rows)  # the edit moved its version on
    # An older copy of the entry put back: the version before the edit, its old text.
    person = await bot.services.people.load(PERSON)
    assert person is not None
    entry = next(r for r in rows if int(r["version"]) > 0)
    slot = f"journal:{entry['entry_id']}"
    await db.execute(
        "UPDATE journal SET text_enc = ?, version = 0 WHERE entry_id = ?",
        (person.cipher.seal_text(slot, "an older text"), entry["entry_id"]),
    )
    await bot.restart()
    await bot.send("/journal", user=PERSON)
    offer = await bot.next(PERSON, containing="can't be opened")
    assert any(d == "forget:yes" for _, d in buttons_of(offer))
    assert "refused a rolled-back journal row" in caplog.text
    assert CANARY not in caplog.text and "an older text" not in caplog.text


async def test_rows_left_by_a_forget_that_stopped_half_way_are_swept_at_start(
    bot: BotUnderTest,
) -> None:
    await write_everywhere(bot)
    await bot.onboard()  # someone else, who must keep everything
    gone = bot.services.people.person_id(PERSON)
    kept = bot.services.people.person_id(USER)
    # The crash: the /forget marked, the key store's delete committed, the rows' delete
    # never ran.
    await bot.services.people.store.mark_forgetting(gone)
    await bot.services.keys.destroy_identity(gone)
    await bot.restart()
    db = bot.services.db
    for table in ("people", "journal", "answer_parts", "worksheet_progress", "deliveries"):
        row = await db.fetch_one(f"SELECT COUNT(*) AS n FROM {table} WHERE person_id = ?", (gone,))
        assert row is not None and row["n"] == 0, table
    assert await bot.services.people.load(USER) is not None
    assert bot.services.people.person_id(USER) == kept


async def test_one_damaged_answer_leaves_the_rest_shown_and_exported_and_can_be_erased(
    bot: BotUnderTest,
) -> None:
    """Issue 27 (minor): one answer that did not open made /resume and /export say only
    "something went wrong", with no way out but /forget."""
    await bot.onboard()
    await bot.send("/worksheets")
    listing = await bot.next(containing="Worksheets")
    await bot.press(listing, data="ws:open:bond_or_love")
    intro = await bot.next(predicate=lambda m: any("Start" in b for b, _ in buttons_of(m)))
    await bot.press(intro, "Start")
    await bot.next(containing="Question 1 of")
    await bot.send("words that still open")
    await bot.next(containing="Saved")
    damaged = await bot.send("words that will not open")
    await bot.settle()
    db = bot.services.db
    row = await db.fetch_one(
        "SELECT text_enc, question_id FROM answer_parts WHERE message_id = ?", (damaged,)
    )
    assert row is not None
    await db.execute(
        "UPDATE answer_parts SET text_enc = ? WHERE message_id = ?",
        (flipped(bytes(row["text_enc"])), damaged),
    )
    slot = answer_slot("bond_or_love", str(row["question_id"]), damaged)
    await bot.restart()
    bot.skip_all()

    await bot.send("/resume")
    question = await bot.next(containing="Question 1 of")
    assert "words that still open" in (question.text or "")
    offer = await bot.next(containing="can't be read any more")
    assert [b for b, _ in buttons_of(offer)] == ["Erase that entry", "Keep it"]
    assert not any("went wrong" in (m.text or "") for m in bot.unread())
    await bot.press(offer, "Keep it")
    await bot.find("I'll leave it as it is")

    await bot.send("/export")
    exported = await bot.next(predicate=lambda m: m.document is not None)
    assert exported.document is not None
    assert b"words that still open" in exported.document.data
    again = await bot.next(containing="can't be read any more")
    await bot.press(again, "Erase that entry")
    await bot.find("Erased. Everything else is as it was.")
    await bot.settle()
    left = await bot.services.db.fetch_all("SELECT message_id FROM answer_parts")
    assert len(left) == 1 and int(left[0]["message_id"]) != damaged
    # An old copy of the erased row put back is refused like any deleted row.
    person = await bot.services.people.load(USER)
    assert person is not None
    assert bot.services.keys.anchored_slot(person.person_id, slot) >= 1
    bot.skip_all()
    await bot.send("/export")
    await bot.next(predicate=lambda m: m.document is not None)
    await bot.settle()
    assert not any("can't be read" in (m.text or "") for m in bot.unread())
