"""Count the DynamoDB API calls ddbguard's client makes (botocore event hooks, no mocking)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

# Every call counts, the idempotency layer's too: its records are written by the writes themselves, so it makes
# no call of its own to leave out.


class CallCounter:
    def __init__(self) -> None:
        self.calls: list[str] = []
        self._lock = threading.Lock()

    def _record(self, model, **_: object) -> None:
        with self._lock:
            self.calls.append(model.name)

    def count(self, operation: str | None = None) -> int:
        return len(self.calls) if operation is None else self.calls.count(operation)


@contextmanager
def counting_calls(client) -> Iterator[CallCounter]:
    """Every call `client` sends while the block runs (retries by botocore count once)."""
    counter = CallCounter()
    events = client.meta.events
    events.register("before-call.dynamodb.*", counter._record, unique_id="ddbguard-call-counter")
    try:
        yield counter
    finally:
        events.unregister("before-call.dynamodb.*", unique_id="ddbguard-call-counter")
