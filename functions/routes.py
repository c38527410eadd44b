"""THE route table. It drives the CDK API (infra/), the local server and the sample events.

Adding a route is one entry here plus its handler module `functions/<handler>.py`, which
exposes `handler(event, context)`. The entry's `access` is what its function may do to the table:
infra/ grants exactly that (with `dynamodb:LeadingKeys`), and tests/test_table_access.py fails when
a call of the test suite needs more or a grant is never needed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

MUTATING = frozenset({"POST", "PATCH", "DELETE"})

# Partition-key patterns of the table (IAM `StringLike` syntax), the values the stack puts in each function's
# `dynamodb:LeadingKeys` condition. A test checks them against ddbguard/keys.py, which builds every key.
ACCOUNTS = "ACCT#*"  # account profile, ledger balance, entries and holds share the account's partition
EMAIL_LOCKS = "UNIQ#EMAIL#*"
USERNAME_LOCKS = "UNIQ#HANDLE#*"
ORDERS = "ORDER#*"
REQUEST_MARKERS = "REQ#*"
IDEMPOTENCY_PREFIX = "IDEMPOTENCY#"  # + the operation: each function reaches only its own Powertools records

# DynamoDB actions (IAM names without `dynamodb:`) mapped to the partition-key patterns they reach.
# A transaction is authorised action by action: Put -> PutItem, Update -> UpdateItem, Delete -> DeleteItem,
# ConditionCheck -> ConditionCheckItem; TransactWriteItems itself is no IAM action.
TableAccess = Mapping[str, tuple[str, ...]]

# Powertools idempotency (DynamoDBPersistenceLayer): PutItem claims the key (a taken key comes back through
# ReturnValuesOnConditionCheckFailure, so its GetItem fallback never runs), UpdateItem stores the response,
# DeleteItem removes the claim when the operation raised (Busy), so the client's retry can run.
IDEMPOTENCY_ACTIONS = ("PutItem", "UpdateItem", "DeleteItem")


@dataclass(frozen=True)
class Route:
    method: str
    path: str  # API Gateway resource path, with {placeholders}
    handler: str  # "<package>.<module>" under functions/
    if_match: bool = False  # updates/deletes of a versioned resource
    moves_money: bool = False  # Idempotency-Key required
    auth: bool = True  # Cognito authorizer in the cloud, bearer stand-in locally
    sample_body: dict[str, Any] | None = field(default=None, compare=False)
    # What the operation itself does to the table; Powertools idempotency's own access is added by `table_access`.
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
    def idempotency_partition(self) -> str:
        """The partition of this function's Powertools records (static PK of its persistence layer)."""
        return f"{IDEMPOTENCY_PREFIX}{self.operation}"

    @property
    def table_access(self) -> dict[str, tuple[str, ...]]:
        """Every DynamoDB action this route's function performs -> the partition-key patterns it reaches."""
        merged = {action: tuple(patterns) for action, patterns in self.access.items()}
        if self.idempotency != "none":
            for action in IDEMPOTENCY_ACTIONS:
                merged[action] = (*merged.get(action, ()), self.idempotency_partition)
        return merged

    @property
    def construct_id(self) -> str:
        return "".join(part.capitalize() for part in self.operation.split("_"))

    @property
    def path_parameters(self) -> tuple[str, ...]:
        return tuple(part[1:-1] for part in self.path.split("/") if part.startswith("{"))


_AMOUNT = {"amountCents": 2500}
_LOCKS = (EMAIL_LOCKS, USERNAME_LOCKS)
# A money movement: one transaction updating the balance(s), putting the entries (and a hold) and the request
# marker; then the settle step, which reads the balance's pending value and copies it onto the entry.
_MOVES_MONEY: TableAccess = {
    "PutItem": (ACCOUNTS, REQUEST_MARKERS),
    "UpdateItem": (ACCOUNTS,),
    "GetItem": (ACCOUNTS,),
}

ROUTES: tuple[Route, ...] = (
    Route("GET", "/health", "health.check_health", auth=False),
    # Accounts: uniqueness of email and username.
    Route(
        "POST",
        "/accounts",
        "accounts.create_account",
        sample_body={"email": "ada@lovelace.io", "username": "ada", "displayName": "Ada Lovelace"},
        access={"PutItem": (ACCOUNTS, *_LOCKS)},
    ),
    Route("GET", "/accounts/{accountId}", "accounts.get_account", access={"GetItem": (ACCOUNTS,)}),
    Route(
        "PATCH",
        "/accounts/{accountId}",
        "accounts.update_account",
        if_match=True,
        sample_body={"displayName": "Countess of Lovelace"},
        # Reads the account, updates it at its version; a changed unique value puts its new lock, deletes the old.
        access={"GetItem": (ACCOUNTS,), "UpdateItem": (ACCOUNTS,), "PutItem": _LOCKS, "DeleteItem": _LOCKS},
    ),
    Route(
        "DELETE",
        "/accounts/{accountId}",
        "accounts.delete_account",
        if_match=True,
        # The account, its empty balance item and both locks go in one transaction.
        access={"GetItem": (ACCOUNTS,), "DeleteItem": (ACCOUNTS, *_LOCKS)},
    ),
    # Ledger: condition-expression guards.
    Route(
        "POST",
        "/accounts/{accountId}/ledger",
        "ledger.open_ledger",
        access={"ConditionCheckItem": (ACCOUNTS,), "PutItem": (ACCOUNTS,)},
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
        access=_MOVES_MONEY,
    ),
    Route(
        "POST",
        "/accounts/{accountId}/ledger/holds/{holdId}/release",
        "ledger.release_hold",
        moves_money=True,
        access=_MOVES_MONEY,
    ),
    Route(
        "POST",
        "/transfers",
        "transfers.create_transfer",
        moves_money=True,
        access=_MOVES_MONEY,
        sample_body={
            "fromAccountId": "0b7e6f1c-3a52-4f3e-9d4e-7c1d2a9b8e01",
            "toAccountId": "5f2c8d9a-1b4e-4c7a-8e3f-2d6b9a0c4e12",
            "amountCents": 1000,
        },
    ),
    # Orders: optimistic locking.
    Route(
        "POST",
        "/orders",
        "orders.create_order",
        sample_body={
            "accountId": "0b7e6f1c-3a52-4f3e-9d4e-7c1d2a9b8e01",
            "items": [{"sku": "BOOK-1843", "quantity": 2, "unitPriceCents": 1999}],
        },
        # The account must be the caller's (ConditionCheck) and the order new (Put), in one transaction.
        access={"ConditionCheckItem": (ACCOUNTS,), "PutItem": (ORDERS,)},
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
    Route("DELETE", "/orders/{orderId}", "orders.delete_order", if_match=True, access={"DeleteItem": (ORDERS,)}),
    Route(
        "POST",
        "/orders/{orderId}/pay",
        "orders.pay_order",
        moves_money=True,
        # Reads the order (and, for a replay of a deleted order, its request marker), then one transaction:
        # order -> PAID, balance debit, entry, marker; then the settle step.
        access={
            "GetItem": (ORDERS, REQUEST_MARKERS, ACCOUNTS),
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
    "GetItem": (ACCOUNTS, EMAIL_LOCKS, USERNAME_LOCKS),
    "ConditionCheckItem": (ACCOUNTS,),
    "PutItem": (EMAIL_LOCKS, USERNAME_LOCKS),
    "DeleteItem": (EMAIL_LOCKS, USERNAME_LOCKS),
}
