"""Reads: one item, one page of a Query, every page of an index partition or a Scan, under the transient-error
policy."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeVar, cast

from boto3.dynamodb.conditions import ConditionBase

from ddbguard.store.attribute_names import PK, SK
from ddbguard.store.client import client, table_name
from ddbguard.store.codec import from_item, to_item
from ddbguard.store.expressions import condition_params, key_condition_params, projection_params
from ddbguard.store.shapes import Item, Key
from ddbguard.store.transient import busy_when_transient

__all__ = [
    "BATCH_GET_LIMIT",
    "Kind",
    "as_kind",
    "get_item",
    "get_item_as",
    "get_items",
    "index_pages",
    "query_page",
    "scan_pages",
]

# A typed view of one item kind (`ddbguard.store.items`).
Kind = TypeVar("Kind")


def as_kind(kind: type[Kind], item: Item | None) -> Kind | None:
    """An item read from the table, as the view of its kind. The key it was read by names the kind, and a view
    costs nothing at runtime, so nothing is checked here: pass only an item read by a key of that kind."""
    return cast(Kind | None, item)


def get_item_as(kind: type[Kind], key: Key) -> Kind | None:
    """`get_item` (consistent), as the view of the kind `key` names."""
    return as_kind(kind, get_item(key))


def get_item(key: Key, *, consistent: bool = True, attributes: tuple[tuple[str, ...], ...] = ()) -> Item | None:
    """The item (None when absent), or only the attribute paths named in `attributes` (each a tuple of names)."""
    request: dict[str, Any] = {"TableName": table_name(), "Key": to_item(dict(key)), "ConsistentRead": consistent}
    if attributes:
        request.update(projection_params(attributes))
    with busy_when_transient(writes=False):
        response = client().get_item(**request)
    return from_item(response.get("Item"))


def query_page(
    condition: ConditionBase,
    *,
    limit: int,
    start_key: Key | None = None,
    newest_first: bool = False,
    consistent: bool = True,
) -> tuple[list[Item], Key | None]:
    """One page of a Query on the table: (items, the key to continue from or None)."""
    request: dict[str, Any] = {
        "TableName": table_name(),
        "ScanIndexForward": not newest_first,
        "Limit": limit,
        "ConsistentRead": consistent,
        **key_condition_params(condition),
    }
    if start_key is not None:
        request["ExclusiveStartKey"] = to_item(dict(start_key))
    with busy_when_transient(writes=False):
        response = client().query(**request)
    items = [from_item(item) or {} for item in response.get("Items", [])]
    last = from_item(response.get("LastEvaluatedKey"))
    return items, (Key(PK=last[PK], SK=last[SK]) if last else None)


def index_pages(index: str, condition: ConditionBase, *, page_size: int = 1000) -> Iterator[list[Item]]:
    """Every item of one partition of a secondary index, one page at a time, with eventually consistent reads
    (a global secondary index offers no other kind; what is found is re-read consistently before it is acted on)."""
    request: dict[str, Any] = {
        "TableName": table_name(),
        "IndexName": index,
        "Limit": page_size,
        **key_condition_params(condition),
    }
    while True:
        with busy_when_transient(writes=False):
            page = client().query(**request)
        yield [from_item(item) or {} for item in page.get("Items", [])]
        if "LastEvaluatedKey" not in page:
            return
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def scan_pages(filter_condition: ConditionBase, *, page_size: int = 1000) -> Iterator[list[Item]]:
    """Every item matching the filter, one page at a time (memory stays flat however big the table)."""
    rendered = condition_params(filter_condition)
    request: dict[str, Any] = {
        "TableName": table_name(),
        "ConsistentRead": True,
        "Limit": page_size,
        "FilterExpression": rendered.pop("ConditionExpression"),
        **rendered,
    }
    while True:
        with busy_when_transient(writes=False):
            page = client().scan(**request)
        yield [from_item(item) or {} for item in page.get("Items", [])]
        if "LastEvaluatedKey" not in page:
            return
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


BATCH_GET_LIMIT = 100  # keys per BatchGetItem (DynamoDB's limit)


def get_items(keys: list[Key], *, attributes: tuple[tuple[str, ...], ...] = ()) -> list[Item]:
    """Items by key with consistent BatchGetItem calls (one per 100 keys), optionally projected; absent
    items are left out, unprocessed keys asked again."""
    found: list[Item] = []
    for start in range(0, len(keys), BATCH_GET_LIMIT):
        chunk = keys[start : start + BATCH_GET_LIMIT]
        request: dict[str, Any] = {"Keys": [to_item(dict(key)) for key in chunk], "ConsistentRead": True}
        if attributes:
            request.update(projection_params(attributes))
        pending: dict[str, Any] = {table_name(): request}
        while pending:
            with busy_when_transient(writes=False):
                response = client().batch_get_item(RequestItems=pending)
            found += [from_item(item) or {} for item in response.get("Responses", {}).get(table_name(), [])]
            pending = response.get("UnprocessedKeys") or {}
    return found
