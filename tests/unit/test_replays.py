"""Request markers: what they hold, when they expire, and how a retry reads its first response from one."""

from __future__ import annotations

import pytest

from ddbguard.errors import IdempotencyKeyReused
from ddbguard.guards import replays
from ddbguard.guards.request_identity import RequestIdentity
from ddbguard.store import clock
from ddbguard.store.attribute_names import CREATED_BY_REQUEST, REQUEST_FINGERPRINT

ME = RequestIdentity(caller="alice", route="PATCH /orders/{orderId}", key="k-1", fingerprint="fp-1")


def test_a_create_stamps_the_request_and_its_fingerprint():
    assert replays.request_stamp(ME) == {CREATED_BY_REQUEST: ME.digest, REQUEST_FINGERPRINT: "fp-1"}


def test_no_key_no_stamp():
    assert replays.request_stamp(None) == {}


def test_a_marker_is_expired_once_its_key_lifetime_passed_by_the_layers_clock(monkeypatch):
    marker = replays.marker_item(ME, {"status": 200})
    assert replays.is_expired(marker) is False
    now = clock.now_s()
    monkeypatch.setattr(clock, "now_s", lambda: now + replays.KEY_LIFETIME_S + 1)
    assert replays.is_expired(marker) is True


def test_a_money_marker_never_expires(monkeypatch):
    entry = {"entryId": "E1", "accountId": "a", "type": "deposit", "amountCents": 5, "createdAt": "2026-12-04"}
    marker = replays.marker_item(ME, None, entries=[entry])
    monkeypatch.setattr(clock, "now_s", lambda: 10.0**12)
    assert replays.is_expired(marker) is False
    assert replays.is_expired(None) is False


def test_first_response_answers_the_stored_response_once_the_fingerprint_matches():
    replays.begin_request()
    marker = replays.marker_item(ME, {"status": 201})

    assert replays.first_response(marker, ME) == {"status": 201}
    assert replays.was_replayed() is True
    with pytest.raises(IdempotencyKeyReused):
        replays.first_response(
            marker, RequestIdentity(caller=ME.caller, route=ME.route, key=ME.key, fingerprint="fp-2")
        )
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
