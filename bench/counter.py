"""Count the DynamoDB calls a boto3 client sends (botocore event hooks), keeping each call's parameters.

Calls are counted at `before-call` (botocore's own retries count once); `after-call` says whether the
call was refused (a failed condition or a cancelled transaction). bench/capacity.py turns the kept
parameters into write units.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

_ID = "bench-counter"


@dataclass
class Call:
    operation: str
    params: dict[str, Any]
    refused: bool = False


@dataclass
class Tally:
    made: list[Call] = field(default_factory=list)
    write_units: float = 0.0  # filled in by bench.capacity
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def calls(self) -> list[str]:
        return [call.operation for call in self.made]

    def sequence(self) -> str:
        return " + ".join(self.calls) if self.calls else "none"


@contextmanager
def counting(*clients: Any) -> Iterator[Tally]:
    """Every call the `clients` make inside the block, in order."""
    tally = Tally()
    current = threading.local()  # the call this thread is making

    def remember(params: dict[str, Any], model: Any, **_: object) -> None:
        current.call = Call(model.name, copy.deepcopy(params))

    def record(model: Any, **_: object) -> None:
        with tally._lock:
            tally.made.append(current.call)

    def answered(parsed: dict[str, Any], model: Any, **_: object) -> None:
        current.call.refused = "Error" in parsed

    hooks = [
        ("provide-client-params.dynamodb.*", remember),
        ("before-call.dynamodb.*", record),
        ("after-call.dynamodb.*", answered),
    ]
    for client in clients:
        for name, hook in hooks:
            client.meta.events.register(name, hook, unique_id=f"{_ID}-{name}")
    try:
        yield tally
    finally:
        for client in clients:
            for name, _hook in hooks:
                client.meta.events.unregister(name, unique_id=f"{_ID}-{name}")
