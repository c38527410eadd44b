"""Create the single table locally with the same key schema, TTL attribute and stream as the stack."""

from __future__ import annotations

from typing import Any

from ddbguard.store.attribute_names import EXPIRATION, KEY_ATTRIBUTES, UNSETTLED_INDEX, UNSETTLED_SHARD, UNSETTLED_SINCE

# Keys of new and changed items (as the stack's stream): the settlement reads new ledger entries by key.
STREAM = {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
# The sparse index of balances that wait for settlement (as the stack's): keys only, all the sweeper reads.
UNSETTLED_INDEX_ATTRIBUTES = [
    {"AttributeName": UNSETTLED_SHARD, "AttributeType": "S"},
    {"AttributeName": UNSETTLED_SINCE, "AttributeType": "S"},
]
UNSETTLED_INDEX_SPEC = {
    "IndexName": UNSETTLED_INDEX,
    "KeySchema": [
        {"AttributeName": UNSETTLED_SHARD, "KeyType": "HASH"},
        {"AttributeName": UNSETTLED_SINCE, "KeyType": "RANGE"},
    ],
    "Projection": {"ProjectionType": "KEYS_ONLY"},
}


def ensure_table(client: Any, table_name: str) -> None:
    try:
        table = client.describe_table(TableName=table_name)["Table"]
    except client.exceptions.ResourceNotFoundException:
        table = None
    if table is not None:
        if not (table.get("StreamSpecification") or {}).get("StreamEnabled"):
            client.update_table(TableName=table_name, StreamSpecification=STREAM)  # a table made before streams
        if not any(index["IndexName"] == UNSETTLED_INDEX for index in table.get("GlobalSecondaryIndexes") or []):
            client.update_table(  # a table made before the index: its balances join it with their next movement
                TableName=table_name,
                AttributeDefinitions=UNSETTLED_INDEX_ATTRIBUTES,
                GlobalSecondaryIndexUpdates=[{"Create": UNSETTLED_INDEX_SPEC}],
            )
        return
    partition, sort = KEY_ATTRIBUTES
    client.create_table(
        TableName=table_name,
        AttributeDefinitions=[
            {"AttributeName": partition, "AttributeType": "S"},
            {"AttributeName": sort, "AttributeType": "S"},
            *UNSETTLED_INDEX_ATTRIBUTES,
        ],
        KeySchema=[{"AttributeName": partition, "KeyType": "HASH"}, {"AttributeName": sort, "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[UNSETTLED_INDEX_SPEC],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification=STREAM,
    )
    client.get_waiter("table_exists").wait(TableName=table_name, WaiterConfig={"Delay": 0.2, "MaxAttempts": 100})
    client.update_time_to_live(
        TableName=table_name, TimeToLiveSpecification={"Enabled": True, "AttributeName": EXPIRATION}
    )
