"""The single table: key schema, billing, PITR, TTL and protection (docs/data-model.md)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from aws_cdk.assertions import Match, Template

from infra import constants
from infra.stack import build_app

from .stack_templates import flat_template

if TYPE_CHECKING:
    from conftest import Synth

REPO_ROOT = Path(__file__).resolve().parents[2]


def _layer_schema() -> ModuleType:
    """The layer's attribute names, loaded from their path: infra must not import the runtime code."""
    path = REPO_ROOT / "functions" / "layer" / "python" / "ddbguard" / "store" / "attribute_names.py"
    spec = importlib.util.spec_from_file_location("ddbguard_layer_schema", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_infra_key_constants_equal_the_layer_schema() -> None:
    schema = _layer_schema()
    assert constants.PK == schema.PK == "PK"
    assert constants.SK == schema.SK == "SK"
    assert constants.EXPIRATION == schema.EXPIRATION == "expiration"
    assert (constants.UNSETTLED_INDEX, constants.UNSETTLED_SHARD, constants.UNSETTLED_SINCE) == (
        schema.UNSETTLED_INDEX,
        schema.UNSETTLED_SHARD,
        schema.UNSETTLED_SINCE,
    )


def test_exactly_one_table(template: Template) -> None:
    template.resource_count_is("AWS::DynamoDB::Table", 1)


def test_table_keys_billing_pitr_ttl(template: Template) -> None:
    template.has_resource_properties(
        "AWS::DynamoDB::Table",
        {
            "KeySchema": [
                {"AttributeName": "PK", "KeyType": "HASH"},
                {"AttributeName": "SK", "KeyType": "RANGE"},
            ],
            "AttributeDefinitions": Match.array_equals(
                [
                    {"AttributeName": "PK", "AttributeType": "S"},
                    {"AttributeName": "SK", "AttributeType": "S"},
                    {"AttributeName": "unsettledShard", "AttributeType": "S"},
                    {"AttributeName": "unsettledSince", "AttributeType": "S"},
                ]
            ),
            "BillingMode": "PAY_PER_REQUEST",
            "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
            "TimeToLiveSpecification": {"AttributeName": "expiration", "Enabled": True},
            "DeletionProtectionEnabled": True,
        },
    )


def test_the_one_secondary_index_is_the_sparse_keys_only_index_of_unsettled_balances(synth: Synth) -> None:
    (table,) = synth.of_type("AWS::DynamoDB::Table").values()
    assert table["Properties"]["GlobalSecondaryIndexes"] == [
        {
            "IndexName": "unsettled",
            "KeySchema": [
                {"AttributeName": "unsettledShard", "KeyType": "HASH"},
                {"AttributeName": "unsettledSince", "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        }
    ]


def test_table_is_retained(template: Template) -> None:
    # Retained, except when the stack's first deploy rolls back (then it is new and empty): nothing orphaned.
    template.has_resource(
        "AWS::DynamoDB::Table",
        {"DeletionPolicy": "RetainExceptOnCreate", "UpdateReplacePolicy": "Retain"},
    )


def test_table_has_no_provisioned_throughput(synth: Synth) -> None:
    (table,) = synth.of_type("AWS::DynamoDB::Table").values()
    assert "ProvisionedThroughput" not in table["Properties"]


def _stateful(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        value["Type"]: value
        for value in template["Resources"].values()
        if value["Type"] in {"AWS::DynamoDB::Table", "AWS::Cognito::UserPool"}
    }


def test_a_first_deploy_creates_the_table_and_pool_unprotected_so_a_rollback_can_delete_them(synth: Synth) -> None:
    # docs/decisions/048-a-first-deploy-that-fails-leaves-nothing-behind.md: `make deploy` deploys a new stack once
    # with deletionProtection=false, then again with the default.
    app, stack = build_app(context={"deletionProtection": "false", "monitoringProfile": "lean"})
    first = _stateful(flat_template(app, stack))
    table, pool = first["AWS::DynamoDB::Table"], first["AWS::Cognito::UserPool"]
    assert table["Properties"]["DeletionProtectionEnabled"] is False
    assert pool["Properties"]["DeletionProtection"] == "INACTIVE"
    for resource in (table, pool):
        assert resource["DeletionPolicy"] == "RetainExceptOnCreate"  # a rollback of the create deletes it
    then = _stateful(synth.json)
    assert then["AWS::DynamoDB::Table"]["Properties"]["DeletionProtectionEnabled"] is True
    assert then["AWS::Cognito::UserPool"]["Properties"]["DeletionProtection"] == "ACTIVE"
    for resource in then.values():
        assert resource["DeletionPolicy"] == "RetainExceptOnCreate" and resource["UpdateReplacePolicy"] == "Retain"
