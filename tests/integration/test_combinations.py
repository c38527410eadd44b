"""Where two features meet: one regression test per finding of the combination attack (issue "Every rule in every
combination"), each failing on the code before its fix. The state machine (api_machine.py) found these; its shrunk
sequences are kept in test_combination_sequences.py, and these say the same in the API's own words.
"""

from __future__ import annotations

import os
import threading
import uuid

import pytest

from ddbguard.domain import lock_audit
from ddbguard.store import clock, keys
from local.invocation import running
from local.scenarios import balance, create_account, fund_ledger, open_funded_ledger
from tests.support.faults import dropped_responses
from tests.support.ledger_requests import move, new_key
from tests.support.private_table import private_table
from tests.support.settlement import settle_all
from tests.support.table_reads import attribute_values, raw_collection, raw_item

REUSED = "idempotency_key_reused"


# --- 1 and 2: a keyed PATCH answers for its key whatever happened since -------------------------------------------


def test_a_key_first_used_for_a_unique_change_is_refused_on_another_account(api, uid):
    first, second = create_account(api, "alice"), create_account(api, "alice")
    key = new_key()
    moved = api.patch(f"/accounts/{first}", {"email": f"moved-{uid}@example.com"}, if_match=0, idempotency_key=key)
    assert moved.status == 200, moved.json
    reused = api.patch(f"/accounts/{second}", {"displayName": "Not me"}, if_match=0, idempotency_key=key)
    assert (reused.status, reused.code) == (422, REUSED)
    unchanged = api.get(f"/accounts/{second}")
    assert (unchanged.json["version"], unchanged.json["displayName"]) == (0, None)


def test_a_key_reused_after_a_later_change_of_the_same_account_is_refused_or_replayed(api):
    account = create_account(api, "alice")
    path, k2, k3 = f"/accounts/{account}", new_key(), new_key()
    first = api.patch(path, {"displayName": "X"}, if_match=0, idempotency_key=k2)
    assert (first.status, first.json["version"]) == (200, 1)
    assert api.patch(path, {"displayName": "Y"}, if_match=1, idempotency_key=k3).status == 200
    other_body = api.patch(path, {"displayName": "Z"}, if_match=2, idempotency_key=k2)
    assert (other_body.status, other_body.code) == (422, REUSED)
    # A client that lost K2's answer, read the ETag again and retried: the first answer, not a second change.
    retried = api.patch(path, {"displayName": "X"}, if_match=2, idempotency_key=k2)
    assert (retried.status, retried.json) == (200, first.json)
    assert retried.header("Idempotent-Replayed") == "true"
    now = api.get(path).json
    assert (now["version"], now["displayName"]) == (2, "Y")


# --- 3: a paid order is never cancelled, never deleted, and its id never names another ------------------------------


def _paid_order(api, account: str, order_id: str) -> dict:
    lines = [{"sku": "BOOK", "quantity": 1, "unitPriceCents": 300}]
    created = api.post("/orders", {"accountId": account, "orderId": order_id, "items": lines})
    assert created.status == 201, created.json
    paid = api.post(f"/orders/{order_id}/pay", idempotency_key=new_key())
    assert (paid.status, paid.json["status"]) == (200, "PAID"), paid.json
    return paid.json


def test_a_paid_order_leaves_paid_only_by_its_refund_and_is_never_deleted_or_its_id_reused(api, uid):
    account = open_funded_ledger(api, "alice", 1_000)
    order_id = f"keep-me-{uid}"
    paid = _paid_order(api, account, order_id)
    path = f"/orders/{order_id}"
    cancelled = api.patch(path, {"status": "CANCELLED"}, if_match=paid["version"])
    assert (cancelled.status, cancelled.code) == (409, "invalid_transition")
    assert (api.delete(path, if_match=paid["version"]).status, balance(api, "alice", account)["clearedCents"]) == (
        409,
        700,
    )
    refunded = api.post(f"{path}/refund", idempotency_key=new_key())
    assert (refunded.status, refunded.json["status"], refunded.json["version"]) == (200, "REFUNDED", 2)
    again = api.post(f"{path}/refund", idempotency_key=new_key())
    assert (again.status, again.code) == (409, "invalid_transition")
    settle_all()
    statement = balance(api, "alice", account)
    assert statement["clearedCents"] == 1_000
    assert [e["type"] for e in statement["entries"] if e.get("orderId") == order_id] == ["refund", "withdrawal"]
    refused_delete = api.delete(path, if_match=2)
    assert (refused_delete.status, refused_delete.code) == (409, "invalid_transition")
    lines = [{"sku": "BOOK", "quantity": 1, "unitPriceCents": 1}]
    reuse = api.post("/orders", {"accountId": account, "orderId": order_id, "items": lines})
    assert (reuse.status, reuse.code) == (409, "already_exists")


def test_an_order_cancelled_after_payment_by_an_earlier_release_is_still_never_deleted(api, raw_client, uid):
    account = open_funded_ledger(api, "alice", 1_000)
    order_id = f"legacy-{uid}"
    paid = _paid_order(api, account, order_id)
    key = keys.order_key("alice", order_id)
    raw_client.update_item(  # what `PAID -> CANCELLED` by PATCH used to leave: the payment recorded, no refund
        TableName=os.environ["TABLE_NAME"],
        Key=attribute_values(key),
        UpdateExpression="SET #s = :c",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":c": {"S": "CANCELLED"}},
    )
    refused = api.delete(f"/orders/{order_id}", if_match=paid["version"])
    assert (refused.status, refused.code) == (409, "invalid_transition")


def test_a_deleted_orders_id_is_never_given_again(api, uid):
    account = create_account(api, "alice")
    lines = [{"sku": "BOOK", "quantity": 1, "unitPriceCents": 100}]
    order_id = f"gone-{uid}"
    assert api.post("/orders", {"accountId": account, "orderId": order_id, "items": lines}).status == 201
    assert api.delete(f"/orders/{order_id}", if_match=0).status == 204
    assert api.get(f"/orders/{order_id}").code == "order_not_found"
    again = api.post("/orders", {"accountId": account, "orderId": order_id, "items": lines})
    assert (again.status, again.code) == (409, "already_exists")
    assert "never given again" in again.json["detail"]


# --- 4: a stranger's transfers never lock an owner out ---------------------------------------------------------------


def _transfer(api, sender: str, source: str, target: str, cents: int = 1):
    body = {"fromAccountId": source, "toAccountId": target, "amountCents": cents}
    return api.post("/transfers", body, sub=sender, idempotency_key=new_key())


def test_incoming_transfers_take_only_their_part_of_the_unsettled_bound(api, monkeypatch):
    import ddbguard.limits as limits

    monkeypatch.setattr(limits, "MAX_PENDING_ENTRIES", 6)
    monkeypatch.setattr(limits, "MAX_INCOMING_PENDING_ENTRIES", 4)
    settle_all()  # nothing of earlier tests waits; from here the settlement does not run (it is "behind")
    victim = open_funded_ledger(api, "alice", 500)
    stranger = open_funded_ledger(api, "mallory", 500)
    settle_all()
    for _ in range(4):
        assert _transfer(api, "mallory", stranger, victim).status == 201
    refused = _transfer(api, "mallory", stranger, victim)
    assert (refused.status, refused.code, refused.json["errors"][0]["field"]) == (
        503,
        "settlement_behind",
        "toAccountId",
    )
    assert refused.header("Retry-After") is not None
    # The owner's own movements still have their part of the bound.
    assert move(api, victim, "withdrawals", 10, "alice").status == 201
    assert move(api, victim, "holds", 10, "alice").status == 201


def test_a_closing_account_takes_no_transfers_but_its_owner_still_withdraws(api):
    victim = open_funded_ledger(api, "alice", 500)
    stranger = open_funded_ledger(api, "mallory", 500)
    closed = api.patch(f"/accounts/{victim}", {"closing": True}, if_match=0)
    assert (closed.status, closed.json["closing"], closed.json["version"]) == (200, True, 1)
    refused = _transfer(api, "mallory", stranger, victim)
    assert (refused.status, refused.code, refused.json["errors"][0]["field"]) == (409, "account_closing", "toAccountId")
    assert move(api, victim, "withdrawals", 500, "alice").status == 201
    assert move(api, victim, "deposits", 5, "alice").status == 201  # the owner's own money is welcome
    reopened = api.patch(f"/accounts/{victim}", {"closing": False}, if_match=1)
    assert (reopened.status, reopened.json["closing"]) == (200, False)
    assert _transfer(api, "mallory", stranger, victim).status == 201


def test_close_withdraw_delete_completes_while_strangers_keep_sending(api):
    """Attacking threads send one cent at a time into the victim's ledger while the settlement runs; the victim
    closes, withdraws everything and deletes, and every step succeeds (the delete once its last movements settle)."""
    victim = open_funded_ledger(api, "alice", 1_000)
    attackers = [open_funded_ledger(api, f"mallory-{n}", 10_000) for n in range(4)]
    stop = threading.Event()
    sent: list[int] = []

    def attack(index: int) -> None:
        while not stop.is_set():
            sent.append(_transfer(api, f"mallory-{index}", attackers[index], victim).status)

    def settle_continuously() -> None:
        while not stop.is_set():
            settle_all()

    threads = [threading.Thread(target=attack, args=(n,)) for n in range(4)]
    threads.append(threading.Thread(target=settle_continuously))
    for thread in threads:
        thread.start()
    try:
        while len(sent) < 20:  # the attack is under way before the victim acts
            stop.wait(0.05)
        version = api.get(f"/accounts/{victim}").json["version"]
        closed = api.patch(f"/accounts/{victim}", {"closing": True}, if_match=version)
        assert closed.status == 200, closed.json
        settle_all()
        available = balance(api, "alice", victim)["availableCents"]
        assert move(api, victim, "withdrawals", available, "alice").status == 201
        deleted = api.delete(f"/accounts/{victim}", if_match=closed.json["version"])
        while deleted.code == "ledger_unsettled":  # its own withdrawal still settling: retry after it settled
            settle_all()
            deleted = api.delete(f"/accounts/{victim}", if_match=closed.json["version"])
        assert deleted.status == 204, deleted.json
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=120)
    assert 201 in sent and set(sent) <= {201, 409, 404, 503}, sorted(set(sent))


# --- 5: the audit moves a lock keyed by an earlier rule ---------------------------------------------------------------


@pytest.fixture
def audit_table(dynamodb_local, raw_client, monkeypatch, uid):
    yield from private_table(raw_client, monkeypatch, f"ddbguard-combo-{uid}")


def test_the_audit_moves_a_lock_keyed_by_an_earlier_rule_and_then_finds_nothing(api, raw_client, audit_table, uid):
    created = api.post("/accounts", {"email": f"кот{uid}@example.com", "username": f"kot_{uid}"})
    assert created.status == 201, created.json
    email = created.json["email"]
    (current,) = keys.lock_keys("EMAIL", email)
    earlier = keys.lock_partition("EMAIL", email)  # keyed by the value itself, before look-alike skeletons
    assert current["PK"] != earlier
    lock = raw_client.get_item(TableName=audit_table, Key=attribute_values(current), ConsistentRead=True)["Item"]
    raw_client.delete_item(TableName=audit_table, Key=attribute_values(current))
    raw_client.put_item(TableName=audit_table, Item={**lock, "PK": {"S": earlier}})
    with running("audit_locks"):
        repaired = lock_audit.audit_locks(repair=True)
        assert {f.problem for f in repaired.findings} <= {lock_audit.STALE_LOCK_KEY, lock_audit.MISSING_LOCK}
        assert lock_audit.STALE_LOCK_KEY in {f.problem for f in repaired.findings} and repaired.clean
        assert "earlier rule" in next(f.detail for f in repaired.findings if f.problem == lock_audit.STALE_LOCK_KEY)
        assert lock_audit.audit_locks(repair=False).findings == []
    assert raw_item(raw_client, current)["owner"] == f"ACCT#{created.json['accountId']}"
    assert raw_item(raw_client, {"PK": earlier, "SK": "LOCK"}) is None


# --- 6: an id never names two lives -----------------------------------------------------------------------------------


def test_a_key_past_its_lifetime_never_recreates_a_deleted_account(api, raw_client, monkeypatch, uid):
    key = new_key()
    body = {"email": f"twice-{uid}@example.com", "username": f"twice_{uid}"}
    created = api.post("/accounts", body, idempotency_key=key)
    assert created.status == 201
    account = created.json["accountId"]
    fund_ledger(api, "alice", account, 100)
    assert move(api, account, "withdrawals", 100, "alice").status == 201
    settle_all()
    entries = raw_collection(raw_client, f"ACCT#{account}", "TXN#")
    assert api.delete(f"/accounts/{account}", if_match=0).status == 204
    # A day later: the key's record expired (and DynamoDB's TTL process may or may not have deleted it yet).
    later = clock.now_s() + 25 * 3600
    monkeypatch.setattr(clock, "now_s", lambda: later)
    again = api.post("/accounts", body, idempotency_key=key)
    assert (again.status, again.code) == (409, "already_exists")
    assert api.get(f"/accounts/{account}").code == "account_not_found"
    assert raw_collection(raw_client, f"ACCT#{account}", "TXN#") == entries  # kept, each with its value, alone


# --- 7: a write whose answer was lost, without a key, answers what happened ------------------------------------------


def test_an_unkeyed_patch_whose_answer_was_lost_answers_its_own_change(api, ddb_client):
    account = create_account(api, "alice")
    with dropped_responses(ddb_client, "UpdateItem") as lost:
        changed = api.patch(f"/accounts/{account}", {"displayName": "Once"}, if_match=0)
    assert lost.injected == 1
    assert (changed.status, changed.json["displayName"], changed.json["version"]) == (200, "Once", 1)
    assert api.get(f"/accounts/{account}").json["version"] == 1


def test_an_unkeyed_order_delete_whose_answer_was_lost_answers_204(api, ddb_client, uid):
    account = create_account(api, "alice")
    lines = [{"sku": "BOOK", "quantity": 1, "unitPriceCents": 100}]
    order_id = f"lost-{uid}"
    assert api.post("/orders", {"accountId": account, "orderId": order_id, "items": lines}).status == 201
    with dropped_responses(ddb_client, "PutItem") as lost:
        deleted = api.delete(f"/orders/{order_id}", if_match=0)
    assert (lost.injected, deleted.status) == (1, 204)
    assert api.get(f"/orders/{order_id}").code == "order_not_found"


# --- 8: a display name shows something ------------------------------------------------------------------------------

BLANK_NAMES = {
    "hangul-filler": "\u3164",
    "hangul-choseong-and-jungseong-fillers": "\u115f\u1160",
    "halfwidth-hangul-filler": "\uffa0",
    "braille-blank": "\u2800",
    "combining-grapheme-joiner": "\u034f",
    "variation-selector-16": "\ufe0f",
    "a-filler-between-spaces": " \u3164 ",
}


@pytest.mark.parametrize("name", BLANK_NAMES.values(), ids=BLANK_NAMES.keys())
def test_a_display_name_that_shows_nothing_is_refused_and_writes_nothing(api, name):
    tag = uuid.uuid4().hex[:12]
    created = api.post("/accounts", {"email": f"{tag}@example.com", "username": f"u{tag}", "displayName": name})
    assert (created.status, created.code) == (422, "validation_failed")
    assert created.json["errors"][0]["field"] == "displayName"
    taken = api.post("/accounts", {"email": f"{tag}@example.com", "username": f"u{tag}"})
    assert taken.status == 201  # the refusal wrote nothing: the values are free
    changed = api.patch(f"/accounts/{taken.json['accountId']}", {"displayName": name}, if_match=0)
    assert (changed.status, changed.code) == (422, "validation_failed")
