"""Run conditional writes: transaction actions, cancellation reasons by position, transient retries.

Every guarded action asks for `ReturnValuesOnConditionCheckFailure=ALL_OLD`, so a refusal can
be explained from the failed write itself, never from a second read.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

from boto3.dynamodb.conditions import ConditionBase
from botocore.exceptions import ClientError, HTTPClientError
from botocore.exceptions import ConnectionError as BotocoreConnectionError

from ddbguard.errors import Busy
from ddbguard.observability import MetricName, count, logger
from ddbguard.store.client import client, table_name
from ddbguard.store.codec import from_item, to_item
from ddbguard.store.expressions import condition_params, update_params

CONDITION_FAILED = "ConditionalCheckFailed"
MAX_ATTEMPTS = 6
_BACKOFF_BASE_S = 0.02
_BACKOFF_CAP_S = 0.4
# Error codes that say "the store was busy", never "your request was wrong".
_TRANSIENT_ERRORS = {
    "TransactionInProgressException",
    "ThrottlingException",
    "ProvisionedThroughputExceededException",
    "RequestLimitExceeded",
    "InternalServerError",
}


@dataclass(frozen=True)
class Reason:
    """One action's outcome in a cancelled transaction."""

    code: str | None
    item: dict[str, Any] | None = None

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

    def item(self, index: int) -> dict[str, Any] | None:
        return self.reasons[index].item if index < len(self.reasons) else None


class ConditionFailed(Exception):
    """A single-item write's condition failed; `item` is the item as it was (None: absent)."""

    def __init__(self, item: dict[str, Any] | None):
        super().__init__("condition failed")
        self.item = item


def _guarded(action: dict, condition: ConditionBase | None) -> dict:
    if condition is not None:
        action.update(condition_params(condition))
        action["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    return action


def put(item: dict[str, Any], condition: ConditionBase | None = None) -> dict:
    return {"Put": _guarded({"TableName": table_name(), "Item": to_item(item)}, condition)}


def update(
    key: dict[str, str],
    *,
    set_values: dict[str, Any] | None = None,
    increments: dict[str, int] | None = None,
    derived: dict[tuple[str, ...], tuple[str, int]] | None = None,
    remove: tuple = (),
    condition: ConditionBase | None = None,
) -> dict:
    body = {"TableName": table_name(), "Key": to_item(key)}
    body.update(
        update_params(set_values=set_values, increments=increments, derived=derived, remove=remove, condition=condition)
    )
    if condition is not None:
        body["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    return {"Update": body}


def delete(key: dict[str, str], condition: ConditionBase | None = None) -> dict:
    return {"Delete": _guarded({"TableName": table_name(), "Key": to_item(key)}, condition)}


def condition_check(key: dict[str, str], condition: ConditionBase) -> dict:
    return {"ConditionCheck": _guarded({"TableName": table_name(), "Key": to_item(key)}, condition)}


def _backoff(attempt: int) -> None:
    # Full jitter: racing writers spread out instead of colliding again in lockstep.
    time.sleep(random.uniform(0, min(_BACKOFF_CAP_S, _BACKOFF_BASE_S * 2**attempt)))


def _reasons(error: ClientError) -> list[Reason]:
    return [
        Reason(None if r.get("Code") in (None, "None") else r["Code"], from_item(r.get("Item")))
        for r in error.response.get("CancellationReasons", [])
    ]


def transact_write(actions: list[dict], *, token: str | None = None, max_attempts: int = MAX_ATTEMPTS) -> None:
    """Write all actions or none.

    Raises TransactionCancelled when guards failed (reasons by position), Busy when the store
    kept conflicting or throttling. The same `actions` list is re-sent on every attempt, so a
    ClientRequestToken replay matches byte for byte.
    """
    request: dict[str, Any] = {"TransactItems": actions}
    if token:
        request["ClientRequestToken"] = token
    for attempt in range(max_attempts):
        try:
            client().transact_write_items(**request)
            return
        except (BotocoreConnectionError, HTTPClientError) as error:
            # botocore already re-sent the same request (same token) and never heard back: the
            # outcome is unknown. The client retries with its Idempotency-Key; the marker or the
            # token makes that retry answer with the first result instead of applying it again.
            raise Busy(f"DynamoDB did not answer: {type(error).__name__}", outcome_unknown=True) from None
        except ClientError as error:
            code = error.response.get("Error", {}).get("Code", "")
            if code == "TransactionCanceledException":
                reasons = _reasons(error)
                if all(r.code in (None, CONDITION_FAILED) for r in reasons):
                    raise TransactionCancelled(reasons) from None
                transient = [r.code for r in reasons if r.code not in (None, CONDITION_FAILED)]
            elif code == "IdempotentParameterMismatchException":
                # An earlier invocation with this idempotency key committed a different rendering
                # of the request (new timestamps). Send it without the token: its guards (request
                # marker, version, attribute_not_exists) now refuse, and say what is there.
                request.pop("ClientRequestToken", None)
                continue
            elif code in _TRANSIENT_ERRORS:
                transient = [code]
            else:
                raise
        count(MetricName.TRANSACTION_RETRY)
        logger.info("transient transaction failure, retrying", extra={"attempt": attempt + 1, "reasons": transient})
        _backoff(attempt)
    count(MetricName.BUSY)
    raise Busy(f"DynamoDB stayed busy after {max_attempts} attempts")


def _single_write(operation: str, request: dict) -> dict:
    try:
        return getattr(client(), operation)(**request)
    except (BotocoreConnectionError, HTTPClientError) as error:
        raise Busy(f"DynamoDB did not answer: {type(error).__name__}", outcome_unknown=True) from None
    except ClientError as error:
        code = error.response.get("Error", {}).get("Code", "")
        if code == "ConditionalCheckFailedException":
            raise ConditionFailed(from_item(error.response.get("Item"))) from None
        if code in _TRANSIENT_ERRORS:  # botocore already retried these
            count(MetricName.BUSY)
            raise Busy(f"DynamoDB answered {code}") from None
        raise


def conditional_put(item: dict[str, Any], condition: ConditionBase) -> None:
    _single_write("put_item", put(item, condition)["Put"])


def conditional_update(
    key: dict[str, str],
    *,
    set_values: dict[str, Any] | None = None,
    increments: dict[str, int] | None = None,
    remove: tuple = (),
    condition: ConditionBase | None,
    return_values: str = "ALL_NEW",
) -> dict[str, Any]:
    """Update one item if the condition holds; returns the item after the write (or what
    `return_values` asks for), raises ConditionFailed with the item as it was."""
    request = update(key, set_values=set_values, increments=increments, remove=remove, condition=condition)["Update"]
    request["ReturnValues"] = return_values
    return from_item(_single_write("update_item", request).get("Attributes")) or {}


def conditional_delete(key: dict[str, str], condition: ConditionBase) -> None:
    _single_write("delete_item", delete(key, condition)["Delete"])


def get_item(
    key: dict[str, str], *, consistent: bool = True, attributes: tuple[tuple[str, ...], ...] = ()
) -> dict[str, Any] | None:
    """The item, or only the attribute paths named in `attributes` (each a tuple of names)."""
    request: dict[str, Any] = {"TableName": table_name(), "Key": to_item(key), "ConsistentRead": consistent}
    if attributes:
        names: dict[str, str] = {}
        paths = []
        for index, path in enumerate(attributes):
            parts = [f"#p{index}_{depth}" for depth in range(len(path))]
            names.update(zip(parts, path, strict=True))
            paths.append(".".join(parts))
        request.update(ProjectionExpression=", ".join(paths), ExpressionAttributeNames=names)
    try:
        response = client().get_item(**request)
    except (BotocoreConnectionError, HTTPClientError) as error:
        raise Busy(f"DynamoDB did not answer: {type(error).__name__}") from None
    except ClientError as error:
        if error.response.get("Error", {}).get("Code", "") in _TRANSIENT_ERRORS:
            raise Busy("DynamoDB is throttling reads") from None
        raise
    return from_item(response.get("Item"))
