"""Is this a replay of my own write? The pure decisions, on items as the failed write returned them."""

from __future__ import annotations

import pytest

from ddbguard.errors import IdempotencyKeyReused
from ddbguard.guards import replays
from ddbguard.guards.request_identity import RequestIdentity
from ddbguard.store.schema import (
    CREATED_BY_REQUEST,
    LAST_REQUEST,
    LAST_REQUEST_FINGERPRINT,
    REQUEST_FINGERPRINT,
    VERSION,
)

ME = RequestIdentity("alice", "PATCH /orders/{orderId}", "k-1", "fp-1")


def test_stamps_name_the_request_and_its_fingerprint():
    assert replays.request_stamp(ME) == {CREATED_BY_REQUEST: ME.digest, REQUEST_FINGERPRINT: "fp-1"}
    assert replays.update_stamp(ME) == {LAST_REQUEST: ME.digest, LAST_REQUEST_FINGERPRINT: "fp-1"}


def test_no_key_no_stamp():
    assert replays.request_stamp(None) == {}
    assert replays.update_stamp(None) == {}


def _updated(by: RequestIdentity, version: int) -> dict:
    return {"PK": "ORDER#o", VERSION: version, **replays.update_stamp(by)}


def test_my_own_update_one_version_on_is_a_replay():
    replays.begin_request()
    assert replays.is_own_update(_updated(ME, 4), ME, expected=3) is True
    assert replays.was_replayed() is True


def test_changed_again_since_is_not_a_replay():
    replays.begin_request()
    assert replays.is_own_update(_updated(ME, 5), ME, expected=3) is False
    assert replays.was_replayed() is False


def test_someone_elses_update_or_no_key_is_not_a_replay():
    other = RequestIdentity("bob", ME.route, ME.key, ME.fingerprint)
    assert replays.is_own_update(_updated(other, 4), ME, expected=3) is False
    assert replays.is_own_update(_updated(ME, 4), None, expected=3) is False
    assert replays.is_own_update(None, ME, expected=3) is False


def test_the_same_key_with_another_body_is_a_reused_key():
    reused = RequestIdentity(ME.caller, ME.route, ME.key, "fp-2")
    with pytest.raises(IdempotencyKeyReused):
        replays.is_own_update(_updated(ME, 4), reused, expected=3)


def test_first_response_answers_the_stored_response_once_the_fingerprint_matches():
    replays.begin_request()
    marker = replays.marker_item(ME, {"status": 201})

    assert replays.first_response(marker, ME) == {"status": 201}
    assert replays.was_replayed() is True
    with pytest.raises(IdempotencyKeyReused):
        replays.first_response(marker, RequestIdentity(ME.caller, ME.route, ME.key, "fp-2"))
    with pytest.raises(IdempotencyKeyReused):
        replays.first_response(None, ME)


def test_a_marker_lives_under_the_request_digest():
    marker = replays.marker_item(ME, None)
    assert (marker["PK"], marker["SK"]) == (f"REQ#{ME.digest}", "MARKER")
    assert (marker["route"], marker["callerSub"], marker["fingerprint"]) == (ME.route, "alice", "fp-1")
    assert "expiration" in marker and "entries" not in marker


def test_a_money_marker_keeps_its_entries_and_never_expires():
    entry = {"entryId": "E1", "accountId": "a", "type": "deposit", "amountCents": 5, "createdAt": "2026-12-04"}
    marker = replays.marker_item(ME, None, entries=[entry])
    assert (marker["entries"], marker["after"]) == ([entry], {})
    assert "expiration" not in marker


def test_without_a_key_no_marker_is_added(monkeypatch):
    monkeypatch.setenv("TABLE_NAME", "ddbguard")
    from ddbguard.store.plan import TransactionPlan

    plan = TransactionPlan().add("item", {"Put": {}})
    assert replays.led_by_marker(plan, None, {"x": 1}) is plan
    led = replays.led_by_marker(plan, ME, {"x": 1})
    assert led.names == (replays.MARKER, "item") and led.actions[0]["Put"]["Item"]["PK"] == {"S": f"REQ#{ME.digest}"}
