"""The one transient-error policy: what counts as "the store was busy", who retries it, when it becomes Busy.

- Every single call (GetItem, Query, Scan, PutItem, UpdateItem, DeleteItem) is retried by
  botocore itself in "standard" mode (`CLIENT_RETRIES`): throttling, 5xx and connection errors.
  When botocore gives up, the call raises Busy: a read or a refused write changed nothing; a write
  whose connection failed has an unknown outcome (`outcome_unknown`), which the client settles by
  retrying with its Idempotency-Key.
- A transaction is also retried by ddbguard (`TRANSACTION_ATTEMPTS` in all) when its cancellation
  reasons or its error code are transient (TransactionConflict, throttling): botocore does not retry a
  cancellation, and repeating one is safe: a cancelled transaction wrote nothing.
- Everything else is permanent: a cancellation reason that is neither a failed condition nor
  transient (ValidationError: the item would pass 400 KB, ItemCollectionSizeLimitExceeded, ...)
  can never succeed on a retry. It raises PermanentStoreError at once, with a log line and a
  metric; the edge answers it 500 `internal_error`, since it is the service's fault, not the client's.
- Every pause is the same full-jitter backoff, so racing writers spread out.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Final

from botocore.exceptions import ClientError, HTTPClientError
from botocore.exceptions import ConnectionError as BotocoreConnectionError

from ddbguard.errors import Busy
from ddbguard.observability import MetricName, count, logger

if TYPE_CHECKING:  # the stubs' name for botocore's retries option
    from botocore.config import _RetryDict

__all__ = [
    "BACKOFF_BASE_S",
    "BACKOFF_CAP_S",
    "CLIENT_RETRIES",
    "CONNECTION_ERRORS",
    "TRANSACTION_ATTEMPTS",
    "TRANSIENT_CODES",
    "PermanentStoreError",
    "backoff",
    "busy_when_transient",
    "error_code",
    "gave_up",
    "is_transient",
    "permanent",
]

# botocore's own retries of one call (standard mode: throttling, 5xx, connection errors).
CLIENT_RETRIES: Final[_RetryDict] = {"mode": "standard", "max_attempts": 3}
# ddbguard's retries of a transaction cancelled for a transient reason.
TRANSACTION_ATTEMPTS = 6
BACKOFF_BASE_S = 0.02
BACKOFF_CAP_S = 0.4

# Error codes and cancellation reasons that say "the store was busy", never "your request was wrong".
# Service 5xx codes are here too: AWS documents them as safe to retry.
TRANSIENT_CODES = frozenset(
    {
        "TransactionConflict",
        "ThrottlingError",  # the cancellation reason's spelling of throttling
        "TransactionInProgressException",
        "ThrottlingException",
        "ProvisionedThroughputExceededException",
        "RequestLimitExceeded",
        "InternalServerError",
        "ServiceUnavailable",
    }
)
CONNECTION_ERRORS: tuple[type[Exception], ...] = (BotocoreConnectionError, HTTPClientError)


class PermanentStoreError(Exception):
    """DynamoDB refused a write for a reason no retry can change; the edge answers 500 `internal_error`."""

    def __init__(self, operation: str, reasons: list[str]):
        super().__init__(f"{operation} refused permanently: {', '.join(reasons)}")
        self.operation = operation
        self.reasons = reasons


def permanent(operation: str, reasons: list[str]) -> PermanentStoreError:
    """Count and log a permanent refusal, and the error to raise for it."""
    count(MetricName.PERMANENT_STORE_ERROR)
    logger.error("permanent store error, not retried", extra={"operation": operation, "reasons": reasons})
    return PermanentStoreError(operation, reasons)


def error_code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


def is_transient(code: str | None) -> bool:
    return code in TRANSIENT_CODES


def backoff(attempt: int, *, base_s: float | None = None, cap_s: float | None = None) -> None:
    """Full jitter: sleep a random time up to min(cap, base * 2**attempt) (defaults read at call time)."""
    base = BACKOFF_BASE_S if base_s is None else base_s
    cap = BACKOFF_CAP_S if cap_s is None else cap_s
    time.sleep(random.uniform(0, min(cap, base * 2**attempt)))


def gave_up(reason: str) -> Busy:
    count(MetricName.BUSY)
    return Busy(reason)


@contextmanager
def busy_when_transient(*, writes: bool) -> Iterator[None]:
    """Turn what botocore could not retry away into Busy; everything else propagates."""
    try:
        yield
    except CONNECTION_ERRORS as error:
        # botocore re-sent the request and never heard back: for a write the outcome is unknown.
        count(MetricName.BUSY)
        raise Busy(f"DynamoDB did not answer: {type(error).__name__}", outcome_unknown=writes) from None
    except ClientError as error:
        code = error_code(error)
        if is_transient(code):
            raise gave_up(f"DynamoDB answered {code}") from None
        raise
