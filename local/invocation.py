"""Which function's handler is running in this thread: the local stand-in for "one Lambda per route".

Locally every handler shares one process and one DynamoDB client, so nothing tells their calls
apart. The local invoke paths (server, `make invoke`, tests) set this around the handler call;
the table-access test reads it to attribute each DynamoDB call to the function whose IAM grant
would have to allow it. Production code never reads it.
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
