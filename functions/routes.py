"""THE route table. It drives the CDK API (infra/), the local server and the sample events.

It is also the one runtime module infra/ reads: besides the routes it renders the problem+json
bodies API Gateway answers by itself (`gateway_problem_body`), with the handlers' own renderer.

Adding a route is one entry here plus its handler module `functions/<handler>.py`, which
exposes `handler(event, context)`. The entry's `access` is what its function may do to the table:
infra/ grants exactly that (with `dynamodb:LeadingKeys`), and tests/test_table_access.py fails when
a call of the test suite needs more or a grant is never needed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ddbguard_api.problems import problem_document

MUTATING = frozenset({"POST", "PATCH", "DELETE"})

# Partition-key patterns of the table (IAM `StringLike` syntax), the values the stack puts in each function's
# `dynamodb:LeadingKeys` condition. A test checks them against ddbguard/keys.py, which builds every key.
ACCOUNTS = "ACCT#*"  # account profile, ledger balance, entries and holds share the account's partition
EMAIL_LOCKS = "UNIQ#EMAIL#*"
USERNAME_LOCKS = "UNIQ#HANDLE#*"
ORDERS = "ORDER#*"
REQUEST_MARKERS = "REQ#*"
OWNER_INDEX = "OWNERS#*"  # one item per account under its owner (GET /accounts)

# DynamoDB actions (IAM names without `dynamodb:`) mapped to the partition-key patterns they reach.
# A transaction is authorised action by action: Put -> PutItem, Update -> UpdateItem, Delete -> DeleteItem,
# ConditionCheck -> ConditionCheckItem; TransactWriteItems itself is no IAM action.
TableAccess = Mapping[str, tuple[str, ...]]


@dataclass(frozen=True)
class Route:
    method: str
    path: str  # API Gateway resource path, with {placeholders}
    handler: str  # "<package>.<module>" under functions/
    if_match: bool = False  # updates/deletes of a versioned resource
    moves_money: bool = False  # Idempotency-Key required
    auth: bool = True  # Cognito authorizer in the cloud, bearer stand-in locally
    sample_body: dict[str, Any] | None = field(default=None, compare=False)
    # What the operation does to the table. Idempotency has no access of its own: its record is the request
    # marker (`REQ#*`) the operation's own write puts, declared with the operation.
    access: TableAccess = field(default_factory=dict, compare=False)

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
    def table_access(self) -> dict[str, tuple[str, ...]]:
        """Every DynamoDB action this route's function performs -> the partition-key patterns it reaches."""
        return {action: tuple(patterns) for action, patterns in self.access.items()}

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
_LOCKS = (EMAIL_LOCKS, USERNAME_LOCKS)
# A money movement: one transaction updating the balance(s), putting the entries (and a hold) and the request
# marker; then one read of the exact availableCentsAfter from the balance's `pending` map.
_MOVES_MONEY: TableAccess = {
    "PutItem": (ACCOUNTS, REQUEST_MARKERS),
    "UpdateItem": (ACCOUNTS,),
    "GetItem": (ACCOUNTS,),
}
# Settling a hold first reads the hold and the request's marker together (one BatchGetItem).
_SETTLES_A_HOLD: TableAccess = {**_MOVES_MONEY, "BatchGetItem": (ACCOUNTS, REQUEST_MARKERS)}

ROUTES: tuple[Route, ...] = (
    Route("GET", "/health", "health.check_health", auth=False),
    # Accounts: uniqueness of email and username.
    Route(
        "POST",
        "/accounts",
        "accounts.create_account",
        sample_body={"email": "ada@lovelace.io", "username": "ada", "displayName": "Ada Lovelace"},
        access={"PutItem": (ACCOUNTS, *_LOCKS, OWNER_INDEX, REQUEST_MARKERS)},
    ),
    Route(
        "GET",
        "/accounts",
        "accounts.list_accounts",
        # One Query on the caller's owner index, one BatchGetItem of the listed accounts.
        access={"Query": (OWNER_INDEX,), "BatchGetItem": (ACCOUNTS,)},
    ),
    Route("GET", "/accounts/{accountId}", "accounts.get_account", access={"GetItem": (ACCOUNTS,)}),
    Route(
        "PATCH",
        "/accounts/{accountId}",
        "accounts.update_account",
        if_match=True,
        sample_body={"displayName": "Countess of Lovelace"},
        # A displayName change is one UpdateItem; a unique change reads the account, then one transaction puts the
        # new lock (and the marker), deletes the old and updates the account at its version.
        access={
            "GetItem": (ACCOUNTS,),
            "UpdateItem": (ACCOUNTS,),
            "PutItem": (*_LOCKS, REQUEST_MARKERS),
            "DeleteItem": _LOCKS,
        },
    ),
    Route(
        "DELETE",
        "/accounts/{accountId}",
        "accounts.delete_account",
        if_match=True,
        # Reads the account (with a key: and its marker, in one BatchGetItem); then the account, its empty balance
        # item and both locks go in one transaction, with the marker.
        access={
            "GetItem": (ACCOUNTS,),
            "BatchGetItem": (ACCOUNTS, REQUEST_MARKERS),
            "DeleteItem": (ACCOUNTS, *_LOCKS, OWNER_INDEX),
            "PutItem": (REQUEST_MARKERS,),
        },
    ),
    # Ledger: condition-expression guards.
    Route(
        "POST",
        "/accounts/{accountId}/ledger",
        "ledger.open_ledger",
        access={"ConditionCheckItem": (ACCOUNTS,), "PutItem": (ACCOUNTS, REQUEST_MARKERS)},
    ),
    Route(
        "GET",
        "/accounts/{accountId}/ledger",
        "ledger.get_statement",
        access={"GetItem": (ACCOUNTS,), "Query": (ACCOUNTS,)},
    ),
    Route(
        "POST",
        "/accounts/{accountId}/ledger/deposits",
        "ledger.deposit",
        moves_money=True,
        sample_body=_AMOUNT,
        access=_MOVES_MONEY,
    ),
    Route(
        "POST",
        "/accounts/{accountId}/ledger/withdrawals",
        "ledger.withdraw",
        moves_money=True,
        sample_body=_AMOUNT,
        access=_MOVES_MONEY,
    ),
    Route(
        "POST",
        "/accounts/{accountId}/ledger/holds",
        "ledger.place_hold",
        moves_money=True,
        sample_body=_AMOUNT,
        access=_MOVES_MONEY,
    ),
    Route(
        "POST",
        "/accounts/{accountId}/ledger/holds/{holdId}/capture",
        "ledger.capture_hold",
        moves_money=True,
        access=_SETTLES_A_HOLD,
    ),
    Route(
        "POST",
        "/accounts/{accountId}/ledger/holds/{holdId}/release",
        "ledger.release_hold",
        moves_money=True,
        access=_SETTLES_A_HOLD,
    ),
    Route(
        "POST",
        "/transfers",
        "transfers.create_transfer",
        moves_money=True,
        # Both balances' exact values come back in one BatchGetItem.
        access={"PutItem": (ACCOUNTS, REQUEST_MARKERS), "UpdateItem": (ACCOUNTS,), "BatchGetItem": (ACCOUNTS,)},
        sample_body={"fromAccountId": _DEMO_ACCOUNT, "toAccountId": _DEMO_PEER_ACCOUNT, "amountCents": 1000},
    ),
    # Orders: optimistic locking.
    Route(
        "POST",
        "/orders",
        "orders.create_order",
        sample_body={"accountId": _DEMO_ACCOUNT, "orderId": "ord-demo-0004", "items": _DEMO_ORDER_LINES},
        # The account must be the caller's (ConditionCheck) and the order new (Put), in one transaction.
        access={"ConditionCheckItem": (ACCOUNTS,), "PutItem": (ORDERS, REQUEST_MARKERS)},
    ),
    Route("GET", "/orders/{orderId}", "orders.get_order", access={"GetItem": (ORDERS,)}),
    Route(
        "PATCH",
        "/orders/{orderId}",
        "orders.update_order_status",
        if_match=True,
        sample_body={"status": "CANCELLED"},
        access={"UpdateItem": (ORDERS,)},
    ),
    Route(
        "DELETE",
        "/orders/{orderId}",
        "orders.delete_order",
        if_match=True,
        # One DeleteItem; with a key, one transaction with the marker.
        access={"DeleteItem": (ORDERS,), "PutItem": (REQUEST_MARKERS,)},
    ),
    Route(
        "POST",
        "/orders/{orderId}/pay",
        "orders.pay_order",
        moves_money=True,
        # Reads the order and the request's marker together, then one transaction: order -> PAID, balance debit,
        # entry, marker. The reply is the order, so no availableCentsAfter read.
        access={
            "BatchGetItem": (ORDERS, REQUEST_MARKERS),
            "PutItem": (ACCOUNTS, REQUEST_MARKERS),
            "UpdateItem": (ORDERS, ACCOUNTS),
        },
    ),
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


# The scheduled lock audit (functions/audit/audit_locks.py, not an API route). Scan is the only way to see every
# lock; dynamodb:LeadingKeys cannot narrow a Scan (it names no partition), so infra/ grants it unconditioned.
AUDIT_TABLE_ACCESS: TableAccess = {
    "Scan": (),
    # Each Scan page's locks' owners and its accounts' locks, read by key: memory stays flat.
    "BatchGetItem": (ACCOUNTS, EMAIL_LOCKS, USERNAME_LOCKS),
    "GetItem": (ACCOUNTS, EMAIL_LOCKS, USERNAME_LOCKS),
    "ConditionCheckItem": (ACCOUNTS,),
    "PutItem": (EMAIL_LOCKS, USERNAME_LOCKS),
    "DeleteItem": (EMAIL_LOCKS, USERNAME_LOCKS),
}


# The table stream's settlement (functions/streams/settle_entries.py, not an API route): reads a balance's `pending`
# map, its entries' request digests, copies each value onto its entry and request marker, drops it from `pending`.
SETTLEMENT_TABLE_ACCESS: TableAccess = {
    "GetItem": (ACCOUNTS,),
    "BatchGetItem": (ACCOUNTS,),
    "UpdateItem": (ACCOUNTS, REQUEST_MARKERS),
}
# The scheduled sweeper (functions/streams/sweep_pending.py): finds balances whose `pending` grew old with a Scan,
# then settles each exactly as the stream's settlement does.
SWEEPER_TABLE_ACCESS: TableAccess = {"Scan": (), **SETTLEMENT_TABLE_ACCESS}


def gateway_problem_body(status: int, code: str, detail: str) -> str:
    """The problem+json body of an error API Gateway answers itself, as the handlers render theirs."""
    return json.dumps(problem_document(status, code, detail))
