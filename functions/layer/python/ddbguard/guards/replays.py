"""Request markers: the idempotency record of a write is written by the write itself.

A write that carries an Idempotency-Key puts a marker item (`REQ#<digest>` / `MARKER`, the digest
of caller + route + key) with `attribute_not_exists` in its own TransactWriteItems (plan slot MARKER),
every route alike: a keyed PATCH is a transaction too, never a single-item update.
The marker holds the request's fingerprint and the response to give again. A retry of the same
request (a lost response, a client retry, a concurrent twin) fails at the marker, and the failed
write's ALL_OLD item is the first response: no separate record round trips, and never a second
effect. The same key with another fingerprint is 422, whatever happened to the resource since.

A marker of a write that moves no money expires with its key (24 h, `expiration`). DynamoDB deletes
expired items only some time later, so an expired marker is treated as gone: its put succeeds over it,
and a read ignores it. A money movement's marker never expires.
"""

from __future__ import annotations

import contextvars
from collections.abc import Mapping
from typing import Any, TypeVar

from boto3.dynamodb.conditions import Attr, ConditionBase

from ddbguard.errors import IdempotencyKeyReused
from ddbguard.guards.request_identity import RequestIdentity
from ddbguard.observability import MetricName, count
from ddbguard.store import clock, keys, reads, writes
from ddbguard.store.attribute_names import (
    AFTER,
    CALLER_SUB,
    CREATED_AT,
    CREATED_BY_REQUEST,
    ENTRIES,
    EXPIRATION,
    FINGERPRINT,
    KIND,
    PK,
    REQUEST_FINGERPRINT,
    RESPONSE,
    ROUTE,
)
from ddbguard.store.ids import now_iso
from ddbguard.store.items import Entry, RequestMarker, RequestStamp
from ddbguard.store.plan import PlanCancelled, TransactionPlan
from ddbguard.store.shapes import Action, Key

__all__ = [
    "KEY_LIFETIME_S",
    "MARKER",
    "Response",
    "begin_request",
    "commit_once",
    "first_response",
    "is_expired",
    "led_by_marker",
    "marker_item",
    "marker_put",
    "read_with_marker",
    "request_stamp",
    "was_replayed",
]

MARKER = "request marker"  # the marker's slot in a TransactionPlan
# How long an Idempotency-Key is remembered for writes that do not move money (the IETF draft leaves it
# to the server; 24 h as Stripe).
KEY_LIFETIME_S = 24 * 3600

# The reply a write hands back, kept in its marker and given again to a retry (a retry's comes from the table).
Response = TypeVar("Response")

# Set when the current request was answered from an earlier attempt's record (the edge says so
# in `Idempotent-Replayed`): request-scoped, reset by the edge as each invocation begins.
_replayed: contextvars.ContextVar[bool] = contextvars.ContextVar("ddbguard_replayed", default=False)


def begin_request() -> None:
    _replayed.set(False)


def was_replayed() -> bool:
    return _replayed.get()


def _replay() -> None:
    count(MetricName.REPLAY)
    _replayed.set(True)


def marker_item(identity: RequestIdentity, response: object, *, entries: list[Entry] | None = None) -> RequestMarker:
    """The marker. A plain one expires with the Idempotency-Key (24 h); a money movement's (`entries`: what it
    wrote, their values settled into `after` later) is kept, so a late retry can never move money twice."""
    marker: RequestMarker = {
        **keys.request_marker_key(identity.digest),
        KIND: "request",
        ROUTE: identity.route,
        CALLER_SUB: identity.caller,
        FINGERPRINT: identity.fingerprint,
        RESPONSE: response,
        CREATED_AT: now_iso(),
    }
    if entries is None:
        marker[EXPIRATION] = int(clock.now_s()) + KEY_LIFETIME_S
    else:
        marker[ENTRIES], marker[AFTER] = entries, {}
    return marker


def is_expired(marker: Mapping[str, object] | None) -> bool:
    """The marker's key lifetime has passed (DynamoDB may not have deleted it yet)."""
    expiration = marker.get(EXPIRATION) if marker is not None else None
    return isinstance(expiration, int | float) and expiration <= clock.now_s()


def _absent_or_expired() -> ConditionBase:
    return Attr(PK).not_exists() | Attr(EXPIRATION).lte(int(clock.now_s()))


def marker_put(identity: RequestIdentity, response: object, *, entries: list[Entry] | None = None) -> Action:
    """The marker as one of the write's actions: it exists only if the write committed. It replaces a marker
    whose key expired (the same key, a new request)."""
    return writes.put(marker_item(identity, response, entries=entries), _absent_or_expired())


def led_by_marker(plan: TransactionPlan, identity: RequestIdentity | None, response: object) -> TransactionPlan:
    """`plan` led by the request's marker (slot MARKER) when it has an Idempotency-Key."""
    return plan if identity is None else plan.prepend(MARKER, marker_put(identity, response))


def commit_once(plan: TransactionPlan, identity: RequestIdentity | None, response: Response) -> tuple[bool, Response]:
    """Commit `plan` led by the request's marker (slot MARKER): (False, `response`) once committed, (True, the
    first response) when this request already wrote. Any other refusal raises PlanCancelled."""
    try:
        led_by_marker(plan, identity, response).commit()
    except PlanCancelled as cancelled:
        if identity is not None and cancelled.failed(MARKER):
            return True, first_response(cancelled.item(MARKER), identity)
        raise
    return False, response


def first_response(marker: Mapping[str, object] | None, identity: RequestIdentity) -> Any:
    """The response stored by the request's first attempt; 422 when the key came with another request."""
    if marker is None or marker.get(FINGERPRINT) != identity.fingerprint:
        raise IdempotencyKeyReused()
    _replay()
    return marker.get(RESPONSE)


def read_with_marker(
    key: Key, identity: RequestIdentity, kind: type[reads.Kind]
) -> tuple[reads.Kind | None, RequestMarker | None]:
    """(the item, as the view `kind` of what `key` names; this request's marker) in one BatchGetItem: for writes
    that must read before writing, so that a retry of one that went through answers from its marker with that
    single call."""
    marker_key = keys.request_marker_key(identity.digest)
    found = {item[PK]: item for item in reads.get_items([key, marker_key])}
    marker = found.get(marker_key[PK])
    return (
        reads.as_kind(kind, found.get(key[PK])),
        None if is_expired(marker) else reads.as_kind(RequestMarker, marker),
    )


def request_stamp(identity: RequestIdentity | None) -> RequestStamp:
    """Attributes a create adds: which request made the item (kept for audits and support)."""
    if identity is None:
        return {}
    return {CREATED_BY_REQUEST: identity.digest, REQUEST_FINGERPRINT: identity.fingerprint}
