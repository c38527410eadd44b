"""The table's stream, locally: read DynamoDB Local's stream and hand its records to the settlement handler.

In the cloud an event source mapping invokes `functions/streams/settle_entries.py` with batches of
stream records; here a poller reads the same records from DynamoDB Local's stream API and invokes
the same handler with the same event shape. `make run` runs it in the background; tests call
`drain()` when they want every entry settled now.
"""

from __future__ import annotations

import threading
from typing import Any

import boto3
from botocore.config import Config

from local.invocation import running
from local.lambda_context import LambdaContext


def streams_client(endpoint: str) -> Any:
    return boto3.client(
        "dynamodbstreams",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
        config=Config(connect_timeout=5, read_timeout=10, retries={"max_attempts": 3}),
    )


def _is_new_entry(record: dict[str, Any]) -> bool:
    """What the stack's event source mapping filter lets through: INSERTs of `TXN#` items."""
    sort = ((record.get("dynamodb") or {}).get("Keys") or {}).get("SK", {}).get("S", "")
    return record.get("eventName") == "INSERT" and sort.startswith("TXN#")


class StreamSettler:
    """Follows every shard of the table's stream from where it left off."""

    def __init__(self, endpoint: str, table: str, dynamodb_client: Any):
        self._streams = streams_client(endpoint)
        self._table = table
        self._dynamodb = dynamodb_client
        self._arn: str | None = None
        self._positions: dict[str, str] = {}  # shard id -> last sequence number handed over
        self._lock = threading.Lock()

    def _stream_arn(self) -> str:
        # The table's stream does not change while we follow it: ask once, not on every drain.
        if self._arn is None:
            self._arn = str(self._dynamodb.describe_table(TableName=self._table)["Table"]["LatestStreamArn"])
        return self._arn

    def _shard_records(self, arn: str, shard_id: str) -> tuple[list[dict[str, Any]], str | None]:
        """The shard's new ledger entries after the last record handed over (as the stack's filter passes
        them), and the sequence number of the last record read."""
        after = self._positions.get(shard_id)
        start = (
            {"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": after}
            if after
            else {"ShardIteratorType": "TRIM_HORIZON"}
        )
        iterator = self._streams.get_shard_iterator(StreamArn=arn, ShardId=shard_id, **start)["ShardIterator"]
        found: list[dict[str, Any]] = []
        last = None
        while iterator:
            page = self._streams.get_records(ShardIterator=iterator, Limit=1000)
            records = page.get("Records", [])
            if not records:
                break
            found += [{**record, "eventSourceARN": arn} for record in records if _is_new_entry(record)]
            last = records[-1]["dynamodb"]["SequenceNumber"]
            iterator = page.get("NextShardIterator")
        return found, last

    def drain(self) -> int:
        """Hand every new entry not handed over yet to the settlement handler; returns how many.

        A record the handler reports as failed (partial batch response) is read again next time,
        with every record after it, as an event source mapping would.
        """
        from streams.settle_entries import handler

        with self._lock:
            arn = self._stream_arn()
            handed = 0
            for shard in self._streams.describe_stream(StreamArn=arn)["StreamDescription"].get("Shards", []):
                shard_id = shard["ShardId"]
                records, last = self._shard_records(arn, shard_id)
                failed: set[str] = set()
                if records:
                    with running("settle_entries"):
                        reply = handler({"Records": records}, LambdaContext(function_name="ddbguard-settle_entries"))
                    failed = {item["itemIdentifier"] for item in reply.get("batchItemFailures", [])}
                first_failed = next(
                    (i for i, record in enumerate(records) if record["dynamodb"]["SequenceNumber"] in failed), None
                )
                if first_failed is None:
                    if last is not None:
                        self._positions[shard_id] = last
                    handed += len(records)
                elif first_failed > 0:  # resume right after the last record that went through
                    self._positions[shard_id] = records[first_failed - 1]["dynamodb"]["SequenceNumber"]
                    handed += first_failed
            return handed

    def run(self, stop: threading.Event, interval_s: float = 0.2) -> None:
        while not stop.wait(interval_s):
            try:
                self.drain()
            except Exception as error:  # keep following the stream: a failed batch is read again
                print(f"ddbguard: stream settlement failed: {error!r}")
