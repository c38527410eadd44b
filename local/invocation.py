"""Which function's handler is running in this thread, for handlers invoked inside this process.

Handlers invoked in-process (`local.in_process`, `make invoke`, the stream settler) share one process and
one DynamoDB client, so nothing tells their calls apart. Those paths set this around the handler call; the
table-access test reads it to attribute each DynamoDB call to the function whose IAM grant would have to
allow it. Production code never reads it, and the local HTTP server's environments (processes) need it not.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

current_function: ContextVar[str | None] = ContextVar("ddbguard_current_function", default=None)


@contextmanager
def running(function: str) -> Iterator[None]:
    """Calls made while the block runs belong to `function` (a route's operation, or `audit_locks`)."""
    token = current_function.set(function)
    try:
        yield
    finally:
        current_function.reset(token)
