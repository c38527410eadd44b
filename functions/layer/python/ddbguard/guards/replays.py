"""Request markers: the idempotency record of a write is written by the write itself.

A write that carries an Idempotency-Key puts a marker item (`REQ#<digest>` / `MARKER`, the digest
of caller + route + key) with `attribute_not_exists` in its own TransactWriteItems (plan slot MARKER).
The marker holds the request's fingerprint and the response to give again. A retry of the same
request (a lost response, a client retry, a concurrent twin) fails at the marker, and the failed
write's ALL_OLD item is the first response: no read before the write, no separate record round
trips, and never a second effect. The same key with another fingerprint is 422.

A single-item update (UpdateItem) cannot carry a second item, so it stamps the request on the
item instead (`stamp`): a retry finds its own stamp in the ALL_OLD item of its failed guard.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Mapping
from typing import Any, TypeVar

from boto3.dynamodb.conditions import Attr, ConditionBase

from ddbguard.errors import IdempotencyKeyReused
from ddbguard.guards.request_identity import RequestIdentity
from ddbguard.observability import MetricName, count
from ddbguard.store import keys, reads, writes
from ddbguard.store.ids import now_iso
from ddbguard.store.items import Entry, RequestMarker, RequestStamp, UpdateStamp
from ddbguard.store.plan import PlanCancelled, TransactionPlan
from ddbguard.store.schema import (
    CREATED_AT,
    CREATED_BY_REQUEST,
    KIND,
    LAST_REQUEST,
    LAST_REQUEST_FINGERPRINT,
    MARKER_CALLER,
    MARKER_ENTRIES,
    MARKER_FINGERPRINT,
    MARKER_RESPONSE,
    MARKER_ROUTE,
    MARKER_SETTLED,
    PARTITION_KEY,
    REQUEST_FINGERPRINT,
    TTL_ATTRIBUTE,
    VERSION,
)
from ddbguard.store.shapes import Action, Key

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
        MARKER_ROUTE: identity.route,
        MARKER_CALLER: identity.caller,
        MARKER_FINGERPRINT: identity.fingerprint,
        MARKER_RESPONSE: response,
        CREATED_AT: now_iso(),
    }
    if entries is None:
        marker[TTL_ATTRIBUTE] = int(time.time()) + KEY_LIFETIME_S
    else:
        marker[MARKER_ENTRIES], marker[MARKER_SETTLED] = entries, {}
    return marker


def marker_put(identity: RequestIdentity, response: object, *, entries: list[Entry] | None = None) -> Action:
    """The marker as one of the write's actions: it exists only if the write committed."""
    return writes.put(marker_item(identity, response, entries=entries), Attr(PARTITION_KEY).not_exists())


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
    if marker is None or marker.get(MARKER_FINGERPRINT) != identity.fingerprint:
        raise IdempotencyKeyReused()
    _replay()
    return marker.get(MARKER_RESPONSE)


def read_with_marker(
    key: Key, identity: RequestIdentity, kind: type[reads.Kind]
) -> tuple[reads.Kind | None, RequestMarker | None]:
    """(the item, as the view `kind` of what `key` names; this request's marker) in one BatchGetItem: for writes
    that must read before writing, so that a retry of one that went through answers from its marker with that
    single call."""
    marker_key = keys.request_marker_key(identity.digest)
    found = {item[PARTITION_KEY]: item for item in reads.get_items([key, marker_key])}
    return (
        reads.as_kind(kind, found.get(key[PARTITION_KEY])),
        reads.as_kind(RequestMarker, found.get(marker_key[PARTITION_KEY])),
    )


def request_stamp(identity: RequestIdentity | None) -> RequestStamp:
    """Attributes a create adds: which request made the item (kept for audits and support)."""
    if identity is None:
        return {}
    return {CREATED_BY_REQUEST: identity.digest, REQUEST_FINGERPRINT: identity.fingerprint}


def update_stamp(identity: RequestIdentity | None) -> UpdateStamp:
    """SET values a single-item update adds, so its own retry recognises the change it made."""
    if identity is None:
        return {}
    return {LAST_REQUEST: identity.digest, LAST_REQUEST_FINGERPRINT: identity.fingerprint}


def not_stamped_by(identity: RequestIdentity | None) -> ConditionBase | None:
    """A single-item update's extra guard: the item does not carry this request's stamp. Without it, the same key
    with another body sent with the current If-Match would apply on an environment whose cache never saw the key;
    with it, the update fails and its ALL_OLD stamp tells a retry (replay) from a reused key (422)."""
    if identity is None:
        return None
    return Attr(LAST_REQUEST).not_exists() | Attr(LAST_REQUEST).ne(identity.digest)


def is_own_update(stored: Mapping[str, object] | None, identity: RequestIdentity | None, expected: int) -> bool:
    """True when `stored` is what this request's earlier attempt made of it: one version on, or at the version the
    client now expects (it sent the If-Match the first attempt answered). Another fingerprint is a reused key."""
    if stored is None or identity is None or stored.get(LAST_REQUEST) != identity.digest:
        return False
    if stored.get(LAST_REQUEST_FINGERPRINT) != identity.fingerprint:
        raise IdempotencyKeyReused()
    if stored.get(VERSION) not in (expected, expected + 1):
        return False  # changed again since: the first response is no longer the item
    _replay()
    return True
