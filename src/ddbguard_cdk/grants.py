"""Least-privilege table grants: exactly the DynamoDB actions a function performs, each limited to the partition-key
patterns it reaches (`dynamodb:LeadingKeys`).

`grant_entity_access` gives a team's function what an entity's generic routes need (the library's derivation,
`ddbguard.guards.entity_access`); `grant_table_access` any access map; `table_statements` the IAM statements
themselves, which the product's infra/ puts into every function's role.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam

from ddbguard.guards.entity import Entity
from ddbguard.guards.entity_access import INDEX_PREFIX, crud_access, merged_access

__all__ = [
    "CRUD_METHODS",
    "LEADING_KEYS",
    "LEADING_KEYS_ACTIONS",
    "LEADING_KEYS_OPERATOR",
    "XRAY_ACTIONS",
    "entity_access",
    "grant_entity_access",
    "grant_table_access",
    "table_statements",
]

# These actions name a partition in every request, so they can carry the LeadingKeys condition; every other action
# (Scan) cannot, and is granted without it.
LEADING_KEYS_ACTIONS = frozenset(
    {
        "GetItem",
        "PutItem",
        "UpdateItem",
        "DeleteItem",
        "ConditionCheckItem",
        "Query",
        "BatchGetItem",
        "BatchWriteItem",
    }
)
LEADING_KEYS_OPERATOR = "ForAllValues:StringLike"
LEADING_KEYS = "dynamodb:LeadingKeys"
# What active tracing needs; X-Ray supports no resource-level permission for them.
XRAY_ACTIONS = ("xray:PutTraceSegments", "xray:PutTelemetryRecords")
CRUD_METHODS = ("POST", "GET", "PATCH", "DELETE")


def table_statements(access: Mapping[str, tuple[str, ...]], table_arn: str) -> list[iam.PolicyStatement]:
    """IAM statements granting `access` (action -> partition-key patterns) on the table, nothing more.

    Actions reaching the same patterns share one statement whose `dynamodb:LeadingKeys` condition lists them;
    an action that names no partition (Scan) gets a statement without that condition, and a Query of a secondary
    index (pattern `index/<name>`) one on that index's ARN only.
    """
    by_patterns: dict[tuple[str, ...], list[str]] = {}
    statements = []
    for action, patterns in sorted(access.items()):
        indexes = sorted(p.removeprefix(INDEX_PREFIX) for p in patterns if p.startswith(INDEX_PREFIX))
        if indexes:  # a query of a secondary index: that index's ARN alone (no table partition to name)
            arns = [f"{table_arn}/index/{index}" for index in indexes]
            statements.append(iam.PolicyStatement(actions=[f"dynamodb:{action}"], resources=arns))
            patterns = tuple(p for p in patterns if not p.startswith(INDEX_PREFIX))
            if not patterns:
                continue
        if action in LEADING_KEYS_ACTIONS and not patterns:
            raise ValueError(f"dynamodb:{action} names a partition: declare the key patterns it reaches")
        if action not in LEADING_KEYS_ACTIONS and patterns:
            raise ValueError(f"dynamodb:{action} cannot be limited by {LEADING_KEYS}")
        by_patterns.setdefault(tuple(sorted(set(patterns))), []).append(f"dynamodb:{action}")
    for patterns, actions in sorted(by_patterns.items()):
        conditions = {LEADING_KEYS_OPERATOR: {LEADING_KEYS: list(patterns)}} if patterns else None
        statements.append(iam.PolicyStatement(actions=actions, resources=[table_arn], conditions=conditions))
    return statements


def grant_table_access(
    grantee: iam.IGrantable, table: dynamodb.ITable, access: Mapping[str, tuple[str, ...]]
) -> list[iam.PolicyStatement]:
    """Add `access` on `table` to `grantee`'s policy (a function, a role); returns the statements added."""
    statements = table_statements(access, table.table_arn)
    for statement in statements:
        grantee.grant_principal.add_to_principal_policy(statement)
    return statements


def entity_access(entities: Iterable[Entity], methods: Iterable[str] = CRUD_METHODS) -> dict[str, tuple[str, ...]]:
    """What a function serving `methods` of each of `entities` through the generic operations may do, keyed or not."""
    methods = tuple(methods)
    return merged_access(crud_access(entity, method) for entity in entities for method in methods)


def grant_entity_access(
    grantee: iam.IGrantable,
    table: dynamodb.ITable,
    entity: Entity,
    methods: Iterable[str] = CRUD_METHODS,
) -> list[iam.PolicyStatement]:
    """Give `grantee` exactly what `entity`'s create (POST), get (GET), update (PATCH) and delete (DELETE) need,
    with and without an Idempotency-Key: the item, its locks and the request markers, by `dynamodb:LeadingKeys`."""
    return grant_table_access(grantee, table, entity_access([entity], methods))
