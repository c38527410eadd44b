"""The time the layer decides by: when an Idempotency-Key's record expires, and whether it has.

One function, read through the module (`clock.now_s()`), so a test can move time past a key's lifetime without
touching the process's clock (botocore signs requests with that one).
"""

from __future__ import annotations

import time

__all__ = ["now_s"]


def now_s() -> float:
    """Seconds since the epoch."""
    return time.time()
