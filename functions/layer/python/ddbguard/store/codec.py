"""Python values <-> DynamoDB attribute values, through boto3's TypeSerializer / TypeDeserializer."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

__all__ = ["from_item", "to_attribute", "to_item"]

_serializer = TypeSerializer()
_deserializer = TypeDeserializer()


def to_attribute(value: Any) -> Any:
    return _serializer.serialize(value)


def to_item(values: Mapping[str, Any]) -> dict[str, Any]:
    return {name: _serializer.serialize(value) for name, value in values.items()}


def _plain(value: Any) -> Any:
    # Every number ddbguard stores is an integer (cents, versions, counts).
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, set):
        return {_plain(v) for v in value}
    return value


def from_item(item: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if item is None:
        return None
    return {name: _plain(_deserializer.deserialize(value)) for name, value in item.items()}
