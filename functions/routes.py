"""THE route table. It drives the CDK API (infra/), the local server and the sample events.

Adding a route is one line here plus its handler module `functions/<handler>.py`, which
exposes `handler(event, context)`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MUTATING = frozenset({"POST", "PATCH", "DELETE"})


@dataclass(frozen=True)
class Route:
    method: str
    path: str  # API Gateway resource path, with {placeholders}
    handler: str  # "<package>.<module>" under functions/
    if_match: bool = False  # updates/deletes of a versioned resource
    moves_money: bool = False  # Idempotency-Key required
    auth: bool = True  # Cognito authorizer in the cloud, bearer stand-in locally
    sample_body: dict[str, Any] | None = field(default=None, compare=False)

    @property
    def operation(self) -> str:
        return self.handler.rsplit(".", 1)[-1]

    @property
    def key(self) -> str:
        """`METHOD /path/{param}`: the route's identity (idempotency scope, logs, metrics)."""
        return f"{self.method} {self.path}"

    @property
    def idempotency(self) -> str:
        """required | optional | none: every POST/PATCH/DELETE accepts a key; money needs one."""
        if self.moves_money:
            return "required"
        return "optional" if self.method in MUTATING else "none"

    @property
    def construct_id(self) -> str:
        return "".join(part.capitalize() for part in self.operation.split("_"))

    @property
    def path_parameters(self) -> tuple[str, ...]:
        return tuple(part[1:-1] for part in self.path.split("/") if part.startswith("{"))


_AMOUNT = {"amountCents": 2500}
# Sample bodies name the demo world's accounts (`make run` seeds them; ids derived as local/demo.py shows,
# tests/unit/test_events.py checks they agree).
_DEMO_ACCOUNT = "27f60ec3-d89f-5a94-931d-431dbff968a9"  # alice@example.com, owner alice
_DEMO_PEER_ACCOUNT = "62f27671-fcf6-5cef-9378-1b5bce7d1776"  # bob@example.com, owner bob
_DEMO_ORDER_LINES = [{"sku": "BOOK-1843", "quantity": 2, "unitPriceCents": 1999}]

ROUTES: tuple[Route, ...] = (
    Route("GET", "/health", "health.check_health", auth=False),
    # Accounts: uniqueness of email and username.
    Route(
        "POST",
        "/accounts",
        "accounts.create_account",
        sample_body={"email": "ada@lovelace.io", "username": "ada", "displayName": "Ada Lovelace"},
    ),
    Route("GET", "/accounts", "accounts.list_accounts"),
    Route("GET", "/accounts/{accountId}", "accounts.get_account"),
    Route(
        "PATCH",
        "/accounts/{accountId}",
        "accounts.update_account",
        if_match=True,
        sample_body={"displayName": "Countess of Lovelace"},
    ),
    Route("DELETE", "/accounts/{accountId}", "accounts.delete_account", if_match=True),
    # Ledger: condition-expression guards.
    Route("POST", "/accounts/{accountId}/ledger", "ledger.open_ledger"),
    Route("GET", "/accounts/{accountId}/ledger", "ledger.get_statement"),
    Route("POST", "/accounts/{accountId}/ledger/deposits", "ledger.deposit", moves_money=True, sample_body=_AMOUNT),
    Route("POST", "/accounts/{accountId}/ledger/withdrawals", "ledger.withdraw", moves_money=True, sample_body=_AMOUNT),
    Route("POST", "/accounts/{accountId}/ledger/holds", "ledger.place_hold", moves_money=True, sample_body=_AMOUNT),
    Route("POST", "/accounts/{accountId}/ledger/holds/{holdId}/capture", "ledger.capture_hold", moves_money=True),
    Route("POST", "/accounts/{accountId}/ledger/holds/{holdId}/release", "ledger.release_hold", moves_money=True),
    Route(
        "POST",
        "/transfers",
        "transfers.create_transfer",
        moves_money=True,
        sample_body={"fromAccountId": _DEMO_ACCOUNT, "toAccountId": _DEMO_PEER_ACCOUNT, "amountCents": 1000},
    ),
    # Orders: optimistic locking.
    Route(
        "POST",
        "/orders",
        "orders.create_order",
        sample_body={"accountId": _DEMO_ACCOUNT, "orderId": "ord-demo-0004", "items": _DEMO_ORDER_LINES},
    ),
    Route("GET", "/orders/{orderId}", "orders.get_order"),
    Route(
        "PATCH", "/orders/{orderId}", "orders.update_order_status", if_match=True, sample_body={"status": "CANCELLED"}
    ),
    Route("DELETE", "/orders/{orderId}", "orders.delete_order", if_match=True),
    Route("POST", "/orders/{orderId}/pay", "orders.pay_order", moves_money=True),
)


def by_handler(handler: str) -> Route:
    for route in ROUTES:
        if route.handler == handler:
            return route
    raise KeyError(f"no route for handler {handler}")


def by_operation(operation: str) -> Route:
    for route in ROUTES:
        if route.operation == operation:
            return route
    raise KeyError(f"no route for operation {operation}")
