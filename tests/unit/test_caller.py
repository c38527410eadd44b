"""The caller from the authorizer's claims: a usable `sub` or nobody, and groups however API Gateway flattened them."""

from __future__ import annotations

import pytest

from ddbguard_api.http.caller import Caller, caller_from_event


def with_claims(claims) -> dict:
    return {"requestContext": {"authorizer": {"claims": claims}}}


def test_sub_and_groups_are_read():
    assert caller_from_event(with_claims({"sub": "alice", "cognito:groups": ["admin"]})) == Caller(
        "alice", frozenset({"admin"})
    )


@pytest.mark.parametrize(
    "event",
    [
        {},
        {"requestContext": None},
        {"requestContext": {"authorizer": None}},
        with_claims(None),
        with_claims("sub=alice"),
        with_claims({}),
        with_claims({"sub": ""}),
        with_claims({"sub": "   "}),
        with_claims({"sub": 42}),
        with_claims({"sub": None}),
        with_claims({"sub": "x" * 129}),
    ],
)
def test_no_usable_sub_is_no_caller(event):
    assert caller_from_event(event) is None


def test_a_sub_of_128_characters_is_accepted():
    assert caller_from_event(with_claims({"sub": "x" * 128})).sub == "x" * 128


@pytest.mark.parametrize(
    ("raw", "groups"),
    [
        (None, set()),
        ([], set()),
        (["admin", "ops"], {"admin", "ops"}),
        ("admin", {"admin"}),
        ("admin,ops", {"admin", "ops"}),
        ("admin, ops", {"admin", "ops"}),
        ("[admin ops]", {"admin", "ops"}),
        ("[admin]", {"admin"}),
        ('["admin", "ops"]', {"admin", "ops"}),
        ("[]", set()),
        ("", set()),
    ],
)
def test_groups_in_every_shape_api_gateway_sends(raw, groups):
    claims = {"sub": "alice"} if raw is None else {"sub": "alice", "cognito:groups": raw}
    assert caller_from_event(with_claims(claims)).groups == groups


@pytest.mark.parametrize(
    ("raw", "admin"),
    [(["admin"], True), ("ops,admin", True), ("[ops admin]", True), ("administrators", False), ("ops", False)],
)
def test_admin_is_membership_of_the_admin_group_exactly(raw, admin):
    assert caller_from_event(with_claims({"sub": "alice", "cognito:groups": raw})).is_admin is admin
