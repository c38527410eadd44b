"""THE route table: one entry per API route, with the facts the code runs on. It drives the CDK API (infra/), the
local server, the handlers' parsing and replies, OpenAPI and the sample events.

Adding a route is one entry here plus its handler module `functions/<handler>.py`, which exposes
`handler(event, context)`; for a route an entity's generic operation serves (routes.generic: `entity_route`,
`crud_routes`), `make regenerate` writes that module when it is missing. The entry's `access` is what its function
may do to the table: infra/ grants exactly that (with `dynamodb:LeadingKeys`, patterns in routes.table_patterns), and
tests/test_table_access.py fails when a call of the test suite needs more or a grant is never needed.

An entry holds runtime facts only (`ddbguard_api.http.route.Route`: method, path, handler, access, entity, status,
models, refusals and flags); tests/unit/test_route_facts.py fails when another module keeps its own table of
operations. What describes a route to readers ships in no function: what it does is its handler's docstring; its
OpenAPI reply wording, sample body and walk-through step are its story in local/route_stories.py. The background
jobs' grants are in routes.job_access; the problem+json bodies API Gateway answers by itself are rendered in infra/.
"""

from __future__ import annotations

from ddbguard.domain.entities.accounts import ACCOUNT
from ddbguard.domain.entities.orders import ORDER
from ddbguard.guards.entity import Entity
from ddbguard_api.http.route import Route, TableAccess
from routes.generic import crud_routes, entity_route
from routes.table_patterns import ACCOUNTS, ORDERS, OWNER_INDEX, REQUEST_MARKERS

# What other modules import from here: the table, its lookups, the type of its entries and the one-statement
# declaration of a generic resource.
__all__ = ["ENTITIES", "ROUTES", "Route", "by_handler", "by_operation", "crud_routes"]

# A money movement: one transaction updating the balance(s), putting the entries (and a hold) and the request
# marker; then one read of the exact availableCentsAfter from the balance's `pending` map.
_MOVES_MONEY: TableAccess = {
    "PutItem": (ACCOUNTS, REQUEST_MARKERS),
    "UpdateItem": (ACCOUNTS,),
    "GetItem": (ACCOUNTS,),
}
# The ledger routes address the account's ledger: an absent one answers ledger_not_found.
_LEDGER = {"accountId": "ledger_not_found"}
_HOLD = {**_LEDGER, "holdId": "hold_not_found"}
# Settling a hold first reads the hold and the request's marker together (one BatchGetItem).
_SETTLES_A_HOLD: TableAccess = {**_MOVES_MONEY, "BatchGetItem": (ACCOUNTS, REQUEST_MARKERS)}


ROUTES: tuple[Route, ...] = (
    Route(
        method="GET",
        path="/health",
        handler="health.check_health",
        auth=False,
        status=200,
        response="Health",
    ),
    # Accounts: uniqueness of email and username.
    entity_route(
        ACCOUNT,
        method="POST",
        path="/accounts",
        handler="accounts.create_account",
        body="CreateAccount",
        problems={409: ("unique_violation",), 422: ("validation_failed",)},  # ids are never the client's
    ),
    Route(
        method="GET",
        path="/accounts",
        handler="accounts.list_accounts",
        query="AccountListQuery",
        # One Query on the caller's owner index, one BatchGetItem of the listed accounts.
        access={"Query": (OWNER_INDEX,), "BatchGetItem": (ACCOUNTS,)},
        response="AccountList",
        problems={422: ("validation_failed",)},
    ),
    entity_route(
        ACCOUNT,
        method="GET",
        path="/accounts/{accountId}",
        handler="accounts.get_account",
    ),
    # An unkeyed displayName or closing change is one UpdateItem; a keyed change, or a unique one, reads the account
    # (keyed: with the marker), then one transaction puts the new lock (and the marker), deletes the old and updates
    # the account at its version (the generic change's access).
    entity_route(
        ACCOUNT,
        method="PATCH",
        path="/accounts/{accountId}",
        handler="accounts.update_account",
        body="UpdateAccount",
    ),
    # Reads the account (with a key: and its marker, in one BatchGetItem); then the account becomes its tombstone and
    # its empty balance item, both locks and its owner-index entry go in one transaction, with the marker (the generic
    # delete's access).
    entity_route(
        ACCOUNT,
        method="DELETE",
        path="/accounts/{accountId}",
        handler="accounts.delete_account",
        problems={404: ("account_not_found",), 409: ("balance_not_zero", "ledger_unsettled")},
        more_access={"DeleteItem": (ACCOUNTS,)},  # the empty balance item goes with the account
    ),
    # Ledger: condition-expression guards.
    Route(
        method="POST",
        path="/accounts/{accountId}/ledger",
        handler="ledger.open_ledger",
        access={"ConditionCheckItem": (ACCOUNTS,), "PutItem": (ACCOUNTS, REQUEST_MARKERS)},
        status=201,
        response="Balance",
        location="/accounts/{accountId}/ledger",
        etag=True,
        not_found={"accountId": "account_not_found"},  # opening needs the account itself
        problems={404: ("account_not_found",), 409: ("already_exists",)},
    ),
    Route(
        method="GET",
        path="/accounts/{accountId}/ledger",
        handler="ledger.get_statement",
        query="StatementQuery",
        access={"GetItem": (ACCOUNTS,), "Query": (ACCOUNTS,)},
        response="Statement",
        etag=True,
        not_found=_LEDGER,
        problems={404: ("ledger_not_found",), 422: ("validation_failed",)},
    ),
    Route(
        method="POST",
        path="/accounts/{accountId}/ledger/deposits",
        handler="ledger.deposit",
        body="Amount",
        moves_money=True,
        access=_MOVES_MONEY,
        status=201,
        response="Entry",
        not_found=_LEDGER,
        problems={404: ("ledger_not_found",)},
    ),
    Route(
        method="POST",
        path="/accounts/{accountId}/ledger/withdrawals",
        handler="ledger.withdraw",
        body="Amount",
        moves_money=True,
        access=_MOVES_MONEY,
        status=201,
        response="Entry",
        not_found=_LEDGER,
        problems={404: ("ledger_not_found",), 409: ("insufficient_funds",)},
    ),
    Route(
        method="POST",
        path="/accounts/{accountId}/ledger/holds",
        handler="ledger.place_hold",
        body="Amount",
        moves_money=True,
        access=_MOVES_MONEY,
        status=201,
        response="Hold",
        not_found=_LEDGER,
        problems={404: ("ledger_not_found",), 409: ("insufficient_funds", "already_exists")},
    ),
    Route(
        method="POST",
        path="/accounts/{accountId}/ledger/holds/{holdId}/capture",
        handler="ledger.capture_hold",
        moves_money=True,
        access=_SETTLES_A_HOLD,
        response="Hold",
        not_found=_HOLD,
        problems={404: ("hold_not_found", "ledger_not_found"), 409: ("hold_settled",)},
    ),
    Route(
        method="POST",
        path="/accounts/{accountId}/ledger/holds/{holdId}/release",
        handler="ledger.release_hold",
        moves_money=True,
        access=_SETTLES_A_HOLD,
        response="Hold",
        not_found=_HOLD,
        problems={404: ("hold_not_found", "ledger_not_found"), 409: ("hold_settled",)},
    ),
    Route(
        method="POST",
        path="/transfers",
        handler="transfers.create_transfer",
        body="Transfer",
        moves_money=True,
        # The recipient's account is checked in the transaction (not closing); both balances' exact values come
        # back in one BatchGetItem.
        access={
            "ConditionCheckItem": (ACCOUNTS,),
            "PutItem": (ACCOUNTS, REQUEST_MARKERS),
            "UpdateItem": (ACCOUNTS,),
            "BatchGetItem": (ACCOUNTS,),
        },
        status=201,
        response="TransferSent",
        problems={
            404: ("ledger_not_found",),
            409: ("insufficient_funds", "account_closing"),
            422: ("validation_failed",),
        },
    ),
    # Orders: optimistic locking.
    Route(
        method="POST",
        path="/orders",
        handler="orders.create_order",
        body="CreateOrder",
        # The account must be the caller's (ConditionCheck) and the order new (Put), in one transaction.
        access={"ConditionCheckItem": (ACCOUNTS,), "PutItem": (ORDERS, REQUEST_MARKERS)},
        entity=ORDER,
        status=201,
        response="Order",
        location="/orders/{orderId}",
        problems={404: ("account_not_found",), 409: ("already_exists",), 422: ("validation_failed",)},
    ),
    # Reading, moving and deleting an order are the generic operations; the status table adds its rules.
    entity_route(
        ORDER,
        method="GET",
        path="/orders/{orderId}",
        handler="orders.get_order",
    ),
    entity_route(
        ORDER,
        method="PATCH",
        path="/orders/{orderId}",
        handler="orders.update_order_status",
        body="UpdateOrder",
        problems={404: ("order_not_found",), 409: ("invalid_transition",)},
    ),
    entity_route(
        ORDER,
        method="DELETE",
        path="/orders/{orderId}",
        handler="orders.delete_order",
        problems={404: ("order_not_found",), 409: ("invalid_transition",)},
    ),
    Route(
        method="POST",
        path="/orders/{orderId}/pay",
        handler="orders.pay_order",
        moves_money=True,
        # Reads the order and the request's marker together, then one transaction: order -> PAID, balance debit,
        # entry, marker. The reply is the order, so no availableCentsAfter read.
        access={
            "BatchGetItem": (ORDERS, REQUEST_MARKERS),
            "PutItem": (ACCOUNTS, REQUEST_MARKERS),
            "UpdateItem": (ORDERS, ACCOUNTS),
        },
        entity=ORDER,
        response="Order",
        problems={404: ("order_not_found", "ledger_not_found"), 409: ("insufficient_funds", "invalid_transition")},
    ),
    Route(
        method="POST",
        path="/orders/{orderId}/refund",
        handler="orders.refund_order",
        moves_money=True,
        # As paying: the order and the marker together, then one transaction: order -> REFUNDED, balance credit,
        # refund entry, marker.
        access={
            "BatchGetItem": (ORDERS, REQUEST_MARKERS),
            "PutItem": (ACCOUNTS, REQUEST_MARKERS),
            "UpdateItem": (ORDERS, ACCOUNTS),
        },
        entity=ORDER,
        response="Order",
        problems={404: ("order_not_found", "ledger_not_found"), 409: ("invalid_transition",)},
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


# Every entity a route names, in route order.
ENTITIES: tuple[Entity, ...] = tuple(dict.fromkeys(route.entity for route in ROUTES if route.entity is not None))
