"""The table stream's settlement, on demand: tests settle every new entry before they look at raw items.

In the cloud (and under `make run`) the settlement follows the stream in the background; tests
drain it at the moment they assert, so what they see does not depend on timing.
"""

from __future__ import annotations

from local.stream_settler import StreamSettler

_settler: StreamSettler | None = None


def use(settler: StreamSettler) -> None:
    global _settler
    _settler = settler


def settle_all() -> int:
    """Settle every entry written so far; returns how many stream records were handed over."""
    assert _settler is not None, "the dynamodb_local fixture sets up the settlement"
    return _settler.drain()
