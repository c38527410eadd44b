"""Each DynamoDB call as the DEBUG log describes it: operation, key kinds and conditions, never a value."""

from __future__ import annotations

from ddbguard.store.call_log import counting, describe, key_kind


def test_a_key_shows_its_kind_never_its_value():
    assert key_kind({"S": "UNIQ#EMAIL#ada@example.com"}) == "UNIQ#EMAIL#…"
    assert key_kind({"S": "ACCT#27f60ec3-d89f-5a94-931d-431dbff968a9"}) == "ACCT#…"
    assert key_kind({"S": "PROFILE"}) == "PROFILE"
    assert key_kind({"S": "ada@example.com"}) == "…"


def test_a_transaction_lists_each_action_with_its_condition_names_resolved_values_left_out():
    params = {
        "TransactItems": [
            {
                "Put": {
                    "Item": {"PK": {"S": "UNIQ#EMAIL#ada@example.com"}, "SK": {"S": "LOCK"}, "owner": {"S": "x"}},
                    "ConditionExpression": "attribute_not_exists(#pk)",
                    "ExpressionAttributeNames": {"#pk": "PK"},
                }
            },
            {
                "Update": {
                    "Key": {"PK": {"S": "ACCT#1"}, "SK": {"S": "PROFILE"}},
                    "UpdateExpression": "SET #v = :next",
                    "ConditionExpression": "#v = :expected",
                    "ExpressionAttributeNames": {"#v": "version"},
                    "ExpressionAttributeValues": {":next": {"N": "2"}, ":expected": {"N": "1"}},
                }
            },
        ]
    }
    assert describe("TransactWriteItems", params) == [
        "Put UNIQ#EMAIL#…/LOCK (condition: attribute_not_exists(PK))",
        "Update ACCT#…/PROFILE (condition: version = :expected; update: SET version = :next)",
    ]
    assert "ada" not in repr(describe("TransactWriteItems", params))


def test_a_query_names_its_index_and_key_condition():
    params = {
        "IndexName": "owners",
        "KeyConditionExpression": "#o = :owner",
        "ExpressionAttributeNames": {"#o": "ownerSub"},
        "ExpressionAttributeValues": {":owner": {"S": "alice"}},
    }
    assert describe("Query", params) == ["Query owners (keycondition: ownerSub = :owner)"]
    assert describe("GetItem", {"Key": {"PK": {"S": "ACCT#1"}, "SK": {"S": "BALANCE"}}}) == ["GetItem ACCT#…/BALANCE"]


def test_calls_are_counted_inside_the_block_only():
    from ddbguard.store import call_log

    class Model:
        name = "GetItem"

    outside = call_log._calls.get()
    with counting() as calls:
        call_log._on_call({"Key": {}}, Model())
        call_log._on_call({"Key": {}}, Model())
    call_log._on_call({"Key": {}}, Model())
    assert calls == [2] and call_log._calls.get() is outside
