"""An order's life as data: which moves are allowed, and the guard that enforces them in the write."""

from __future__ import annotations

import itertools

import pytest

from ddbguard.domain import order_status as s
from ddbguard.store.expressions import condition_params

ALL = (s.PENDING, s.PAID, s.SHIPPED, s.DELIVERED, s.CANCELLED, s.REFUNDED)
ALLOWED = {
    (s.PENDING, s.PAID),
    (s.PENDING, s.CANCELLED),
    (s.PAID, s.SHIPPED),
    (s.PAID, s.REFUNDED),
    (s.SHIPPED, s.DELIVERED),
}


@pytest.mark.parametrize(("current", "target"), sorted(itertools.product(ALL, ALL)))
def test_allows_exactly_the_documented_moves(current, target):
    assert s.allows(current, target) is ((current, target) in ALLOWED)


def test_every_status_is_in_the_table():
    assert set(s.TRANSITIONS) == set(ALL)


def test_a_move_to_the_current_status_is_refused():
    assert not any(s.allows(status, status) for status in ALL)


def test_unknown_statuses_allow_nothing():
    assert not s.allows("LOST", s.PAID)
    assert not s.allows(s.PENDING, "LOST")


def test_sources_of():
    assert s.sources_of(s.PAID) == {s.PENDING}
    assert s.sources_of(s.CANCELLED) == {s.PENDING}  # a paid order is refunded, never cancelled
    assert s.sources_of(s.REFUNDED) == {s.PAID}
    assert s.sources_of(s.SHIPPED) == {s.PAID}
    assert s.sources_of(s.DELIVERED) == {s.SHIPPED}
    assert s.sources_of(s.PENDING) == frozenset()


def test_status_in_renders_an_in_list_with_placeholders():
    params = condition_params(s.status_in(frozenset({s.PAID, s.PENDING})))

    names, values = params["ExpressionAttributeNames"], params["ExpressionAttributeValues"]
    assert list(names.values()) == ["status"]
    assert " IN " in params["ConditionExpression"] and "status" not in params["ConditionExpression"]
    assert sorted(v["S"] for v in values.values()) == [s.PAID, s.PENDING]


def test_status_in_an_empty_set_fails_on_every_stored_order():
    """DynamoDB rejects an empty IN list; the guard must still fail, since every order has a status."""
    params = condition_params(s.status_in(frozenset()))

    assert params["ConditionExpression"].startswith("attribute_not_exists(")
    assert list(params["ExpressionAttributeNames"].values()) == ["status"]
    assert "ExpressionAttributeValues" not in params


def test_move_guard_to_pending_can_never_pass():
    assert condition_params(s.move_guard(s.PENDING)) == condition_params(s.status_in(frozenset()))


def test_move_guard_lists_the_sources():
    values = condition_params(s.move_guard(s.SHIPPED))["ExpressionAttributeValues"]
    assert sorted(v["S"] for v in values.values()) == [s.PAID]


def test_deletable_only_before_money_is_tied():
    assert {s.PENDING, s.CANCELLED} == s.DELETABLE
