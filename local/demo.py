"""The demo world: who owns what in a fresh `make run`, with ids every sample event in events/ names.

`make run` seeds it (and `make seed` creates it again, idempotently) through the real handlers,
exactly as HTTP requests would: every step carries a fixed Idempotency-Key, so seeding twice
answers the first results and changes nothing. Ids are deterministic without being stored:
an account, hold or order created under an Idempotency-Key gets an id derived from caller +
route + key (`RequestIdentity.derived_id`), so this module computes them the way the service does.

Owner `alice` (the default `make token` subject) has account `alice@example.com` with an open
ledger holding 500.00, two open holds of 15.00 (one to capture, one to release) and three
PENDING orders (to pay, to cancel, to delete). Owner `bob` has account `bob@example.com` with
an open ledger, the recipient of the sample transfer. The sample `create_account` event creates
alice's second account, `ada`, which later events update, give a ledger and finally delete.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import routes
from ddbguard.guards.request_identity import RequestIdentity

OWNER = "alice"
PEER = "bob"
SEED_KEY_PREFIX = "demo-seed/"
MAIN_BALANCE_CENTS = 50_000
HOLD_CENTS = 1_500
ORDER_LINES = [{"sku": "BOOK-1843", "quantity": 2, "unitPriceCents": 1999}]
ORDER_TO_PAY = "ord-demo-0001"
ORDER_TO_CANCEL = "ord-demo-0002"
ORDER_TO_DELETE = "ord-demo-0003"
ORDER_CREATED_BY_EVENT = "ord-demo-0004"


def sample_key(operation: str) -> str:
    """The Idempotency-Key of events/<operation>.json."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"ddbguard-sample/{operation}"))


def _derived(caller: str, operation: str, key: str, purpose: str) -> str:
    identity = RequestIdentity(caller=caller, route=routes.by_operation(operation).key, key=key, fingerprint="")
    return identity.derived_id(purpose)


MAIN_ACCOUNT = _derived(OWNER, "create_account", SEED_KEY_PREFIX + "account-main", "account")
PEER_ACCOUNT = _derived(PEER, "create_account", SEED_KEY_PREFIX + "account-peer", "account")
HOLD_TO_CAPTURE = _derived(OWNER, "place_hold", SEED_KEY_PREFIX + "hold-to-capture", "hold")
HOLD_TO_RELEASE = _derived(OWNER, "place_hold", SEED_KEY_PREFIX + "hold-to-release", "hold")
# The account the sample create_account event makes (its key is the event's own).
ADA_ACCOUNT = _derived(OWNER, "create_account", sample_key("create_account"), "account")


@dataclass(frozen=True)
class SeedStep:
    name: str
    operation: str
    path: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | None = None
    sub: str = OWNER

    @property
    def key(self) -> str:
        return SEED_KEY_PREFIX + self.name


def _order(order_id: str) -> dict[str, Any]:
    return {"accountId": MAIN_ACCOUNT, "orderId": order_id, "items": ORDER_LINES}


SEED_STEPS: tuple[SeedStep, ...] = (
    SeedStep(
        "account-main",
        "create_account",
        body={"email": "alice@example.com", "username": "alice", "displayName": "Alice Example"},
    ),
    SeedStep("ledger-main", "open_ledger", {"accountId": MAIN_ACCOUNT}),
    SeedStep("deposit-main", "deposit", {"accountId": MAIN_ACCOUNT}, {"amountCents": MAIN_BALANCE_CENTS}),
    SeedStep("hold-to-capture", "place_hold", {"accountId": MAIN_ACCOUNT}, {"amountCents": HOLD_CENTS}),
    SeedStep("hold-to-release", "place_hold", {"accountId": MAIN_ACCOUNT}, {"amountCents": HOLD_CENTS}),
    SeedStep("order-to-pay", "create_order", body=_order(ORDER_TO_PAY)),
    SeedStep("order-to-cancel", "create_order", body=_order(ORDER_TO_CANCEL)),
    SeedStep("order-to-delete", "create_order", body=_order(ORDER_TO_DELETE)),
    SeedStep(
        "account-peer",
        "create_account",
        body={"email": "bob@example.com", "username": "bob", "displayName": "Bob Example"},
        sub=PEER,
    ),
    SeedStep("ledger-peer", "open_ledger", {"accountId": PEER_ACCOUNT}, sub=PEER),
)

NEEDS_SEED = "the demo world (`make run` seeds it; `make seed` creates it again)"


# The demo ids a route's walk-through step may name (local/route_stories.py, `Story.path`); any other value
# is an id as it is (a client-chosen one, e.g. sent in the sample body of the route that creates it).
DEMO_IDS: dict[str, str] = {
    "main account": MAIN_ACCOUNT,
    "peer account": PEER_ACCOUNT,
    "ada": ADA_ACCOUNT,
    "hold to capture": HOLD_TO_CAPTURE,
    "hold to release": HOLD_TO_RELEASE,
    "order to pay": ORDER_TO_PAY,
    "order to cancel": ORDER_TO_CANCEL,
    "order to delete": ORDER_TO_DELETE,
}
