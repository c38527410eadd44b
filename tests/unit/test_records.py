"""`ddbguard.records.Record`: a value type built by keyword, compared by its fields, never a tuple."""

from __future__ import annotations

import pytest

from ddbguard.guards.money import BalanceChange
from ddbguard.guards.request_identity import RequestIdentity


def _identity(**changes: str) -> RequestIdentity:
    fields = {"caller": "alice", "route": "POST /accounts", "key": "k-1", "fingerprint": "f-1"}
    return RequestIdentity(**{**fields, **changes})


def test_a_record_is_built_by_keyword_only():
    with pytest.raises(TypeError):
        RequestIdentity("alice", "POST /accounts", "k-1", "f-1")


def test_records_are_equal_and_hash_alike_when_every_field_is():
    assert _identity() == _identity()
    assert hash(_identity()) == hash(_identity())
    assert _identity() != _identity(fingerprint="f-2")
    assert len({_identity(), _identity(), _identity(key="k-2")}) == 2


def test_a_record_is_no_tuple():
    identity = _identity()
    assert not isinstance(identity, tuple)
    assert identity != ("alice", "POST /accounts", "k-1", "f-1")


def test_a_record_of_another_type_with_the_same_values_differs():
    class Other(RequestIdentity):
        __slots__ = ()

    assert Other(caller="alice", route="POST /accounts", key="k-1", fingerprint="f-1") != _identity()


def test_replaced_copies_with_changes_and_leaves_the_original():
    change = BalanceChange(account_id="a-1", entry_type="deposit", amount_cents=500, cleared_delta=500)
    moved = change.replaced(amount_cents=700)
    assert (moved.amount_cents, moved.account_id, moved.cleared_delta) == (700, "a-1", 500)
    assert change.amount_cents == 500


def test_repr_names_every_field():
    assert repr(_identity()) == (
        "RequestIdentity(caller='alice', fingerprint='f-1', key='k-1', route='POST /accounts')"
    )
