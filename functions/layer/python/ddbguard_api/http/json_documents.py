"""JSON as Python holds it: what a request body parses into, what a response body or a problem document is built
from. Types only (`type` aliases are evaluated lazily, so importing this module evaluates nothing)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from decimal import Decimal

__all__ = ["JsonObject", "JsonScalar", "JsonValue"]

# A parsed body keeps its non-integers as Decimal (ddbguard_api.http.bodies.parse_json); a stored item's numbers come
# back as Decimal too.
type JsonScalar = str | int | float | Decimal | bool | None
type JsonValue = JsonScalar | list[JsonValue] | dict[str, JsonValue]
type JsonObject = dict[str, JsonValue]
