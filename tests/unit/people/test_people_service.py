"""What one update asks of PeopleService is not computed again (issue 25): the sender's
handle is one HMAC however often it is asked for, and a profile this process wrote opens
without decoding the records nobody asks for; bytes written elsewhere are still read whole,
so a record that does not decode is an unreadable row, as before."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Self

import pytest

import bot.people.service as service_module
from bot.people.profile import Record
from bot.people.service import PROFILE_SLOT, UnreadableDataError
from bot.storage.keystore import KeyStore
from tests.helpers.people_stores import PeopleStores, people_stores

USER = 4242


@dataclass
class Counted(Record):
    """A record that counts its decodes, and refuses a negative count as a bad field."""

    KEY: ClassVar[str] = "counted"
    decodes: ClassVar[int] = 0
    count: int = 0

    @classmethod
    def decode(cls, values: dict[str, Any]) -> Self:
        Counted.decodes += 1
        record = super().decode(values)
        if record.count < 0:
            raise ValueError("a negative count")
        return record


@pytest.fixture
async def stores(tmp_path: Path) -> AsyncIterator[PeopleStores]:
    Counted.decodes = 0
    async with people_stores(tmp_path, records=[Counted]) as opened:
        yield opened


async def test_the_senders_handle_is_one_hmac_until_a_forget(
    stores: PeopleStores, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[int] = []
    real = service_module.pseudonym

    def counting(key: bytes, user_id: int) -> str:
        made.append(user_id)
        return real(key, user_id)

    monkeypatch.setattr(service_module, "pseudonym", counting)
    people = stores.service()
    person = await people.create(USER, USER, "")
    for _ in range(3):  # what one update asks: the guard, the screen, the load...
        assert people.person_id(USER) == person.person_id
        assert (await people.load(USER)) is not None
    assert made == [USER]
    await people.forget(person.person_id)
    assert people.person_id(USER) != person.person_id  # unknown now: their handle
    assert made == [USER, USER]  # nothing of theirs was kept past the /forget


async def test_a_profile_this_process_wrote_opens_without_decoding_every_record(
    stores: PeopleStores,
) -> None:
    people = stores.service()
    person = await people.create(USER, USER, "")
    person.profile.part(Counted).count = 3
    await people.save(person)
    Counted.decodes = 0
    again = await people.load(USER)
    assert again is not None
    assert Counted.decodes == 0  # the bytes it wrote: decoded only when asked for
    assert again.profile.part(Counted).count == 3
    assert Counted.decodes == 1
    # A restart (or another replica) has not read these bytes: it decodes every record.
    other = stores.service()
    Counted.decodes = 0
    assert (await other.load(USER)) is not None
    assert Counted.decodes == 1


async def test_bytes_written_elsewhere_are_read_whole(stores: PeopleStores) -> None:
    """Another replica's save (here, written straight into the row) is not the bytes this
    process wrote: a record in it that does not decode makes the row unreadable at load."""
    people = stores.service()
    person = await people.create(USER, USER, "")
    await people.save(person)
    raw = json.loads(person.profile.to_json(people.records))
    raw["parts"][Counted.KEY] = {"count": -1}
    sealed = person.cipher.seal_text(PROFILE_SLOT, json.dumps(raw))
    await people.store.update(person.person_id, now=0, profile_enc=sealed)
    with pytest.raises(UnreadableDataError):
        await people.load(USER)


async def test_each_save_anchors_its_revision_with_one_reference_computed(
    stores: PeopleStores, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    people = stores.service()
    person = await people.create(USER, USER, "")
    refs: list[str] = []
    real = KeyStore._ref

    def counting(keys: KeyStore, value: str) -> str:
        refs.append(value)
        return real(keys, value)

    monkeypatch.setattr(KeyStore, "_ref", counting)
    for _ in range(3):
        await people.save(person)
    assert refs.count(person.person_id) == 1  # the row's reference, kept with what is known
    # The anchors are in the key store's file, under that reference: a restart reads them.
    await stores.keys.close()
    await stores.reopen_keys()
    restarted = stores.service()
    assert (await restarted.load(USER)) is not None
    assert restarted.keys.anchored_version(person.person_id) == person.profile.revision == 3
