"""Condition and update expressions, with a placeholder for every attribute name and value.

Conditions are boto3's own (`boto3.dynamodb.conditions.Attr`), rendered by boto3's builder
(`#n*` / `:v*`). Update expressions have no boto3 builder, so this module renders them with
its own placeholder families (`#s* #i* #d* #f* #r*` / `:s* :i* :d* :f*`), which never clash with boto3's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from boto3.dynamodb.conditions import ConditionBase, ConditionExpressionBuilder

from ddbguard.store.codec import to_attribute

__all__ = ["condition_params", "key_condition_params", "projection_params", "update_params"]


def _merge(params: dict, names: Mapping[str, str], values: Mapping[str, Any]) -> dict:
    if names:
        params.setdefault("ExpressionAttributeNames", {}).update(names)
    if values:
        params.setdefault("ExpressionAttributeValues", {}).update({k: to_attribute(v) for k, v in values.items()})
    return params


def condition_params(condition: ConditionBase | None) -> dict:
    """`ConditionExpression` plus its names and values, ready to splat into a request."""
    if condition is None:
        return {}
    built = ConditionExpressionBuilder().build_expression(condition)
    return _merge(
        {"ConditionExpression": built.condition_expression},
        built.attribute_name_placeholders,
        built.attribute_value_placeholders,
    )


def key_condition_params(condition: ConditionBase) -> dict:
    """`KeyConditionExpression` (from boto3's `Key(...)` conditions) plus its names and values, for a Query."""
    built = ConditionExpressionBuilder().build_expression(condition, is_key_condition=True)
    return _merge(
        {"KeyConditionExpression": built.condition_expression},
        built.attribute_name_placeholders,
        built.attribute_value_placeholders,
    )


def update_params(
    *,
    set_values: Mapping[str, Any] | None = None,
    set_paths: Mapping[tuple[str, ...], Any] | None = None,
    increments: Mapping[str, int] | None = None,
    derived: Mapping[tuple[str, ...], tuple[str, int]] | None = None,
    set_if_absent: Mapping[str, Any] | None = None,
    remove: Iterable[tuple[str, ...] | str] = (),
    condition: ConditionBase | None = None,
) -> dict:
    """`UpdateExpression` and an optional condition.

    set_values: SET a = :v; set_paths: SET a.b = :v (a tuple of names: a nested map path);
    increments: SET n = n + :d; derived: SET path = source + :d (every operand is the value
    before the update, so a derived path records exactly the new value);
    set_if_absent: SET a = if_not_exists(a, :v) (an attribute that keeps its first value);
    remove: REMOVE path (a name, or a tuple of names for a nested map path).
    """
    names: dict[str, str] = {}
    values: dict[str, Any] = {}
    assignments: list[str] = []
    targets: list[tuple[tuple[str, ...], Any]] = [((name,), value) for name, value in (set_values or {}).items()]
    targets += list((set_paths or {}).items())
    for index, (target, value) in enumerate(targets):
        rendered_target = []
        for depth, name in enumerate(target):
            names[f"#s{index}p{depth}"] = name
            rendered_target.append(f"#s{index}p{depth}")
        values[f":s{index}"] = value
        assignments.append(f"{'.'.join(rendered_target)} = :s{index}")
    for index, (name, delta) in enumerate((increments or {}).items()):
        names[f"#i{index}"], values[f":i{index}"] = name, delta
        assignments.append(f"#i{index} = #i{index} + :i{index}")
    for index, (path, (source, delta)) in enumerate((derived or {}).items()):
        rendered = []
        for depth, name in enumerate(path):
            names[f"#d{index}p{depth}"] = name
            rendered.append(f"#d{index}p{depth}")
        names[f"#d{index}s"], values[f":d{index}"] = source, delta
        assignments.append(f"{'.'.join(rendered)} = #d{index}s + :d{index}")
    for index, (name, value) in enumerate((set_if_absent or {}).items()):
        names[f"#f{index}"], values[f":f{index}"] = name, value
        assignments.append(f"#f{index} = if_not_exists(#f{index}, :f{index})")
    removals: list[str] = []
    for index, removed in enumerate(remove):
        rendered = []
        for depth, name in enumerate((removed,) if isinstance(removed, str) else removed):
            names[f"#r{index}p{depth}"] = name
            rendered.append(f"#r{index}p{depth}")
        removals.append(".".join(rendered))
    clauses = []
    if assignments:
        clauses.append("SET " + ", ".join(assignments))
    if removals:
        clauses.append("REMOVE " + ", ".join(removals))
    if not clauses:
        raise ValueError("an update needs at least one SET or REMOVE")
    params = _merge({"UpdateExpression": " ".join(clauses)}, names, values)
    cond = condition_params(condition)
    if cond:
        params["ConditionExpression"] = cond["ConditionExpression"]
        _merge(params, cond.get("ExpressionAttributeNames", {}), {})
        if cond.get("ExpressionAttributeValues"):  # DynamoDB rejects an empty map
            params.setdefault("ExpressionAttributeValues", {}).update(cond["ExpressionAttributeValues"])
    return params


def projection_params(paths: Iterable[tuple[str, ...]]) -> dict:
    """`ProjectionExpression` for attribute paths (each a tuple of names, nested maps included)."""
    names: dict[str, str] = {}
    rendered = []
    for index, path in enumerate(paths):
        parts = [f"#p{index}_{depth}" for depth in range(len(path))]
        names.update(zip(parts, path, strict=True))
        rendered.append(".".join(parts))
    return {"ProjectionExpression": ", ".join(rendered), "ExpressionAttributeNames": names}
