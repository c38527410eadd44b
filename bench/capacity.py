"""Write units of a request by DynamoDB's billing rules, from the items it wrote.

DynamoDB Local's `ReturnConsumedCapacity` is not reliable here (it reports 2.0 for a five-item
transaction, and nothing for a refused write), so units are computed: 1 WCU per started KB of each
item written (an update or condition check: the item as it is afterwards, read back; a delete: 1),
doubled inside `TransactWriteItems`. A refused write is billed as attempted, so it counts the same.
"""

from __future__ import annotations

import math
from typing import Any

from bench.counter import Tally


def attribute_size(value: dict[str, Any]) -> int:
    ((kind, body),) = value.items()
    if kind == "S":
        return len(body.encode())
    if kind == "N":
        return len(body.strip("-").lstrip("0").replace(".", "")) // 2 + 1
    if kind == "B":
        return len(body)
    if kind in {"BOOL", "NULL"}:
        return 1
    if kind == "M":
        return 3 + sum(len(k.encode()) + attribute_size(v) + 1 for k, v in body.items())
    if kind == "L":
        return 3 + sum(attribute_size(v) + 1 for v in body)
    return sum(len(str(member).encode()) for member in body)  # SS / NS / BS


def item_size(item: dict[str, Any]) -> int:
    return sum(len(name.encode()) + attribute_size(value) for name, value in item.items())


def _units(item: dict[str, Any] | None) -> int:
    return max(1, math.ceil(item_size(item) / 1024)) if item else 1


class WriteUnits:
    def __init__(self, raw: Any) -> None:
        self.raw = raw  # a separate client: reading back is not the measured request's work

    def _current(self, table: str, key: dict[str, Any]) -> dict[str, Any] | None:
        return self.raw.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")

    def _action(self, kind: str, body: dict[str, Any]) -> int:
        if kind == "Put":
            return _units(body["Item"])
        if kind == "Delete":
            return 1
        return _units(self._current(body["TableName"], body["Key"]))  # Update, ConditionCheck

    def of(self, tally: Tally) -> float:
        total = 0
        for call in tally.made:
            p = call.params
            if call.operation == "PutItem":
                total += _units(p["Item"])
            elif call.operation in {"UpdateItem", "DeleteItem"}:
                total += self._action("Update" if call.operation == "UpdateItem" else "Delete", p)
            elif call.operation == "TransactWriteItems":
                total += 2 * sum(
                    self._action(kind, body) for action in p["TransactItems"] for kind, body in action.items()
                )
            elif call.operation == "BatchWriteItem":
                total += sum(
                    _units(r["PutRequest"]["Item"]) if "PutRequest" in r else 1
                    for requests in p["RequestItems"].values()
                    for r in requests
                )
        tally.write_units = float(total)
        return tally.write_units
