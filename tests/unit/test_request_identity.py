"""Replay-safe identifiers: the same request always maps to the same digest and ids."""

from __future__ import annotations

import uuid

from ddbguard.guards.request_identity import RequestIdentity

ROUTE = "POST /accounts/{accountId}/ledger/deposits"


def identity(caller: str = "alice", route: str = ROUTE, key: str = "k-1", fingerprint: str = "fp") -> RequestIdentity:
    return RequestIdentity(caller=caller, route=route, key=key, fingerprint=fingerprint)


def test_everything_is_deterministic():
    a, b = identity(), identity()

    assert a.digest == b.digest
    assert a.derived_id("hold") == b.derived_id("hold")


def test_digest_is_a_sha256_hex():
    digest = identity().digest
    assert len(digest) == 64 and int(digest, 16) >= 0


def test_caller_route_and_key_each_change_everything():
    base = identity()
    others = [
        identity(caller="bob"),
        identity(route="POST /accounts/{accountId}/ledger/withdrawals"),
        identity(key="k-2"),
    ]

    for other in others:
        assert other.digest != base.digest
        assert other.derived_id("hold") != base.derived_id("hold")


def test_the_fingerprint_does_not_change_the_identity():
    """The same key with another body is a reused key: it must land on the same marker to be detected."""
    assert identity(fingerprint="a").digest == identity(fingerprint="b").digest


def test_fields_are_separated_so_they_cannot_shift():
    assert identity(caller="ab", key="c").digest != identity(caller="a", key="bc").digest


def test_derived_ids_are_36_character_uuids_never_the_raw_key():
    derived = identity(key="my-raw-idempotency-key").derived_id("hold")

    assert len(derived) == 36
    assert str(uuid.UUID(derived)) == derived
    assert "my-raw-idempotency-key" not in derived


def test_derived_ids_differ_by_purpose():
    request = identity()
    ids = {request.derived_id("account"), request.derived_id("order"), request.derived_id("hold")}

    assert len(ids) == 3
    assert all(str(uuid.UUID(value)) == value for value in ids)
