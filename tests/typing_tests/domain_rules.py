"""What a domain's hooks may return to the type checker: `only_in` serves an update's rules and a delete's alike
(docs/extending.md). Checked by mypy in `make lint`; never run."""

from __future__ import annotations

from collections.abc import Mapping
from typing import assert_type

from ddbguard.domain.entities.orders import ORDER
from ddbguard.guards import entity_operations as operations


def an_update_rule(order_id: str, expected: int, values: Mapping[str, object]) -> operations.Rules:
    return operations.only_in(ORDER, "status", ("PENDING",), order_id, expected, values.get("status"))


def a_delete_rule(order_id: str, expected: int) -> operations.DeleteRules:
    rules = operations.only_in(ORDER, "status", ("PENDING",), order_id, expected, "DELETED")
    assert_type(rules, operations.DeleteRules)
    return rules
