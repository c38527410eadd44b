"""Expressions carry a placeholder for every attribute name and value, so reserved words never appear raw."""

from __future__ import annotations

import re

import pytest
from boto3.dynamodb.conditions import Attr, Key

from ddbguard.store.expressions import condition_params, key_condition_params, projection_params, update_params

# DynamoDB reserved words the schema really uses (status, name, size are all reserved).
RESERVED = ("status", "name", "size")
_NAME = re.compile(r"#\w+")
_VALUE = re.compile(r":\w+")


def _bare_words(expression: str) -> set[str]:
    """Identifiers in the expression that are neither placeholders nor function names or keywords."""
    without = _VALUE.sub("", _NAME.sub("", expression))
    words = set(re.findall(r"[A-Za-z_]\w*", without))
    return (
        words
        - {"SET", "REMOVE", "ADD", "AND", "OR", "NOT", "IN", "attribute_exists", "attribute_not_exists"}
        - {"begins_with"}
    )


def _resolved(params: dict, expression_key: str = "UpdateExpression") -> str:
    """The expression with every placeholder replaced by what it stands for (values in DynamoDB JSON)."""
    names = params.get("ExpressionAttributeNames", {})
    values = params.get("ExpressionAttributeValues", {})
    expression = _NAME.sub(lambda m: names[m.group(0)], params[expression_key])
    return _VALUE.sub(lambda m: "<" + "".join(f"{t}:{v}" for t, v in values[m.group(0)].items()) + ">", expression)


def _assert_all_placeholders(params: dict, expression_key: str) -> None:
    expression = params[expression_key]
    assert _bare_words(expression) == set(), expression
    assert set(_NAME.findall(expression)) <= set(params.get("ExpressionAttributeNames", {}))
    assert set(_VALUE.findall(expression)) <= set(params.get("ExpressionAttributeValues", {}))


def test_condition_names_and_values_are_placeholders():
    params = condition_params(Attr("status").eq("PAID") & Attr("size").gt(3) & Attr("name").exists())

    _assert_all_placeholders(params, "ConditionExpression")
    assert sorted(params["ExpressionAttributeNames"].values()) == sorted(RESERVED)
    assert sorted(params["ExpressionAttributeValues"].values(), key=str) == [{"N": "3"}, {"S": "PAID"}]
    for word in RESERVED:
        assert word not in params["ConditionExpression"]


def test_no_condition_adds_nothing():
    assert condition_params(None) == {}


def test_a_condition_without_values_has_no_value_map():
    """DynamoDB rejects an empty ExpressionAttributeValues."""
    params = condition_params(Attr("PK").not_exists())

    assert "ExpressionAttributeValues" not in params
    assert list(params["ExpressionAttributeNames"].values()) == ["PK"]


def test_key_condition_is_rendered_for_a_query():
    params = key_condition_params(Key("PK").eq("ACCT#1") & Key("SK").begins_with("TXN#"))

    _assert_all_placeholders(params, "KeyConditionExpression")
    assert "begins_with" in params["KeyConditionExpression"]
    assert sorted(params["ExpressionAttributeNames"].values()) == ["PK", "SK"]
    assert sorted(v["S"] for v in params["ExpressionAttributeValues"].values()) == ["ACCT#1", "TXN#"]
    assert "ConditionExpression" not in params


def test_set_values_are_placeholders():
    params = update_params(set_values={"status": "PAID", "name": "x"})

    _assert_all_placeholders(params, "UpdateExpression")
    assert _resolved(params) == "SET status = <S:PAID>, name = <S:x>"
    assert sorted(params["ExpressionAttributeNames"].values()) == ["name", "status"]
    assert "ConditionExpression" not in params


def test_set_values_into_a_nested_map_path():
    params = update_params(set_paths={("pending", "entry-1"): 5})

    _assert_all_placeholders(params, "UpdateExpression")
    assert _resolved(params) == "SET pending.entry-1 = <N:5>"


def test_increments_add_to_the_value_before_the_update():
    params = update_params(increments={"version": 1, "size": -5})

    _assert_all_placeholders(params, "UpdateExpression")
    assert _resolved(params) == "SET version = version + <N:1>, size = size + <N:-5>"


def test_derived_path_is_the_source_plus_a_delta_into_a_nested_map():
    params = update_params(derived={("pending", "entry-1"): ("availableCents", -250)})

    _assert_all_placeholders(params, "UpdateExpression")
    assert _resolved(params) == "SET pending.entry-1 = availableCents + <N:-250>"


def test_remove_takes_names_and_nested_paths():
    params = update_params(remove=["status", ("pending", "entry-1")])

    _assert_all_placeholders(params, "UpdateExpression")
    assert _resolved(params) == "REMOVE status, pending.entry-1"
    assert "ExpressionAttributeValues" not in params


def test_set_and_remove_together_and_every_placeholder_defined():
    params = update_params(
        set_values={"status": "SHIPPED"},
        increments={"version": 1},
        derived={("pending", "e"): ("size", 1)},
        remove=[("pending", "old")],
    )

    expression = params["UpdateExpression"]
    _assert_all_placeholders(params, "UpdateExpression")
    assert _resolved(params) == (
        "SET status = <S:SHIPPED>, version = version + <N:1>, pending.e = size + <N:1> REMOVE pending.old"
    )
    for word in RESERVED:
        assert not re.search(rf"\b{word}\b", expression)


def test_a_condition_merges_its_names_and_values_without_clashing():
    params = update_params(
        set_values={"status": "PAID"},
        increments={"version": 1},
        condition=Attr("version").eq(3) & Attr("status").is_in(["PENDING"]),
    )

    _assert_all_placeholders(params, "UpdateExpression")
    _assert_all_placeholders(params, "ConditionExpression")
    assert _resolved(params) == "SET status = <S:PAID>, version = version + <N:1>"
    assert _resolved(params, "ConditionExpression") == "(version = <N:3> AND status IN (<S:PENDING>))"
    # Both families share one name map and one value map; no placeholder stands for two things.
    names, values = params["ExpressionAttributeNames"], params["ExpressionAttributeValues"]
    assert sorted(names.values()) == ["status", "status", "version", "version"]
    assert len(values) == 4


def test_a_condition_without_values_adds_no_empty_value_map():
    params = update_params(remove=["status"], condition=Attr("PK").exists())

    assert "ExpressionAttributeValues" not in params
    assert set(params["ExpressionAttributeNames"].values()) == {"status", "PK"}


def test_an_empty_update_is_refused():
    with pytest.raises(ValueError, match="at least one"):
        update_params()
    with pytest.raises(ValueError):
        update_params(set_values={}, increments={}, derived={}, remove=(), condition=Attr("PK").exists())


def test_projection_names_every_path_part():
    params = projection_params([("status",), ("pending", "entry-1"), ("size",)])

    assert params["ProjectionExpression"] == "#p0_0, #p1_0.#p1_1, #p2_0"
    assert params["ExpressionAttributeNames"] == {
        "#p0_0": "status",
        "#p1_0": "pending",
        "#p1_1": "entry-1",
        "#p2_0": "size",
    }
    _assert_all_placeholders(params, "ProjectionExpression")
