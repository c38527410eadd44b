"""Record every DynamoDB call each function makes, as the IAM actions and partition keys it would be authorised on.

A botocore hook on ddbguard's own client (`before-parameter-build`, so it sees calls a fault injector later
answers without sending) files each call under the function whose handler is running
(`local.invocation.current_function`, set by the local invoke paths). A transaction is split into its item
actions, as IAM authorises it. Partition keys are kept as the route table's pattern they fall under.
"""

from __future__ import annotations

import fnmatch
import json
import re
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import routes
from local.invocation import current_function
from routes import job_access, table_patterns

AUDIT_FUNCTION = "audit_locks"
SETTLEMENT_FUNCTION = "settle_entries"
SWEEPER_FUNCTION = "sweep_pending"
NO_KEY = ""  # Scan: the request names no partition
_TRANSACT_ACTIONS = {
    "Put": "PutItem",
    "Update": "UpdateItem",
    "Delete": "DeleteItem",
    "ConditionCheck": "ConditionCheckItem",
}
_HOOK_ID = "ddbguard-table-access-recorder"


def declared_access() -> dict[str, dict[str, tuple[str, ...]]]:
    """function -> action -> partition-key patterns, as the route table declares them (what infra/ grants)."""
    declared = {route.operation: route.table_access for route in routes.ROUTES}
    declared[AUDIT_FUNCTION] = dict(job_access.AUDIT_TABLE_ACCESS)
    declared[SETTLEMENT_FUNCTION] = dict(job_access.SETTLEMENT_TABLE_ACCESS)
    declared[SWEEPER_FUNCTION] = dict(job_access.SWEEPER_TABLE_ACCESS)
    return declared


def known_patterns() -> tuple[str, ...]:
    """Every partition-key pattern a grant names, from the route table (as it is now: a test may add routes), most
    specific (longest) first: a key is filed under the first pattern it matches."""
    named = {pattern for grant in declared_access().values() for patterns in grant.values() for pattern in patterns}
    return tuple(sorted(named, key=lambda pattern: (-len(pattern), pattern)))


def key_class(partition: str) -> str:
    """The pattern a partition key is filed under."""
    for pattern in known_patterns():
        if fnmatch.fnmatchcase(partition, pattern):
            return pattern
    return partition  # unknown: kept as it is, so a failure names it


def _partition(key: dict[str, Any] | None) -> str:
    value = (key or {}).get("PK") or {}
    return value.get("S", "") if isinstance(value, dict) else str(value)


def _query_partition(params: dict[str, Any]) -> str:
    """The PK value a Query's key condition pins (`#n = :v` or `PK = :v`)."""
    names = params.get("ExpressionAttributeNames") or {}
    values = params.get("ExpressionAttributeValues") or {}
    for left, right in re.findall(r"([#\w]+)\s*=\s*(:\w+)", params.get("KeyConditionExpression", "")):
        if names.get(left, left) == "PK":
            return _partition({"PK": values.get(right)})
    return "?"


def item_actions(operation: str, params: dict[str, Any]) -> list[tuple[str, str]]:
    """(IAM action, partition key) for each item-level permission one API call needs."""
    if operation in ("GetItem", "DeleteItem", "UpdateItem"):
        return [(operation, _partition(params.get("Key")))]
    if operation == "PutItem":
        return [(operation, _partition(params.get("Item")))]
    if operation == "TransactWriteItems":
        found = []
        for entry in params.get("TransactItems", []):
            for kind, body in entry.items():
                found.append((_TRANSACT_ACTIONS[kind], _partition(body.get("Key") or body.get("Item"))))
        return found
    if operation == "TransactGetItems":
        return [("GetItem", _partition(entry["Get"]["Key"])) for entry in params.get("TransactItems", [])]
    if operation == "Query" and params.get("IndexName"):  # a secondary index: granted on the index, by name
        return [(operation, f"{table_patterns.INDEX_PREFIX}{params['IndexName']}")]
    if operation == "Query":
        return [(operation, _query_partition(params))]
    if operation == "BatchGetItem":
        return [
            ("BatchGetItem", _partition(key))
            for request in (params.get("RequestItems") or {}).values()
            for key in request.get("Keys", [])
        ]
    if operation == "BatchWriteItem":
        return [
            (
                "BatchWriteItem",
                _partition(next(iter(write.values())).get("Key") or next(iter(write.values())).get("Item")),
            )
            for writes in (params.get("RequestItems") or {}).values()
            for write in writes
        ]
    return [(operation, NO_KEY)]  # Scan, and anything table-wide


class TableAccessLog:
    """function -> action -> partition-key classes seen, for the whole test session."""

    def __init__(self) -> None:
        self.observed: dict[str, dict[str, set[str]]] = {}
        # DynamoDB API operations called (TransactWriteItems, not its item actions): the system-error alarm's terms.
        self.operations: set[str] = set()
        self._lock = threading.Lock()

    def _record(self, params: dict[str, Any], model: Any, **_: object) -> None:
        function = current_function.get()
        if function is None:  # a test calling the layer directly: no function's grant is involved
            return
        with self._lock:
            self.operations.add(model.name)
            actions = self.observed.setdefault(function, {})
            for action, partition in item_actions(model.name, params):
                actions.setdefault(action, set()).add(NO_KEY if partition == NO_KEY else key_class(partition))

    def merge(self, observed: dict[str, dict[str, list[str]]], operations: Iterable[str]) -> None:
        """Add another log's calls (a pytest-xdist worker's, tests/support/whole_suite.py)."""
        with self._lock:
            self.operations.update(operations)
            for function, actions in observed.items():
                for action, classes in actions.items():
                    self.observed.setdefault(function, {}).setdefault(action, set()).update(classes)

    def attach(self, client: Any) -> None:
        client.meta.events.register("before-parameter-build.dynamodb", self._record, unique_id=_HOOK_ID)

    def as_json(self) -> dict[str, dict[str, list[str]]]:
        with self._lock:
            return {
                function: {action: sorted(classes) for action, classes in sorted(actions.items())}
                for function, actions in sorted(self.observed.items())
            }

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.as_json(), indent=2) + "\n", encoding="utf-8")


def _covered(key: str, patterns: Iterable[str]) -> bool:
    return any(key == pattern or fnmatch.fnmatchcase(key, pattern) for pattern in patterns)


def ungranted_calls(observed: dict[str, dict[str, list[str]]]) -> list[str]:
    """Calls a function made that its grant (action + LeadingKeys pattern) would refuse."""
    declared = declared_access()
    problems = []
    for function, actions in observed.items():
        grant = declared.get(function, {})
        for action, classes in actions.items():
            if action not in grant:
                problems.append(f"{function}: calls {action} ({', '.join(classes) or 'no key'}), not granted")
                continue
            for key in classes:
                if key != NO_KEY and not _covered(key, grant[action]):
                    problems.append(f"{function}: {action} on {key!r}, outside its LeadingKeys {grant[action]}")
    return problems


def unused_grants(observed: dict[str, dict[str, list[str]]]) -> list[str]:
    """Grants (action, pattern) no call of the function needed across the whole suite."""
    problems = []
    for function, grant in declared_access().items():
        seen = observed.get(function, {})
        for action, patterns in grant.items():
            if action not in seen:
                problems.append(f"{function}: granted {action}, never called")
                continue
            for pattern in patterns:
                if not any(key == pattern or fnmatch.fnmatchcase(key, pattern) for key in seen[action]):
                    problems.append(f"{function}: granted {action} on {pattern!r}, never needed")
    return problems


# The session's one log (attached in tests/conftest.py).
SESSION_LOG = TableAccessLog()
