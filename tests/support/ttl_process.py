"""DynamoDB's Time to Live process, which DynamoDB Local does not run: expired items are deleted, some time later.

DynamoDB deletes an item whose TTL attribute (epoch seconds) has passed within a few days, not at once, and reads
see it until then. `delete_expired` deletes a share of the expired ones, so both cases occur: a record gone, and a
record past its time still there (which the service must treat as gone).
"""

from __future__ import annotations

import random
from typing import Any

from ddbguard.store.attribute_names import EXPIRATION
from tests.support.table_invariants import scan_all


def delete_expired(raw_client: Any, table: str, now_s: float, share: float, rng: random.Random) -> int:
    """Delete about `share` of the items whose TTL passed before `now_s`; returns how many."""
    expired = [item for item in scan_all(raw_client, table) if int(item.get(EXPIRATION, now_s + 1)) < now_s]
    deleted = 0
    for item in expired:
        if rng.random() < share:
            raw_client.delete_item(TableName=table, Key={"PK": {"S": item["PK"]}, "SK": {"S": item["SK"]}})
            deleted += 1
    return deleted
