"""The table's stream (not an API route): settle the balances that took new ledger entries, off the critical path.

Each balance named by a new entry has every value of its `pending` map copied onto its entries and request markers
and dropped from `pending` (`ddbguard.guards.settlement`), once per balance and batch however many of its entries
the batch holds. Records are processed with Powertools batch processing; a record whose balance failed to settle
is reported back (partial batch response), so the event source mapping retries from it. A batch that keeps
failing goes to the on-failure queue (infra/settlement.py), and the sweeper settles its balances anyway.
"""

from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord

from ddbguard.guards.settlement import account_of_new_entry, settle_balance
from ddbguard.observability import MetricName, count, logger, metrics, observe_seconds, tracer

processor = BatchProcessor(event_type=EventType.DynamoDBStreams)


class BatchSettlement:
    """One batch's settlement: each balance settled once, however many of its records the batch carries."""

    def __init__(self) -> None:
        self.settled: set[str] = set()

    def __call__(self, record: DynamoDBRecord) -> None:
        key = record.dynamodb.keys if record.dynamodb else None
        account_id = account_of_new_entry(dict(key)) if key else None
        if account_id is None or account_id in self.settled:
            return
        result = settle_balance(account_id)  # raises: this record fails, the balance's next record tries again
        self.settled.add(account_id)
        count(MetricName.SETTLED_ENTRIES, result.entries)
        observe_seconds(MetricName.OLDEST_UNSETTLED_AGE, result.oldest_age_s)


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler(capture_response=False)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        return dict(
            process_partial_response(
                event=event, record_handler=BatchSettlement(), processor=processor, context=context
            )
        )
    finally:
        if metrics.metric_set:
            metrics.flush_metrics()
