"""Re-read, re-decide, re-write: the bounded retry for a server-side write that lost a version race.

Only the writer's own decision is retried, never the stale write: every attempt reads the
current state again and decides afresh from it (the state may now call for a refusal). Attempts
are capped and spaced with full jitter; a writer that keeps losing answers Busy (nothing written).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ddbguard.errors import Busy
from ddbguard.observability import MetricName, count, logger
from ddbguard.store.transient import backoff

__all__ = ["MAX_ATTEMPTS", "Result", "State", "reread_and_retry"]

State = TypeVar("State")
Result = TypeVar("Result")

MAX_ATTEMPTS = 5
# Version races settle faster than a busy store: a shorter pause than transient retries.
_BACKOFF_BASE_S = 0.01
_BACKOFF_CAP_S = 0.2


def reread_and_retry(
    read: Callable[[], State],
    decide_and_write: Callable[[State], Result],
    lost_race: Callable[[Exception], bool],
    *,
    max_attempts: int = MAX_ATTEMPTS,
) -> Result:
    """`decide_and_write(read())`, again from a fresh read each time `lost_race(error)` says so.

    Any other exception propagates at once. After `max_attempts` lost races: Busy.
    """
    for attempt in range(max_attempts):
        state = read()
        try:
            return decide_and_write(state)
        except Exception as error:
            if not lost_race(error):
                raise
        count(MetricName.VERSION_CONFLICT)
        logger.info("lost a version race, re-reading", extra={"attempt": attempt + 1})
        if attempt + 1 < max_attempts:
            backoff(attempt, base_s=_BACKOFF_BASE_S, cap_s=_BACKOFF_CAP_S)
    raise Busy(f"the item kept changing during {max_attempts} attempts")
