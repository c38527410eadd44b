"""The route table's table-access declarations (what infra/ grants) agree with the code that makes the calls."""

from __future__ import annotations

import routes
from routes import ROUTES


def test_key_patterns_match_the_layer_key_builders() -> None:
    from ddbguard import keys

    assert f"{keys.ACCOUNT_PREFIX}*" == routes.ACCOUNTS
    assert f"{keys.ORDER_PREFIX}*" == routes.ORDERS
    assert f"{keys.REQUEST_PREFIX}*" == routes.REQUEST_MARKERS
    assert f"{keys.LOCK_PREFIX}EMAIL#*" == routes.EMAIL_LOCKS
    assert f"{keys.LOCK_PREFIX}HANDLE#*" == routes.USERNAME_LOCKS
    assert keys.lock_key("EMAIL", "a@b.io")["PK"].startswith(routes.EMAIL_LOCKS[:-1])
    assert keys.order_key("alice", "o-1")["PK"].startswith(routes.ORDERS[:-1])


def test_idempotency_partition_is_the_one_the_endpoint_writes(dynamodb_local) -> None:
    import importlib

    for route in ROUTES:
        if route.idempotency == "none":
            continue
        endpoint = importlib.import_module(route.handler).endpoint
        assert endpoint.persistence.static_pk_value == route.idempotency_partition


def test_powertools_never_needs_getitem_on_its_records() -> None:
    # DynamoDBPersistenceLayer reads a taken key from the failed PutItem (ReturnValuesOnConditionCheckFailure)
    # on this boto3; only without it would it fall back to GetItem, which no function is granted.
    import boto3
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

    assert DynamoDBPersistenceLayer.boto3_supports_condition_check_failure(boto3.__version__)
