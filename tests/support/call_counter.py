"""Count the DynamoDB API calls ddbguard's client makes (botocore event hooks, no mocking)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

# (operation name, the request's JSON parameters) -> True when the call should not be counted
CallFilter = Callable[[str, dict[str, Any]], bool]


def idempotency_record_call(operation: str, params: dict[str, Any]) -> bool:
    """A call of the Powertools idempotency layer (its records live under `IDEMPOTENCY#...` keys)."""
    key = params.get("Key") or params.get("Item") or {}
    partition = (key.get("PK") or {}).get("S", "")
    return partition.startswith("IDEMPOTENCY#")


class CallCounter:
    def __init__(self, ignore: CallFilter | None = None) -> None:
        self.calls: list[str] = []
        self._lock = threading.Lock()
        self._ignore = ignore

    def _record(self, model, params: dict[str, Any] | None = None, **_: object) -> None:
        if self._ignore is not None and self._ignore(model.name, _request_parameters(params)):
            return
        with self._lock:
            self.calls.append(model.name)

    def count(self, operation: str | None = None) -> int:
        return len(self.calls) if operation is None else self.calls.count(operation)


def _request_parameters(params: dict[str, Any] | None) -> dict[str, Any]:
    # before-call sees the serialised request; DynamoDB's protocol is JSON.
    body = (params or {}).get("body") or b"{}"
    try:
        decoded = json.loads(body)
    except ValueError:
        return {}
    return decoded if isinstance(decoded, dict) else {}


@contextmanager
def counting_calls(client, ignore: CallFilter | None = None) -> Iterator[CallCounter]:
    """Every call `client` sends while the block runs (retries by botocore count once),
    except those `ignore` says to leave out (e.g. `idempotency_record_call`)."""
    counter = CallCounter(ignore)
    events = client.meta.events
    events.register("before-call.dynamodb.*", counter._record, unique_id="ddbguard-call-counter")
    try:
        yield counter
    finally:
        events.unregister("before-call.dynamodb.*", unique_id="ddbguard-call-counter")
