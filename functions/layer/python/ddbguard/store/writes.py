"""Conditional writes: action builders, TransactWriteItems with cancellation reasons by position, single-item writes.

Every guarded action asks for `ReturnValuesOnConditionCheckFailure=ALL_OLD`, so a refusal can
be explained from the failed write itself, never from a second read. Transient failures follow
`ddbguard.store.transient`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from boto3.dynamodb.conditions import ConditionBase
from botocore.exceptions import ClientError

from ddbguard.errors import Busy
from ddbguard.observability import MetricName, count, logger
from ddbguard.store import transient
from ddbguard.store.client import client, table_name
from ddbguard.store.codec import from_item, to_item
from ddbguard.store.expressions import condition_params, update_params
from ddbguard.store.shapes import Action, Item, Key

__all__ = [
    "CONDITION_FAILED",
    "ConditionFailed",
    "Reason",
    "TransactionCancelled",
    "condition_check",
    "conditional_put",
    "conditional_update",
    "delete",
    "put",
    "transact_write",
    "update",
]

CONDITION_FAILED = "ConditionalCheckFailed"


class Reason(NamedTuple):
    """One action's outcome in a cancelled transaction."""

    code: str | None
    item: Item | None = None

    @property
    def condition_failed(self) -> bool:
        return self.code == CONDITION_FAILED


class TransactionCancelled(Exception):
    """Some guards failed. `reasons[i]` belongs to action i, as DynamoDB reports them."""

    def __init__(self, reasons: list[Reason]):
        super().__init__(", ".join(str(r.code) for r in reasons))
        self.reasons = reasons

    def failed(self, index: int) -> bool:
        return index < len(self.reasons) and self.reasons[index].condition_failed

    def item(self, index: int) -> Item | None:
        return self.reasons[index].item if index < len(self.reasons) else None


class ConditionFailed(Exception):
    """A single-item write's condition failed; `item` is the item as it was (None: absent)."""

    def __init__(self, item: Item | None):
        super().__init__("condition failed")
        self.item = item


def _guarded(action: dict[str, Any], condition: ConditionBase | None) -> dict[str, Any]:
    if condition is not None:
        action.update(condition_params(condition))
        action["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    return action


def put(item: Mapping[str, object], condition: ConditionBase | None = None) -> Action:
    return {"Put": _guarded({"TableName": table_name(), "Item": to_item(item)}, condition)}


def update(
    key: Key,
    *,
    set_values: Mapping[str, Any] | None = None,
    set_paths: Mapping[tuple[str, ...], Any] | None = None,
    increments: dict[str, int] | None = None,
    derived: dict[tuple[str, ...], tuple[str, int]] | None = None,
    set_if_absent: Mapping[str, Any] | None = None,
    remove: tuple[tuple[str, ...] | str, ...] = (),
    condition: ConditionBase | None = None,
) -> Action:
    body: dict[str, Any] = {"TableName": table_name(), "Key": to_item(dict(key))}
    body.update(
        update_params(
            set_values=set_values,
            set_paths=set_paths,
            increments=increments,
            derived=derived,
            set_if_absent=set_if_absent,
            remove=remove,
            condition=condition,
        )
    )
    if condition is not None:
        body["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    return {"Update": body}


def delete(key: Key, condition: ConditionBase | None = None) -> Action:
    return {"Delete": _guarded({"TableName": table_name(), "Key": to_item(dict(key))}, condition)}


def condition_check(key: Key, condition: ConditionBase) -> Action:
    return {"ConditionCheck": _guarded({"TableName": table_name(), "Key": to_item(dict(key))}, condition)}


def _reasons(error: ClientError) -> list[Reason]:
    return [
        Reason(None if r.get("Code") in (None, "None") else r["Code"], from_item(r.get("Item")))
        for r in error.response.get("CancellationReasons", [])
    ]


def transact_write(actions: list[Action]) -> None:
    """Write all actions or none.

    Raises TransactionCancelled when guards failed (reasons by position), Busy when the store
    kept conflicting or throttling, PermanentStoreError at once for any other cancellation reason.
    No ClientRequestToken: a request that must not apply twice
    leads with its request marker (`ddbguard.guards.replays`), which also covers a client's retry,
    never byte-identical to the first attempt (a token would only cost it a second call).
    """
    request: dict[str, Any] = {"TransactItems": actions}
    for attempt in range(transient.TRANSACTION_ATTEMPTS):
        try:
            client().transact_write_items(**request)
            return
        except transient.CONNECTION_ERRORS as error:
            # botocore already re-sent the same request and never heard back: the outcome is
            # unknown. The client retries with its Idempotency-Key; the request marker makes that
            # retry answer with the first result instead of applying it again.
            count(MetricName.BUSY)
            raise Busy(f"DynamoDB did not answer: {type(error).__name__}", outcome_unknown=True) from None
        except ClientError as error:
            code = transient.error_code(error)
            if code == "TransactionCanceledException":
                reasons = _reasons(error)
                others = [str(r.code) for r in reasons if r.code not in (None, CONDITION_FAILED)]
                if not others:
                    raise TransactionCancelled(reasons) from None
                lasting = sorted({reason for reason in others if not transient.is_transient(reason)})
                if lasting:  # e.g. ValidationError: no retry can ever succeed
                    raise transient.permanent("TransactWriteItems", lasting) from None
                retry_reasons = others
            elif transient.is_transient(code):
                retry_reasons = [code]
            else:
                transient.permanent("TransactWriteItems", [code])
                raise
        count(MetricName.TRANSACTION_RETRY)
        logger.info("transient transaction failure, retrying", extra={"attempt": attempt + 1, "reasons": retry_reasons})
        transient.backoff(attempt)
    raise transient.gave_up(f"DynamoDB stayed busy after {transient.TRANSACTION_ATTEMPTS} attempts")


def _single_write(operation: str, request: dict[str, Any]) -> dict[str, Any]:
    try:
        with transient.busy_when_transient(writes=True):
            return getattr(client(), operation)(**request)
    except ClientError as error:
        if transient.error_code(error) == "ConditionalCheckFailedException":
            raise ConditionFailed(from_item(error.response.get("Item"))) from None  # type: ignore[arg-type]
        transient.permanent(operation, [transient.error_code(error)])  # counted and logged; the ClientError stays
        raise


def conditional_update(
    key: Key,
    *,
    set_values: Mapping[str, Any] | None = None,
    set_paths: Mapping[tuple[str, ...], Any] | None = None,
    increments: dict[str, int] | None = None,
    remove: tuple[tuple[str, ...] | str, ...] = (),
    condition: ConditionBase | None,
    return_values: str = "ALL_NEW",
) -> Item:
    """Update one item if the condition holds; returns the item after the write (or what
    `return_values` asks for), raises ConditionFailed with the item as it was."""
    request = update(
        key, set_values=set_values, set_paths=set_paths, increments=increments, remove=remove, condition=condition
    )["Update"]
    request["ReturnValues"] = return_values
    return from_item(_single_write("update_item", request).get("Attributes")) or {}


def conditional_put(item: Mapping[str, object], condition: ConditionBase) -> None:
    """Put (or replace) one item if the condition holds; raises ConditionFailed with the item as it was."""
    _single_write("put_item", put(item, condition)["Put"])
