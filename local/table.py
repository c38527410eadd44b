"""Create the single table locally with the same key schema and TTL attribute as the stack."""

from __future__ import annotations

from typing import Any

from ddbguard.store.schema import KEY_ATTRIBUTES, TTL_ATTRIBUTE


def ensure_table(client: Any, table_name: str) -> None:
    try:
        client.describe_table(TableName=table_name)
        return
    except client.exceptions.ResourceNotFoundException:
        pass
    partition, sort = KEY_ATTRIBUTES
    client.create_table(
        TableName=table_name,
        AttributeDefinitions=[
            {"AttributeName": partition, "AttributeType": "S"},
            {"AttributeName": sort, "AttributeType": "S"},
        ],
        KeySchema=[{"AttributeName": partition, "KeyType": "HASH"}, {"AttributeName": sort, "KeyType": "RANGE"}],
        BillingMode="PAY_PER_REQUEST",
    )
    client.get_waiter("table_exists").wait(TableName=table_name, WaiterConfig={"Delay": 0.2, "MaxAttempts": 100})
    client.update_time_to_live(
        TableName=table_name, TimeToLiveSpecification={"Enabled": True, "AttributeName": TTL_ATTRIBUTE}
    )
