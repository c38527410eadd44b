"""Is this a replay of my own create? One answer for accounts, ledgers, holds and orders.

A create that carries an Idempotency-Key derives its ids (or at least its stamp) from the
request, and stamps the item with the request's digest and fingerprint. When the create's
`attribute_not_exists` guard fails, the failed write's ALL_OLD item tells a retry of the same
request (answer it again) from the same key reused for another request (422) and from an item
somebody else made (a real conflict).
"""

from __future__ import annotations

from ddbguard.errors import IdempotencyKeyReused
from ddbguard.guards.request_identity import RequestIdentity
from ddbguard.observability import MetricName, count
from ddbguard.store.schema import CREATED_BY_REQUEST, REQUEST_FINGERPRINT
from ddbguard.store.shapes import Item


def request_stamp(identity: RequestIdentity | None) -> Item:
    """The attributes a create adds so that its own retry can recognise the item later."""
    if identity is None:
        return {}
    return {CREATED_BY_REQUEST: identity.digest, REQUEST_FINGERPRINT: identity.fingerprint}


def is_own_create(stored: Item | None, identity: RequestIdentity | None) -> bool:
    """True when `stored` was created by this very request (a retry after a lost response).

    Raises IdempotencyKeyReused when it was created under this key for a different request;
    False when it is somebody else's (or there is no key to compare).
    """
    if stored is None or identity is None or stored.get(CREATED_BY_REQUEST) != identity.digest:
        return False
    if stored.get(REQUEST_FINGERPRINT) != identity.fingerprint:
        raise IdempotencyKeyReused()
    count(MetricName.REPLAY)
    return True
