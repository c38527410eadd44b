"""Identifiers: random ones for new things, time-sortable ones for ledger entries."""

from __future__ import annotations

import os
import time
import uuid
from datetime import UTC, datetime

__all__ = ["new_id", "now_iso", "time_of_sortable_id", "time_sortable_id"]

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def new_id() -> str:
    return str(uuid.uuid4())


def time_sortable_id(now_ms: int | None = None) -> str:
    """A ULID: 48-bit millisecond time + 80 random bits, Crockford base32, sorts by time."""
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    value = (ms << 80) | int.from_bytes(os.urandom(10), "big")
    return "".join(_CROCKFORD[(value >> shift) & 31] for shift in range(125, -1, -5))


def time_of_sortable_id(sortable_id: str) -> float:
    """The epoch seconds a ULID from `time_sortable_id` was made at (its first 10 characters)."""
    ms = 0
    for character in sortable_id[:10]:
        ms = ms * 32 + _CROCKFORD.index(character)
    return ms / 1000


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
