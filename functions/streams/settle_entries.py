"""The table's stream (not an API route): settle new ledger entries off the critical path.

Each new entry gets its exact `availableCentsAfter` copied from its balance's `pending` map, its
request marker completed, and the `pending` value dropped (`ddbguard.guards.settlement`). Records
are processed with Powertools batch processing; a record that fails is reported back alone
(partial batch response), so the event source mapping retries it without redoing the others.
"""

from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord

from ddbguard.guards.settlement import settle_new_entry
from ddbguard.observability import logger, metrics, tracer

processor = BatchProcessor(event_type=EventType.DynamoDBStreams)


def settle_record(record: DynamoDBRecord) -> None:
    key = record.dynamodb.keys if record.dynamodb else None
    if key:
        settle_new_entry(dict(key))


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler(capture_response=False)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        return dict(
            process_partial_response(event=event, record_handler=settle_record, processor=processor, context=context)
        )
    finally:
        if metrics.metric_set:
            metrics.flush_metrics()
