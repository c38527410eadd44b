"""Reading the table directly in assertions (a separate client, consistent reads, never through ddbguard)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

from ddbguard.store import keys

_deserializer = TypeDeserializer()
_serializer = TypeSerializer()


def _table(table: str | None) -> str:
    return table or os.environ["TABLE_NAME"]


def _python(value: Any) -> Any:
    # Every number the service stores is an integer (cents, versions, counts, epoch seconds).
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else value
    if isinstance(value, dict):
        return {k: _python(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_python(v) for v in value]
    return value


def plain(item: dict[str, Any] | None) -> dict[str, Any] | None:
    """A raw DynamoDB item (attribute values) as Python values, integral numbers as int."""
    if item is None:
        return None
    return {name: _python(_deserializer.deserialize(value)) for name, value in item.items()}


def attribute_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """Python values (a key, an item) as DynamoDB attribute values."""
    return {name: _serializer.serialize(value) for name, value in values.items()}


def raw_item(raw_client, key: Mapping[str, Any], table: str | None = None) -> dict[str, Any] | None:
    """The stored item at `key` (plain strings, e.g. from `ddbguard.store.keys`), or None."""
    response = raw_client.get_item(TableName=_table(table), Key=attribute_values(key), ConsistentRead=True)
    return plain(response.get("Item"))


def raw_collection(raw_client, partition: str, sort_prefix: str, table: str | None = None) -> list[dict[str, Any]]:
    """Every item of `partition` whose sort key starts with `sort_prefix`, every page of the Query."""
    items, start = [], None
    while True:
        request = {
            "TableName": _table(table),
            "KeyConditionExpression": "#pk = :pk AND begins_with(#sk, :prefix)",
            "ExpressionAttributeNames": {"#pk": "PK", "#sk": "SK"},
            "ExpressionAttributeValues": {":pk": {"S": partition}, ":prefix": {"S": sort_prefix}},
            "ConsistentRead": True,
        }
        if start:
            request["ExclusiveStartKey"] = start
        response = raw_client.query(**request)
        items += [item for item in map(plain, response["Items"]) if item is not None]
        start = response.get("LastEvaluatedKey")
        if not start:
            return items


def lock_pk(kind: str, value: str) -> str:
    """The partition key of the one lock of a value that reads one way (most ASCII values): `UNIQ#<KIND>#<reading>`."""
    (key,) = keys.lock_keys(kind, value)
    return key["PK"]


def lock_owner(raw_client, kind: str, value: str, table: str | None = None) -> str | None:
    """The `owner` of the locks of a normalised value (kind EMAIL or HANDLE: one lock per reading of the value,
    `keys.lock_keys`), or None when it has none. Locks of one value held by different owners, or some missing, fail
    the caller's test: a value's locks are written and released together."""
    found = [raw_item(raw_client, dict(key), table) for key in keys.lock_keys(kind, value)]
    owners = {item["owner"] if item else None for item in found}
    assert len(owners) == 1, f"the locks of {value!r} are held by {owners}"
    return owners.pop()


def is_tombstone(item: dict[str, Any] | None) -> bool:
    """What a deleted account or order leaves: its key, what it was and when it went, and nothing else (no owner, no
    values), so nothing owner-checked finds it and its id is never given again."""
    return (
        item is not None
        and item.get("kind") == "tombstone"
        and set(item) <= {"PK", "SK", "kind", "deletedKind", "deletedAt", "writeToken"}
    )
