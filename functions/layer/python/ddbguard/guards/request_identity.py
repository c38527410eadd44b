"""Who asked for what, under which idempotency key: the source of every replay-safe identifier."""

from __future__ import annotations

import hashlib
import uuid

from ddbguard.records import Record

__all__ = ["RequestIdentity"]

# Fixed namespace: the same request must map to the same token and ids forever.
_NAMESPACE = uuid.UUID("6b1f7f0e-4b53-5d0c-9a57-3f5d5c1c9e4a")


class RequestIdentity(Record):
    """caller `sub` + route (`METHOD /path/{param}`) + Idempotency-Key, and the request's fingerprint.

    The fingerprint is a hash of what the request asks (path parameters and body); the same key
    with another fingerprint is a reused key, not a retry. Built by keyword; equal when all four are.
    """

    __slots__ = ("caller", "fingerprint", "key", "route")

    def __init__(self, *, caller: str, route: str, key: str, fingerprint: str) -> None:
        self.caller = caller
        self.route = route
        self.key = key
        self.fingerprint = fingerprint

    @property
    def digest(self) -> str:
        material = "\x1f".join((self.caller, self.route, self.key)).encode()
        return hashlib.sha256(material).hexdigest()

    def derived_id(self, purpose: str) -> str:
        """A deterministic id for something this request creates (an account, an order, a hold)."""
        return str(uuid.uuid5(_NAMESPACE, f"{self.digest}/{purpose}"))
