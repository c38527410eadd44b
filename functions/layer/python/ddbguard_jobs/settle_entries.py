"""The table's stream (not an API route): settle the balances that took new ledger entries, off the critical path.

Each balance named by a new entry has every value of its `pending` map copied onto its entries and request markers
and dropped from `pending` (`ddbguard.guards.settlement`), once per balance and batch however many of its entries
the batch holds. A record whose balance failed to settle is reported back (a partial batch response, by sequence
number), so the event source mapping retries from it; when every record of a batch fails, the invocation fails and
the whole batch is retried. A batch that keeps failing goes to the on-failure queue (its stack's: infra/settlement.py,
or `ddbguard_cdk.GuardedTable`), and the sweeper settles its balances anyway.

The loop is written here, not with Powertools' batch processing: that package imports every event data class and
asyncio on a cold start (about 70 modules) for what is a dozen lines
(docs/decisions/052-cold-start-what-a-caller-waits-for-against.md).
"""

from collections.abc import Mapping, Sequence
from typing import Any

from boto3.dynamodb.types import TypeDeserializer

from ddbguard.guards.settlement import account_of_new_entry, settle_balance
from ddbguard.observability import MetricName, count, logger, metrics, observe_seconds, tracer

__all__ = ["AllRecordsFailed", "BatchSettlement", "handler", "settle_records"]

_ATTRIBUTE_VALUE = TypeDeserializer()


class AllRecordsFailed(Exception):
    """No record of the batch settled: the invocation fails, so the event source mapping retries the batch."""


class BatchSettlement:
    """One batch's settlement: each balance settled once, however many of its records the batch carries."""

    def __init__(self) -> None:
        self.settled: set[str] = set()

    def __call__(self, keys: Mapping[str, Any] | None) -> None:
        key = {name: _ATTRIBUTE_VALUE.deserialize(value) for name, value in keys.items()} if keys else None
        account_id = account_of_new_entry(key) if key else None
        if account_id is None or account_id in self.settled:
            return
        result = settle_balance(account_id)  # raises: this record fails, the balance's next record tries again
        self.settled.add(account_id)
        count(MetricName.SETTLED_ENTRIES, result.entries)
        observe_seconds(MetricName.OLDEST_UNSETTLED_AGE, result.oldest_age_s)


def settle_records(records: Sequence[Mapping[str, Any]]) -> dict[str, list[dict[str, str]]]:
    """Every record through one `BatchSettlement`; the failed ones by sequence number (`batchItemFailures`)."""
    settlement = BatchSettlement()
    failures: list[dict[str, str]] = []
    for record in records:
        change = record.get("dynamodb") or {}
        try:
            settlement(change.get("Keys"))
        except Exception:  # any failure: the record is reported, the event source mapping retries from it
            logger.warning("a record's balance did not settle; it is reported for retry", exc_info=True)
            failures.append({"itemIdentifier": change["SequenceNumber"]})
    if failures and len(failures) == len(records):
        raise AllRecordsFailed(f"none of the batch's {len(records)} records settled")
    return {"batchItemFailures": failures}


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler(capture_response=False)
def handler(event: Mapping[str, Any], context: Any) -> Mapping[str, Any]:
    try:
        return settle_records(event.get("Records") or [])
    finally:
        if metrics.metric_set:
            metrics.flush_metrics()
