"""Ownership: "not yours" answers exactly like "absent", and every write's condition names the owner."""

from __future__ import annotations

import pytest

from ddbguard.errors import NotFound
from ddbguard.guards.ownership import is_visible, owned_by, visible_or_refuse
from ddbguard.store.expressions import condition_params

ITEM = {"PK": "ORDER#o", "ownerSub": "alice", "status": "PENDING"}


def _refusal() -> NotFound:
    return NotFound("order_not_found", "No such order.")


def test_the_owner_sees_the_item():
    assert is_visible(ITEM, "alice")
    assert visible_or_refuse(ITEM, "alice", _refusal) is ITEM


def test_an_admin_sees_anyones_item():
    assert is_visible(ITEM, "root", is_admin=True)
    assert visible_or_refuse(ITEM, "root", _refusal, is_admin=True) is ITEM


def test_absent_and_not_yours_raise_the_same_refusal():
    with pytest.raises(NotFound) as absent:
        visible_or_refuse(None, "alice", _refusal)
    with pytest.raises(NotFound) as foreign:
        visible_or_refuse(ITEM, "mallory", _refusal)

    assert (absent.value.code, absent.value.detail) == (foreign.value.code, foreign.value.detail)
    assert not is_visible(None, "alice", is_admin=True)
    assert not is_visible({"PK": "ORDER#o"}, "alice")


def test_owned_by_checks_existence_and_owner_with_placeholders():
    params = condition_params(owned_by("alice"))

    assert params["ConditionExpression"].startswith("(attribute_exists(")
    assert sorted(params["ExpressionAttributeNames"].values()) == ["PK", "ownerSub"]
    assert list(params["ExpressionAttributeValues"].values()) == [{"S": "alice"}]
    assert "ownerSub" not in params["ConditionExpression"]


def test_an_entity_may_keep_its_owner_in_another_attribute():
    """The generic entity operations use the same two rules, with their entity's owner attribute."""
    team = {"PK": "TEAM#t", "captainSub": "alice", "ownerSub": "mallory"}
    assert is_visible(team, "alice", owner_attribute="captainSub")
    assert not is_visible(team, "mallory", owner_attribute="captainSub")
    params = condition_params(owned_by("alice", owner_attribute="captainSub"))
    assert sorted(params["ExpressionAttributeNames"].values()) == ["PK", "captainSub"]
