"""(a) The naive service: read, decide in Python, write without conditions. No idempotency.

Each operation is what a first version often looks like: it is correct one request at a time and
wrong under concurrency (two readers both see "free" / "enough" / "version 3"), and a retried
request applies again.
"""

from __future__ import annotations

import uuid
from typing import Any

from bench.outcome import Outcome


class NaiveService:
    def __init__(self, client: Any, table: str) -> None:
        self.client, self.table = client, table

    def _get(self, pk: str, sk: str) -> dict[str, Any] | None:
        key = {"PK": {"S": pk}, "SK": {"S": sk}}
        return self.client.get_item(TableName=self.table, Key=key, ConsistentRead=True).get("Item")

    def _put(self, item: dict[str, Any]) -> None:
        self.client.put_item(TableName=self.table, Item=item)

    def sign_up(self, email: str, username: str, key: str | None = None) -> Outcome:
        if self._get(f"EMAIL#{email}", "LOCK") or self._get(f"HANDLE#{username}", "LOCK"):
            return Outcome(False, "taken")
        account = f"ACCT#{uuid.uuid4()}"
        self._put({"PK": {"S": account}, "SK": {"S": "A"}, "email": {"S": email}, "username": {"S": username}})
        self._put({"PK": {"S": f"EMAIL#{email}"}, "SK": {"S": "LOCK"}, "owner": {"S": account}})
        self._put({"PK": {"S": f"HANDLE#{username}"}, "SK": {"S": "LOCK"}, "owner": {"S": account}})
        return Outcome(True, "created")

    def open_balance(self, account: str, cents: int) -> None:
        self._put({"PK": {"S": account}, "SK": {"S": "BALANCE"}, "cents": {"N": str(cents)}})

    def withdraw(self, account: str, cents: int, key: str | None = None) -> Outcome:
        balance = self._get(account, "BALANCE")
        have = int(balance["cents"]["N"]) if balance else 0
        if have < cents:
            return Outcome(False, "insufficient_funds")
        self.client.update_item(
            TableName=self.table,
            Key={"PK": {"S": account}, "SK": {"S": "BALANCE"}},
            UpdateExpression="SET #c = :c",
            ExpressionAttributeNames={"#c": "cents"},
            ExpressionAttributeValues={":c": {"N": str(have - cents)}},
        )
        self._put({"PK": {"S": account}, "SK": {"S": f"ENTRY#{uuid.uuid4()}"}, "cents": {"N": str(-cents)}})
        return Outcome(True, "withdrawn")

    def create_order(self, order: str) -> int:
        self._put({"PK": {"S": order}, "SK": {"S": "ORDER"}, "version": {"N": "0"}, "note": {"S": "new"}})
        return 0

    def update_order(self, order: str, expected: int, note: str, key: str | None = None) -> Outcome:
        item = self._get(order, "ORDER")
        if item is None or int(item["version"]["N"]) != expected:
            return Outcome(False, "version_mismatch")
        self._put({**item, "version": {"N": str(expected + 1)}, "note": {"S": note}})
        return Outcome(True, "updated")
