"""The ledger's invariants, checked by reading the table directly (never through ddbguard).

- `availableCents == clearedCents - holdCents >= 0` and `holdCents >= 0`;
- cleared equals the signed sum of its entries (deposit, transfer_in +; withdrawal, transfer_out,
  capture -; hold and release leave cleared alone);
- held equals the signed sum of hold entries (hold +; capture, release -) and the sum of OPEN holds.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import TypeDeserializer

CLEARED_SIGN = {
    "deposit": 1,
    "transfer_in": 1,
    "withdrawal": -1,
    "transfer_out": -1,
    "capture": -1,
    "hold": 0,
    "release": 0,
}
HELD_SIGN = {"hold": 1, "capture": -1, "release": -1}

_deserializer = TypeDeserializer()


def plain(item: dict[str, Any] | None) -> dict[str, Any] | None:
    """A raw DynamoDB item as Python values (numbers as int)."""
    if item is None:
        return None

    def convert(value: Any) -> Any:
        if isinstance(value, Decimal):
            return int(value)
        if isinstance(value, dict):
            return {k: convert(v) for k, v in value.items()}
        if isinstance(value, list):
            return [convert(v) for v in value]
        return value

    return {name: convert(_deserializer.deserialize(value)) for name, value in item.items()}


@dataclass
class LedgerSnapshot:
    balance: dict[str, Any] | None
    entries: list[dict[str, Any]] = field(default_factory=list)
    holds: list[dict[str, Any]] = field(default_factory=list)

    @property
    def cleared(self) -> int:
        return self.balance["clearedCents"]

    @property
    def held(self) -> int:
        return self.balance["holdCents"]

    @property
    def available(self) -> int:
        return self.balance["availableCents"]

    @property
    def version(self) -> int:
        return self.balance["version"]

    def entries_of(self, entry_type: str) -> list[dict[str, Any]]:
        return [e for e in self.entries if e["type"] == entry_type]


def _table() -> str:
    return os.environ["TABLE_NAME"]


def _collection(raw_client, account_id: str, prefix: str) -> list[dict[str, Any]]:
    items, start = [], None
    while True:
        request = {
            "TableName": _table(),
            "KeyConditionExpression": "#pk = :pk AND begins_with(#sk, :prefix)",
            "ExpressionAttributeNames": {"#pk": "PK", "#sk": "SK"},
            "ExpressionAttributeValues": {":pk": {"S": f"ACCT#{account_id}"}, ":prefix": {"S": prefix}},
            "ConsistentRead": True,
        }
        if start:
            request["ExclusiveStartKey"] = start
        response = raw_client.query(**request)
        items += [plain(item) for item in response["Items"]]
        start = response.get("LastEvaluatedKey")
        if not start:
            return items


def read_ledger(raw_client, account_id: str) -> LedgerSnapshot:
    key = {"PK": {"S": f"ACCT#{account_id}"}, "SK": {"S": "BALANCE"}}
    balance = plain(raw_client.get_item(TableName=_table(), Key=key, ConsistentRead=True).get("Item"))
    return LedgerSnapshot(
        balance, _collection(raw_client, account_id, "TXN#"), _collection(raw_client, account_id, "HOLD#")
    )


def check_balance_values(balance: dict[str, Any]) -> None:
    """The invariant any single reading of a balance item must satisfy."""
    cleared, held, available = balance["clearedCents"], balance["holdCents"], balance["availableCents"]
    assert held >= 0, balance
    assert available == cleared - held, balance
    assert available >= 0, balance
    assert cleared >= 0, balance


def assert_ledger_invariants(raw_client, account_id: str) -> LedgerSnapshot:
    """Check every invariant of one ledger at rest; returns what was read."""
    snapshot = read_ledger(raw_client, account_id)
    assert snapshot.balance is not None, f"no balance item for {account_id}"
    check_balance_values(snapshot.balance)
    assert snapshot.cleared == sum(CLEARED_SIGN[e["type"]] * e["amountCents"] for e in snapshot.entries), snapshot
    assert snapshot.held == sum(HELD_SIGN.get(e["type"], 0) * e["amountCents"] for e in snapshot.entries), snapshot
    assert snapshot.held == sum(h["amountCents"] for h in snapshot.holds if h["status"] == "OPEN"), snapshot
    assert all(e["accountId"] == account_id and e["amountCents"] > 0 for e in snapshot.entries), snapshot
    return snapshot
