"""One page of one segment of a parallel Scan, resumable from the key DynamoDB returned (kept in wire form, so a
continuation can carry it through JSON to the next invocation)."""

from __future__ import annotations

from typing import Any

from boto3.dynamodb.conditions import ConditionBase

from ddbguard.store.client import client, table_name
from ddbguard.store.codec import from_item
from ddbguard.store.expressions import condition_params
from ddbguard.store.shapes import Item
from ddbguard.store.transient import busy_when_transient

__all__ = ["WireKey", "scan_segment_page"]

# A wire-form LastEvaluatedKey, e.g. {"PK": {"S": "ACCT#..."}, "SK": {"S": "PROFILE"}}.
WireKey = dict[str, dict[str, Any]]


def scan_segment_page(
    filter_condition: ConditionBase,
    *,
    segment: int,
    total_segments: int,
    start_key: WireKey | None = None,
    page_size: int = 1000,
) -> tuple[list[Item], WireKey | None]:
    """(matching items of one page, the key to continue from or None when the segment is done).

    Eventually consistent: half the read units of a consistent Scan over the whole table, and the audit confirms
    every finding with a consistent read by key before it reports or repairs anything.
    """
    if not 0 <= segment < total_segments:
        raise ValueError(f"segment {segment} is outside 0..{total_segments - 1}")
    rendered = condition_params(filter_condition)
    request: dict[str, Any] = {
        "TableName": table_name(),
        "Segment": segment,
        "TotalSegments": total_segments,
        "Limit": page_size,
        "FilterExpression": rendered.pop("ConditionExpression"),
        **rendered,
    }
    if start_key:
        request["ExclusiveStartKey"] = start_key
    with busy_when_transient(writes=False):
        page = client().scan(**request)
    last: WireKey | None = page.get("LastEvaluatedKey")  # type: ignore[assignment]  # boto3's TypedDict, same shape
    return [from_item(item) or {} for item in page.get("Items", [])], last
