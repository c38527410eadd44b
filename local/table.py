"""Create the single table locally with the same key schema, TTL attribute and stream as the stack."""

from __future__ import annotations

from typing import Any

from ddbguard.store.schema import KEY_ATTRIBUTES, TTL_ATTRIBUTE

# Keys of new and changed items (as the stack's stream): the settlement reads new ledger entries by key.
STREAM = {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}


def ensure_table(client: Any, table_name: str) -> None:
    try:
        table = client.describe_table(TableName=table_name)["Table"]
    except client.exceptions.ResourceNotFoundException:
        table = None
    if table is not None:
        if not (table.get("StreamSpecification") or {}).get("StreamEnabled"):
            client.update_table(TableName=table_name, StreamSpecification=STREAM)  # a table made before streams
        return
    partition, sort = KEY_ATTRIBUTES
    client.create_table(
        TableName=table_name,
        AttributeDefinitions=[
            {"AttributeName": partition, "AttributeType": "S"},
            {"AttributeName": sort, "AttributeType": "S"},
        ],
        KeySchema=[{"AttributeName": partition, "KeyType": "HASH"}, {"AttributeName": sort, "KeyType": "RANGE"}],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification=STREAM,
    )
    client.get_waiter("table_exists").wait(TableName=table_name, WaiterConfig={"Delay": 0.2, "MaxAttempts": 100})
    client.update_time_to_live(
        TableName=table_name, TimeToLiveSpecification={"Enabled": True, "AttributeName": TTL_ATTRIBUTE}
    )
