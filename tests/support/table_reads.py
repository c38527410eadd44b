"""Reading the table directly in assertions (a separate client, consistent reads)."""

from __future__ import annotations

import os


def lock_owner(raw_client, kind: str, value: str, table: str | None = None) -> str | None:
    """The `owner` of the lock for a normalised value (kind EMAIL or HANDLE), or None."""
    item = raw_client.get_item(
        TableName=table or os.environ["TABLE_NAME"],
        Key={"PK": {"S": f"UNIQ#{kind}#{value}"}, "SK": {"S": "LOCK"}},
        ConsistentRead=True,
    ).get("Item")
    return item["owner"]["S"] if item else None
