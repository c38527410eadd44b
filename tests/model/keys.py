"""Idempotency-Keys: what a key remembers, for whom, for how long.

- A key belongs to its caller and its route: another caller's identical key is another request.
- A request that succeeded is remembered with its first answer: the same key with the same request (path and
  body; If-Match is not part of it) gets that answer again, marked replayed, and changes nothing; with another
  request it is 422 `idempotency_key_reused`.
- A refusal is not remembered: the same key may be sent again and is decided afresh.
- A money movement's key is remembered for good; any other for 24 hours, after which it is a new key, except
  that the id a keyed create made stays taken (the key derives it), so a create with it again is 409.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.model.world import Answer, KeyRecord, KeyScope, World, refused

KEY_LIFETIME_S = 24 * 3600


def keyed(
    world: World, scope: KeyScope | None, request: Any, decide: Callable[[], Answer], *, kept_for_good: bool = False
) -> Answer:
    """`decide()`'s answer, unless the key already answered: then its first answer (same request) or 422."""
    if scope is None:
        return decide()
    record = world.live_key(scope)
    if record is not None:
        if record.request != request:
            return refused(422, "idempotency_key_reused")
        return Answer(record.status, replayed=True, first_body=record.body)
    answer = decide()
    if answer.ok:
        expires_at = None if kept_for_good else world.now_s + KEY_LIFETIME_S
        world.keys[scope] = KeyRecord(request, answer.status, None, expires_at)
        world.awaiting_body = scope
    return answer


def remember_body(world: World, body: Any) -> None:
    """The body the API gave with the answer a key just recorded: what a replay must give again."""
    if world.awaiting_body is not None:
        world.keys[world.awaiting_body].body = body
        world.awaiting_body = None
