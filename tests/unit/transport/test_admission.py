"""The overload queue (bot/transport/admission.py): per chat in arrival order, chats in
turn, slots bounded, urgent updates never shed nor waiting for a slot, and past the bounds
an ordinary update shed with its chat told once."""

from __future__ import annotations

from collections.abc import Hashable

from bot.transport.admission import Admission, Admitted, Offer, TurnGovernor
from bot.transport.ordering import raw_chat_key


def run_all(queue: Admission[str]) -> list[str]:
    """Admit and finish everything, one at a time as a slot frees: the order handled."""
    handled: list[str] = []
    live = queue.take()
    while live:
        first, *rest = live
        handled.append(first.item)
        queue.done(first)
        live = rest + queue.take()
    return handled


def test_each_chat_in_arrival_order_and_chats_in_turn() -> None:
    queue: Admission[str] = Admission(1)
    for i in range(3):
        assert queue.offer("a", f"a{i}", urgent=False) is Offer.QUEUED
    for i in range(3):
        queue.offer("b", f"b{i}", urgent=False)
    # One slot: a's burst does not hold b back behind all of it.
    assert run_all(queue) == ["a0", "b0", "a1", "b1", "a2", "b2"]
    assert queue.waiting == 0 and queue.in_flight == 0 and queue.admitted == 0


def test_slots_bound_what_runs_and_one_chat_runs_one_at_a_time() -> None:
    queue: Admission[str] = Admission(2)
    for chat in "abc":
        queue.offer(chat, chat + "0", urgent=False)
        queue.offer(chat, chat + "1", urgent=False)
    first = queue.take()
    assert [a.item for a in first] == ["a0", "b0"]
    assert queue.take() == []  # both slots held
    queue.done(first[0])
    # The slot goes to the chat that waited longest, not back to a.
    assert [a.item for a in queue.take()] == ["c0"]
    assert queue.in_flight == 2 and queue.waiting == 3


def test_an_urgent_update_takes_no_slot_but_keeps_its_chats_order() -> None:
    queue: Admission[str] = Admission(1)
    for i in range(5):
        queue.offer("busy", f"o{i}", urgent=False)
    queue.offer("crisis", "help", urgent=True)
    live = queue.take()
    # The crisis chat's update starts although the one slot is taken.
    assert sorted(a.item for a in live) == ["help", "o0"]
    assert {a.item: a.slot for a in live} == {"help": False, "o0": True}
    # Behind its own chat's earlier update it waits for that one, not for a slot.
    queue.offer("mixed", "m0", urgent=False)
    queue.offer("mixed", "sos", urgent=True)
    for admitted in live:
        queue.done(admitted)
    nxt = queue.take()
    assert [a.item for a in nxt] == ["m0"]  # the slot: "mixed" was ready before "busy" again
    queue.done(nxt[0])
    # m0 done: the chat's urgent update goes without a slot, and the slot to "busy".
    assert {a.item: a.slot for a in queue.take()} == {"sos": False, "o1": True}


def test_past_the_bound_ordinary_updates_are_shed_and_the_chat_told_once() -> None:
    queue: Admission[str] = Admission(1, bound=4, per_chat=100)
    for i in range(4):
        assert queue.offer(i, f"u{i}", urgent=False) is Offer.QUEUED
    assert queue.offer(9, "late", urgent=False) is Offer.SHED_TELL
    assert queue.offer(9, "later", urgent=False) is Offer.SHED_QUIET
    assert queue.offer(8, "other", urgent=False) is Offer.SHED_TELL
    # A crisis message is never shed, however full.
    assert queue.offer(9, "help", urgent=True) is Offer.QUEUED
    assert queue.waiting == 5
    handled = run_all(queue)
    assert sorted(handled) == ["help", "u0", "u1", "u2", "u3"]
    # Room again: a chat shed from now on is told again.
    for i in range(4):
        queue.offer(i, f"v{i}", urgent=False)
    assert queue.offer(9, "again", urgent=False) is Offer.SHED_TELL


def test_one_chats_burst_is_bounded_on_its_own() -> None:
    queue: Admission[str] = Admission(1, bound=1000, per_chat=3)
    outcomes = [queue.offer("a", f"a{i}", urgent=False) for i in range(6)]
    assert outcomes == [Offer.QUEUED] * 3 + [Offer.SHED_TELL] + [Offer.SHED_QUIET] * 2
    assert queue.offer("b", "b0", urgent=False) is Offer.QUEUED
    assert run_all(queue) == ["a0", "b0", "a1", "a2"]
    # The chat drained: its next burst starts afresh, and it is told again past the bound.
    outcomes = [queue.offer("a", f"x{i}", urgent=False) for i in range(4)]
    assert outcomes == [Offer.QUEUED] * 3 + [Offer.SHED_TELL]


def test_a_done_update_frees_exactly_its_slot() -> None:
    queue: Admission[str] = Admission(1)
    queue.offer("a", "help", urgent=True)
    queue.offer("b", "b0", urgent=False)
    queue.offer("c", "c0", urgent=False)
    live = queue.take()
    assert [a.item for a in live] == ["help", "b0"]
    urgent = next(a for a in live if not a.slot)
    queue.done(urgent)  # an urgent update's end frees no slot it never held
    assert queue.take() == []
    queue.done(next(a for a in live if a.slot))
    assert [a.item for a in queue.take()] == ["c0"]


def test_the_chat_of_a_raw_update() -> None:
    def message(kind: str, chat: int) -> dict[str, object]:
        return {"update_id": 1, kind: {"message_id": 1, "chat": {"id": chat}}}

    assert raw_chat_key(message("message", 5)) == 5
    assert raw_chat_key(message("edited_message", 6)) == 6
    press = {"update_id": 2, "callback_query": {"id": "q", "message": {"chat": {"id": 7}}}}
    assert raw_chat_key(press) == 7
    # No chat: each such update is its own key (nothing to keep in order with).
    inline = {"update_id": 3, "callback_query": {"id": "q", "inline_message_id": "x"}}
    other = {"update_id": 4, "callback_query": {"id": "r", "inline_message_id": "y"}}
    keys: set[Hashable] = {raw_chat_key(inline), raw_chat_key(other)}
    assert len(keys) == 2
    assert raw_chat_key({"update_id": 5, "message": {"chat": {"id": True}}}) != 1


def test_admitted_carries_what_done_needs() -> None:
    queue: Admission[str] = Admission(3)
    queue.offer("a", "x", urgent=False)
    (admitted,) = queue.take()
    assert admitted == Admitted("a", "x", slot=True)


def test_the_slots_halve_when_the_loop_lags_and_come_back_one_at_a_time() -> None:
    governor = TurnGovernor(32, least=2, high=0.008, low=0.003)
    assert governor.sample(0.005) == 32  # between the bounds: held
    assert governor.sample(0.020) == 16
    assert [governor.sample(0.050) for _ in range(4)] == [8, 4, 2, 2]  # never below least
    assert governor.lowered == 4
    assert [governor.sample(0.001) for _ in range(3)] == [3, 4, 5]
    assert governor.reset() == 32
    assert governor.sample(0.0) == 32  # never above most


def test_fewer_slots_admit_fewer_and_the_rest_wait_in_order() -> None:
    queue: Admission[str] = Admission(4)
    for chat in "abcdef":
        queue.offer(chat, chat, urgent=False)
    queue.slots = 2  # the governor lowered them: what runs already runs on
    first = queue.take()
    assert [a.item for a in first] == ["a", "b"]
    queue.offer("u", "urgent", urgent=True)
    assert [a.item for a in queue.take()] == ["urgent"]  # takes no slot, never waits
    for admitted in first:
        queue.done(admitted)
    assert [a.item for a in queue.take()] == ["c", "d"]
