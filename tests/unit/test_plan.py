"""The transaction plan: slots by name, cancellation reasons read back by name whatever comes before them."""

from __future__ import annotations

import pytest

from ddbguard.store.plan import PlanCancelled, TransactionPlan
from ddbguard.store.writes import Reason, TransactionCancelled

A, B, C, D = ({"Put": {"n": n}} for n in "abcd")
FAILED = Reason("ConditionalCheckFailed", {"PK": "old"})
OK = Reason(None)


def test_slots_keep_their_order_and_a_prepended_slot_comes_first():
    plan = TransactionPlan().add("item", A).add("locks", B, C).prepend("marker", D)
    assert plan.names == ("marker", "item", "locks")
    assert plan.actions == [D, A, B, C]


def test_a_slot_name_is_used_once():
    with pytest.raises(ValueError):
        TransactionPlan().add("item", A).add("item", B)


def test_reasons_are_read_back_by_name_and_member():
    plan = TransactionPlan().add("marker", D).add("item", A).add("locks", B, C).add("empty")
    cancelled = PlanCancelled(plan, TransactionCancelled([OK, OK, OK, FAILED]))
    assert not cancelled.failed("marker") and not cancelled.failed("item") and not cancelled.failed("empty")
    assert cancelled.failed("locks") and cancelled.failed_members("locks") == [1]
    assert cancelled.item("locks", 1) == {"PK": "old"} and cancelled.item("empty") is None
    assert not cancelled.failed_elsewhere("locks") and cancelled.failed_elsewhere("item")
    assert not cancelled.failed("no such slot")


def test_without_leaves_out_members_of_one_slot():
    plan = TransactionPlan().add("item", A).add("locks", B, C)
    assert plan.without("locks", [0]).actions == [A, C]
    assert plan.without("item", [0]).names == ("item", "locks")
