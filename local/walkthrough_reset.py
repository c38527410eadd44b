"""`make seed` (and so `make run`) lets the README walk-through run again: it clears what the last pass left of `ada`.

The walk-through creates alice's second account `ada`, renames it, opens its ledger and finally deletes it. Every
other event replays its first answer on a second pass, but a rename of a deleted account cannot: its replay stamp
went with the item (404). So once `ada` is gone (deleted: her tombstone is all that is left), this removes the
request markers of those four events and every item of hers still in the table, her tombstone included; the next
pass creates `ada` afresh under the same derived id. That is the one place an id is given a second life, on
purpose: a local demo reset, never the service. While `ada` exists (a walk-through in progress), nothing is
touched. A resource served by the generic operations (its demo item
created, changed and deleted by the pass, its walk-through steps marking them) is reset the same way: once its
demo item is gone, the markers of its marked events go.

Something else may have taken `ada`'s email or username meanwhile (a "Try it out" in the API docs, a script): then
the walk-through's first step would answer 409. That account is someone's data, so `make seed` does not delete it;
`walkthrough_blockers()` names it and gives the exact command that frees the name.
"""

from __future__ import annotations

from typing import Any

import routes
from ddbguard.domain.entities.accounts import ACCOUNT
from ddbguard.guards.request_identity import RequestIdentity
from ddbguard.guards.versioning import TOMBSTONE
from ddbguard.store import attribute_names, keys
from ddbguard.store.client import client, table_name
from local import demo, route_stories

# The walk-through's events about `ada`, each under its sample Idempotency-Key (their steps mark them).
ADA_EVENTS = tuple(story.operation for story in route_stories.STORIES if story.reset_on_rerun)


def _marker_key(operation: str) -> dict[str, Any]:
    identity = RequestIdentity(
        caller=demo.OWNER, route=routes.by_operation(operation).key, key=demo.sample_key(operation), fingerprint=""
    )
    return dict(keys.request_marker_key(identity.digest))


def _attribute_key(key: dict[str, Any]) -> dict[str, dict[str, str]]:
    return {name: {"S": value} for name, value in key.items()}


def _ada_items(ddb: Any, table: str) -> list[dict[str, Any]]:
    """Items still naming `ada`: her partition, and her entry in alice's owner index."""
    found: list[dict[str, Any]] = []
    for partition in (keys.account_partition(demo.ADA_ACCOUNT), keys.owner_index_partition(demo.OWNER)):
        pages = ddb.get_paginator("query").paginate(
            TableName=table,
            KeyConditionExpression="#pk = :pk",
            ExpressionAttributeNames={"#pk": "PK"},
            ExpressionAttributeValues={":pk": {"S": partition}},
            ConsistentRead=True,
        )
        for page in pages:
            found += [{"PK": item["PK"], "SK": item["SK"]} for item in page["Items"] if demo.ADA_ACCOUNT in str(item)]
    return found


def _gone(item: dict[str, Any] | None) -> bool:
    """Absent, or only its tombstone left."""
    return item is None or item.get(attribute_names.KIND, {}).get("S") == TOMBSTONE


def _finished_demo_items(ddb: Any, table: str) -> list[dict[str, Any]]:
    """The markers of the marked events of every generic resource whose demo item the last pass deleted, and the
    tombstone it left."""
    doomed: list[dict[str, Any]] = []
    listed = {story.operation for story in route_stories.STORIES}  # the product's own stories: `ada` is reset below
    for entity in {route.entity for route in routes.ROUTES if route.generic and route.operation not in listed}:
        if entity is None:
            continue
        demo_key = _attribute_key(dict(entity.key(route_stories.demo_id(entity), demo.OWNER)))
        if not _gone(ddb.get_item(TableName=table, Key=demo_key).get("Item")):
            continue
        marked = [r for r in routes.ROUTES if r.entity is entity and route_stories.story_of(r).reset_on_rerun]
        doomed += [_attribute_key(_marker_key(route.operation)) for route in marked if route.method != "GET"]
        doomed.append(demo_key)
    return doomed


def reset_finished_walkthrough() -> int:
    """Clear a finished walk-through's traces of `ada` and of generic demo items (see the module's docstring);
    how many items went."""
    ddb, table = client(), table_name()
    doomed = _finished_demo_items(ddb, table)
    account = ddb.get_item(TableName=table, Key=_attribute_key(dict(keys.account_key(demo.ADA_ACCOUNT))))
    if _gone(account.get("Item")):
        doomed += [_attribute_key(_marker_key(operation)) for operation in ADA_EVENTS]
        doomed += _ada_items(ddb, table)
    removed = 0
    for key in doomed:
        answer = ddb.delete_item(TableName=table, Key=key, ReturnValues="ALL_OLD")
        removed += "Attributes" in answer
    return removed


def walkthrough_blockers(api_url: str) -> list[str]:
    """For each of `ada`'s unique values locked by another account: what holds it and how to free it."""
    ddb, table = client(), table_name()
    body = route_stories.sample_body(routes.by_operation("create_account")) or {}
    blockers = []
    for unique in ACCOUNT.unique:
        value = body[unique.field]
        # The value's locks (one per reading): the first held by another account blocks `ada`.
        held = [
            ddb.get_item(TableName=table, Key=_attribute_key(dict(key)), ConsistentRead=True).get("Item")
            for key in keys.lock_keys(unique.lock_kind, unique.kind.form(value))
        ]
        lock = next(
            (
                item
                for item in held
                if item and item[attribute_names.OWNER]["S"] != keys.account_partition(demo.ADA_ACCOUNT)
            ),
            None,
        )
        holder = lock[attribute_names.OWNER]["S"] if lock else keys.account_partition(demo.ADA_ACCOUNT)
        if holder == keys.account_partition(demo.ADA_ACCOUNT):
            continue
        account_id = holder.removeprefix(keys.ACCOUNT_PREFIX)
        account = ddb.get_item(TableName=table, Key=_attribute_key(dict(keys.account_key(account_id)))).get("Item")
        if account is None or _gone(account):
            blockers.append(
                f"the walk-through's {unique.field} {value!r} is locked by account {account_id}, which no longer "
                "exists: run `make audit-locks REPAIR=1` to free it"
            )
            continue
        owner, version = account[attribute_names.OWNER_SUB]["S"], account[attribute_names.VERSION]["N"]
        blockers.append(
            f"the walk-through's {unique.field} {value!r} is taken by account {account_id} (owner {owner}), "
            "so its create_account step will answer 409. Free the name by deleting that account (empty its ledger "
            f"first if it holds money):\n  curl -X DELETE {api_url}/accounts/{account_id} "
            f'-H \'If-Match: "{version}"\' -H "Authorization: Bearer $(make -s token SUB={owner})"\n'
            "  or start afresh with an empty table: `make run DDB_DATA_DIR=memory`"
        )
    return blockers
