"""THE route table. It drives the CDK API (infra/), the local server and the sample events.

It is also the one runtime module infra/ reads: besides the routes it renders the problem+json
bodies API Gateway answers by itself (`gateway_problem_body`), with the handlers' own renderer.

Adding a route is one entry here plus its handler module `functions/<handler>.py`, which
exposes `handler(event, context)`; a route an entity's generic operation serves (`entity_route`,
`crud_routes`) needs no module, functions/crud/ builds it. The entry's `access` is what its function
may do to the table: infra/ grants exactly that (with `dynamodb:LeadingKeys`), and tests/test_table_access.py fails when
a call of the test suite needs more or a grant is never needed.

Every other per-route fact lives in the entry too (or in the entity it names): the success status and
its response model, `Location`, whether the reply carries an ETag, the 404 code of each path
parameter, the refusals it documents, and its step in the walk-through of sample events. OpenAPI
(local/openapi.py), request parsing (ddbguard_api/request.py), the demo and the tests read them here;
tests/unit/test_route_facts.py fails when another module keeps its own table of operations.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ddbguard.domain.entities.accounts import ACCOUNT
from ddbguard.domain.entities.orders import ORDER
from ddbguard.guards.entity import Entity
from ddbguard.store.schema import UNSETTLED_INDEX
from ddbguard_api.problems import problem_document

MUTATING = frozenset({"POST", "PATCH", "DELETE"})

# Partition-key patterns of the table (IAM `StringLike` syntax), the values the stack puts in each function's
# `dynamodb:LeadingKeys` condition. A test checks them against ddbguard/store/keys.py, which builds every key.
ACCOUNTS = ACCOUNT.partition_pattern  # account profile, ledger balance, entries and holds share the partition
EMAIL_LOCKS = ACCOUNT.lock_pattern("email")
USERNAME_LOCKS = ACCOUNT.lock_pattern("username")
ORDERS = ORDER.partition_pattern
REQUEST_MARKERS = "REQ#*"
OWNER_INDEX = "OWNERS#*"  # one item per account under its owner (GET /accounts)
INDEX_PREFIX = "index/"  # not a partition: a secondary index of the table, by name

# DynamoDB actions (IAM names without `dynamodb:`) mapped to the partition-key patterns they reach.
# A transaction is authorised action by action: Put -> PutItem, Update -> UpdateItem, Delete -> DeleteItem,
# ConditionCheck -> ConditionCheckItem; TransactWriteItems itself is no IAM action.
TableAccess = Mapping[str, tuple[str, ...]]
Problems = Mapping[int, tuple[str, ...]]  # status -> the route's own refusal codes (the edge's follow from its flags)


@dataclass(frozen=True)
class Walkthrough:
    """The route's sample event (events/<operation>.json) in the walk-through (README, "Walk through every
    route"): each step succeeds once the ones before it ran. Path values name demo ids (local/demo.py)."""

    step: int
    what: str
    path: Mapping[str, str] = field(default_factory=dict)
    query: str = ""
    if_match: int = 0
    needs: str = ""  # what must have run first; empty: the demo world
    # The pass deletes what this step acts on (`ada`), so a second pass replays it only after `make seed` cleared
    # its request marker (local/walkthrough_reset.py).
    reset_on_rerun: bool = False


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
    entity: Entity | None = field(default=None, compare=False)  # the one item the route acts on, if any
    status: int = 200  # the success status
    reply: str = ""  # what the success response is, in a few words (OpenAPI)
    summary: str = ""  # what a generic route does (OpenAPI); a hand-written handler's docstring says it instead
    response: str | None = None  # its model in ddbguard_api.schemas (None: no body)
    location: str | None = None  # the created resource's path, with the response's fields as {placeholders}
    etag: bool | None = None  # the reply carries the version as ETag; None: when it is its versioned entity
    not_found: Mapping[str, str] = field(default_factory=dict, compare=False)  # path parameter -> 404 code
    problems: Problems = field(default_factory=dict, compare=False)
    walkthrough: Walkthrough | None = field(default=None, compare=False)
    # The request's body and query models in ddbguard_api.models, by name (infra/ imports this table, not pydantic).
    body: str | None = None
    query: str | None = None
    # A generic route's domain rules: the module (by name, so infra/ imports no domain code) whose `update_rules` /
    # `delete_rules` add a condition and an explanation to the generic write (ddbguard_api.entity_endpoints).
    rules: str | None = field(default=None, compare=False)

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
    def tag(self) -> str:
        """The group the route is listed under (OpenAPI tags): its handler's package, or for a generic route, which
        has no package of its own, the first segment of its path (`teams`)."""
        package = self.handler.split(".")[0]
        return self.path.strip("/").split("/")[0] if package == GENERIC_HANDLERS else package

    @property
    def construct_id(self) -> str:
        return "".join(part.capitalize() for part in self.operation.split("_"))

    @property
    def path_parameters(self) -> tuple[str, ...]:
        return tuple(part[1:-1] for part in self.path.split("/") if part.startswith("{"))

    @property
    def returns_etag(self) -> bool:
        if self.etag is not None:
            return self.etag
        return self.entity is not None and self.entity.versioned and self.response is not None

    def not_found_code(self, parameter: str) -> str:
        """The 404 code for an absent (or malformed) `parameter`: the route's own, else that of the entity whose
        id it is."""
        if parameter in self.not_found:
            return self.not_found[parameter]
        entity = next((e for e in ENTITIES if e.id_field == parameter), None)
        return entity.not_found if entity is not None else "not_found"

    def location_of(self, values: Mapping[str, Any]) -> str:
        """The `Location` of a created resource, from the response's (or the path's) values."""
        if self.location is None:
            raise ValueError(f"{self.key} creates nothing with a Location")
        return self.location.format_map(values)


_AMOUNT = {"amountCents": 2500}
# Sample bodies name the demo world's accounts (`make run` seeds them; ids derived as local/demo.py shows,
# tests/unit/test_events.py checks they agree).
_DEMO_ACCOUNT = "27f60ec3-d89f-5a94-931d-431dbff968a9"  # alice@example.com, owner alice
_DEMO_PEER_ACCOUNT = "62f27671-fcf6-5cef-9378-1b5bce7d1776"  # bob@example.com, owner bob
_DEMO_ORDER_LINES = [{"sku": "BOOK-1843", "quantity": 2, "unitPriceCents": 1999}]
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


def entity_route(entity: Entity, method: str, path: str, handler: str, **facts: Any) -> Route:
    """A route served by its entity's generic operation (ddbguard_api.entity_endpoints, chosen by the method):
    its table access, status, Location, reply and refusals follow from the declaration; `facts` add the rest
    (body model, sample body, walk-through step) or override."""
    items, locks, kind = entity.partition_pattern, entity.lock_patterns, entity.kind
    index = (OWNER_INDEX,) if entity.owner_index else ()
    taken = ("unique_violation",) if entity.unique else ()
    absent = {404: (entity.not_found,)}
    derived: dict[str, Any] = {"response": entity.title, "if_match": method in ("PATCH", "DELETE")}
    if method == "POST":  # a create: the item, its locks, its index entry and the marker in one transaction
        access: TableAccess = {"PutItem": (items, *locks, *index, REQUEST_MARKERS)}
        problems: Problems = {409: (*taken, "already_exists"), 422: ("validation_failed",)}
        derived.update(status=201, location=f"{path}/{{{entity.id_field}}}", reply=f"The new {kind}.")
        derived["summary"] = f"Create a {kind}" + (
            f", its {', '.join(u.field for u in entity.unique)} unique" if taken else ""
        )
    elif method == "GET":
        access, problems = {"GetItem": (items,)}, absent
        derived.update(reply=f"The {kind}.", summary=f"The caller's {kind}, with its ETag")
    elif method == "PATCH":  # a unique change reads the item, then swaps the locks in one transaction
        access = {"UpdateItem": (items,)}
        if locks:
            access = {"GetItem": (items,), **access, "PutItem": (*locks, REQUEST_MARKERS), "DeleteItem": locks}
        problems = {**absent, **({409: taken} if taken else {}), 422: ("validation_failed",)}
        derived.update(reply=f"The {kind} after the change.", summary=f"Change the {kind} at the If-Match version")
    elif method == "DELETE":  # with locks or an index entry, read first (with the marker, given a key)
        access = {"DeleteItem": (items,), "PutItem": (REQUEST_MARKERS,)}
        if locks or index:
            read = {"GetItem": (items,), "BatchGetItem": (items, REQUEST_MARKERS)}
            access = {**read, "DeleteItem": (items, *locks, *index), "PutItem": (REQUEST_MARKERS,)}
        problems, derived["response"] = absent, None
        derived.update(status=204, reply="Deleted, with its locks." if locks else "Deleted.")
        derived["summary"] = f"Delete the {kind} at the If-Match version" + (", with its locks" if locks else "")
    else:
        raise ValueError(f"no generic {method} operation")
    return Route(method, path, handler, entity=entity, **{"access": access, "problems": problems, **derived, **facts})


GENERIC_HANDLERS = "crud"  # functions/crud/: the handler modules of generic routes, built from this table
# One word per generic operation, in its handler's name (crud.create_team, for teams).
CRUD_VERBS = {"POST": "create", "GET": "get", "PATCH": "update", "DELETE": "delete"}


def crud_routes(
    entity: Entity,
    path: str,
    *,
    first_step: int,
    methods: tuple[str, ...] = tuple(CRUD_VERBS),
    rules: str | None = None,
    **overrides: Any,
) -> tuple[Route, ...]:
    """create, get, change and delete of an entity that declares its fields, served by the generic operations.

    `path` is the collection (`/teams`); items are `<path>/{<id field>}`. Each route is an `entity_route` whose
    handler is `crud.<verb>_<kind>` (no module to write: functions/crud/), whose bodies are the entity's derived
    models (`Create<Title>`, `Change<Title>`), whose sample bodies come from the fields' examples, and whose
    walk-through steps start at `first_step`: alice creates the demo item, reads it, changes it, deletes it.
    `rules` names the domain module whose `update_rules` / `delete_rules` the change and the delete add (see
    `Route.rules`); `overrides` maps a method to the facts to change on its route (`POST={"reply": ...}`).
    """
    unknown = set(overrides) - set(methods)
    if unknown:
        raise ValueError(f"overrides for methods not declared: {sorted(unknown)}")
    kind, id_field = entity.kind, entity.id_field
    item_path = f"{path}/{{{id_field}}}"
    demo_id = f"{kind}-demo-1"
    created = {name: spec.example for name, spec in entity.fields.items()}
    if entity.owner_scoped:  # a client-chosen id: the sample events name the demo item
        created[id_field] = demo_id
    changed = next(({n: s.example} for n, s in entity.fields.items() if s.unique is None), created)
    on_demo = {id_field: demo_id}
    create = f"{CRUD_VERBS['POST']}_{kind}"
    update = f"{CRUD_VERBS['PATCH']}_{kind}"
    step = {method: number for number, method in enumerate(methods, start=first_step)}
    # The pass deletes the demo item, so its create, change and delete replay only after a reset.
    facts: dict[str, dict[str, Any]] = {
        "POST": {
            "body": f"Create{entity.title}",
            "sample_body": created,
            "walkthrough": Walkthrough(
                step.get("POST", 0), f"alice creates the {kind} {demo_id}.", reset_on_rerun=True
            ),
        },
        "GET": {"walkthrough": Walkthrough(step.get("GET", 0), f"the {kind} {demo_id}.", on_demo, needs=create)},
        "PATCH": {
            "body": f"Change{entity.title}",
            "sample_body": changed,
            "walkthrough": Walkthrough(
                step.get("PATCH", 0),
                "changes it (version 0 -> 1).",
                on_demo,
                if_match=0,
                needs=create,
                reset_on_rerun=True,
            ),
        },
        "DELETE": {
            "walkthrough": Walkthrough(
                step.get("DELETE", 0),
                f"deletes the {kind} {demo_id}.",
                on_demo,
                if_match=1,
                needs=update,
                reset_on_rerun=True,
            )
        },
    }
    routes: list[Route] = []
    for method in methods:
        handler = f"{GENERIC_HANDLERS}.{CRUD_VERBS[method]}_{kind}"
        declared = {**facts[method], **({"rules": rules} if rules and method in ("PATCH", "DELETE") else {})}
        declared.update(overrides.get(method, {}))
        routes.append(entity_route(entity, method, path if method == "POST" else item_path, handler, **declared))
    return tuple(routes)


ROUTES: tuple[Route, ...] = (
    Route(
        "GET",
        "/health",
        "health.check_health",
        auth=False,
        status=200,
        reply="The service answers.",
        response="Health",
        walkthrough=Walkthrough(1, "Liveness: no token, no table.", needs="nothing"),
    ),
    # Accounts: uniqueness of email and username.
    entity_route(
        ACCOUNT,
        "POST",
        "/accounts",
        f"{GENERIC_HANDLERS}.create_account",
        summary="Create an account whose email and username are unique (locks in the same transaction)",
        body="CreateAccount",
        rules="ddbguard.domain.accounts",
        sample_body={"email": "ada@lovelace.io", "username": "ada", "displayName": "Ada Lovelace"},
        problems={409: ("unique_violation",), 422: ("validation_failed",)},  # ids are never the client's
        walkthrough=Walkthrough(
            2, "alice opens `ada`.", needs="nothing (the seed does not take ada's email)", reset_on_rerun=True
        ),
    ),
    Route(
        "GET",
        "/accounts",
        "accounts.list_accounts",
        query="AccountListQuery",
        # One Query on the caller's owner index, one BatchGetItem of the listed accounts.
        access={"Query": (OWNER_INDEX,), "BatchGetItem": (ACCOUNTS,)},
        reply="The caller's accounts, newest first, one page.",
        response="AccountList",
        problems={422: ("validation_failed",)},
        walkthrough=Walkthrough(3, "alice's accounts, newest first.", query="limit=10"),
    ),
    entity_route(
        ACCOUNT,
        "GET",
        "/accounts/{accountId}",
        f"{GENERIC_HANDLERS}.get_account",
        summary="The owner's account (admins may read any), with its ETag",
        walkthrough=Walkthrough(4, "alice's demo account.", {"accountId": "main account"}),
    ),
    # A displayName change is one UpdateItem; a unique change reads the account, then one transaction puts the new
    # lock (and the marker), deletes the old and updates the account at its version (the generic change's access).
    entity_route(
        ACCOUNT,
        "PATCH",
        "/accounts/{accountId}",
        f"{GENERIC_HANDLERS}.update_account",
        summary="Change email, username or displayName at the expected version",
        body="UpdateAccount",
        rules="ddbguard.domain.accounts",
        sample_body={"displayName": "Countess of Lovelace"},
        walkthrough=Walkthrough(
            5,
            "renames `ada` (version 0 -> 1).",
            {"accountId": "ada"},
            if_match=0,
            needs="create_account",
            reset_on_rerun=True,
        ),
    ),
    # Reads the account (with a key: and its marker, in one BatchGetItem); then the account, its empty balance item,
    # both locks and its owner-index entry go in one transaction, with the marker (the generic delete's access).
    entity_route(
        ACCOUNT,
        "DELETE",
        "/accounts/{accountId}",
        f"{GENERIC_HANDLERS}.delete_account",
        summary="The account, its locks and its empty balance item, in one transaction",
        rules="ddbguard.domain.accounts",
        reply="Deleted with its locks (and its empty balance item).",
        problems={404: ("account_not_found",), 409: ("balance_not_zero", "ledger_unsettled")},
        walkthrough=Walkthrough(
            19,
            "deletes `ada`, her locks and her empty ledger.",
            {"accountId": "ada"},
            if_match=1,
            needs="update_account (If-Match 1) and open_ledger (an empty ledger goes with the account)",
            reset_on_rerun=True,
        ),
    ),
    # Ledger: condition-expression guards.
    Route(
        "POST",
        "/accounts/{accountId}/ledger",
        "ledger.open_ledger",
        access={"ConditionCheckItem": (ACCOUNTS,), "PutItem": (ACCOUNTS, REQUEST_MARKERS)},
        status=201,
        reply="The new, empty balance.",
        response="Balance",
        location="/accounts/{accountId}/ledger",
        etag=True,
        not_found={"accountId": "account_not_found"},  # opening needs the account itself
        problems={404: ("account_not_found",), 409: ("already_exists",)},
        walkthrough=Walkthrough(
            6, "opens ada's ledger.", {"accountId": "ada"}, needs="create_account", reset_on_rerun=True
        ),
    ),
    Route(
        "GET",
        "/accounts/{accountId}/ledger",
        "ledger.get_statement",
        query="StatementQuery",
        access={"GetItem": (ACCOUNTS,), "Query": (ACCOUNTS,)},
        reply="The balance and one page of entries, newest first.",
        response="Statement",
        etag=True,
        not_found=_LEDGER,
        problems={404: ("ledger_not_found",), 422: ("validation_failed",)},
        walkthrough=Walkthrough(7, "alice's balance and entries.", {"accountId": "main account"}, query="limit=25"),
    ),
    Route(
        "POST",
        "/accounts/{accountId}/ledger/deposits",
        "ledger.deposit",
        body="Amount",
        moves_money=True,
        sample_body=_AMOUNT,
        access=_MOVES_MONEY,
        status=201,
        reply="The deposit entry.",
        response="Entry",
        not_found=_LEDGER,
        problems={404: ("ledger_not_found",)},
        walkthrough=Walkthrough(8, "25.00 into alice's ledger.", {"accountId": "main account"}),
    ),
    Route(
        "POST",
        "/accounts/{accountId}/ledger/withdrawals",
        "ledger.withdraw",
        body="Amount",
        moves_money=True,
        sample_body=_AMOUNT,
        access=_MOVES_MONEY,
        status=201,
        reply="The withdrawal entry.",
        response="Entry",
        not_found=_LEDGER,
        problems={404: ("ledger_not_found",), 409: ("insufficient_funds",)},
        walkthrough=Walkthrough(9, "25.00 out of alice's ledger.", {"accountId": "main account"}),
    ),
    Route(
        "POST",
        "/accounts/{accountId}/ledger/holds",
        "ledger.place_hold",
        body="Amount",
        moves_money=True,
        sample_body=_AMOUNT,
        access=_MOVES_MONEY,
        status=201,
        reply="The hold entry; `holdId` names the hold.",
        response="Hold",
        not_found=_LEDGER,
        problems={404: ("ledger_not_found",), 409: ("insufficient_funds", "already_exists")},
        walkthrough=Walkthrough(10, "holds 25.00 of alice's money.", {"accountId": "main account"}),
    ),
    Route(
        "POST",
        "/accounts/{accountId}/ledger/holds/{holdId}/capture",
        "ledger.capture_hold",
        moves_money=True,
        access=_SETTLES_A_HOLD,
        reply="The capture entry: the held money left the account.",
        response="Hold",
        not_found=_HOLD,
        problems={404: ("hold_not_found", "ledger_not_found"), 409: ("hold_settled",)},
        walkthrough=Walkthrough(
            11,
            "captures the seeded hold `hold-to-capture`.",
            {"accountId": "main account", "holdId": "hold to capture"},
        ),
    ),
    Route(
        "POST",
        "/accounts/{accountId}/ledger/holds/{holdId}/release",
        "ledger.release_hold",
        moves_money=True,
        access=_SETTLES_A_HOLD,
        reply="The release entry: the held money is available again.",
        response="Hold",
        not_found=_HOLD,
        problems={404: ("hold_not_found", "ledger_not_found"), 409: ("hold_settled",)},
        walkthrough=Walkthrough(
            12,
            "releases the seeded hold `hold-to-release`.",
            {"accountId": "main account", "holdId": "hold to release"},
        ),
    ),
    Route(
        "POST",
        "/transfers",
        "transfers.create_transfer",
        body="Transfer",
        moves_money=True,
        # Both balances' exact values come back in one BatchGetItem.
        access={"PutItem": (ACCOUNTS, REQUEST_MARKERS), "UpdateItem": (ACCOUNTS,), "BatchGetItem": (ACCOUNTS,)},
        sample_body={"fromAccountId": _DEMO_ACCOUNT, "toAccountId": _DEMO_PEER_ACCOUNT, "amountCents": 1000},
        status=201,
        reply="The caller's transfer_out entry.",
        response="TransferSent",
        problems={404: ("ledger_not_found",), 409: ("insufficient_funds",), 422: ("validation_failed",)},
        walkthrough=Walkthrough(13, "10.00 from alice's account to bob's."),
    ),
    # Orders: optimistic locking.
    Route(
        "POST",
        "/orders",
        "orders.create_order",
        body="CreateOrder",
        sample_body={"accountId": _DEMO_ACCOUNT, "orderId": "ord-demo-0004", "items": _DEMO_ORDER_LINES},
        # The account must be the caller's (ConditionCheck) and the order new (Put), in one transaction.
        access={"ConditionCheckItem": (ACCOUNTS,), "PutItem": (ORDERS, REQUEST_MARKERS)},
        entity=ORDER,
        status=201,
        reply="The new PENDING order at version 0.",
        response="Order",
        location="/orders/{orderId}",
        problems={404: ("account_not_found",), 409: ("already_exists",), 422: ("validation_failed",)},
        walkthrough=Walkthrough(14, "alice orders two books (ord-demo-0004)."),
    ),
    # Reading, moving and deleting an order are the generic operations; the status table adds its rules.
    entity_route(
        ORDER,
        "GET",
        "/orders/{orderId}",
        f"{GENERIC_HANDLERS}.get_order",
        summary="The caller's order with its ETag (admins too: only their own, docs/api.md)",
        walkthrough=Walkthrough(15, "the seeded order ord-demo-0001.", {"orderId": "order to pay"}),
    ),
    entity_route(
        ORDER,
        "PATCH",
        "/orders/{orderId}",
        f"{GENERIC_HANDLERS}.update_order_status",
        summary="Move the order's status along the transition table",
        body="UpdateOrderStatus",
        rules="ddbguard.domain.orders",
        sample_body={"status": "CANCELLED"},
        reply="The order after the move.",
        problems={404: ("order_not_found",), 409: ("invalid_transition",)},
        walkthrough=Walkthrough(
            16, "cancels the seeded order ord-demo-0002.", {"orderId": "order to cancel"}, if_match=0
        ),
    ),
    entity_route(
        ORDER,
        "DELETE",
        "/orders/{orderId}",
        f"{GENERIC_HANDLERS}.delete_order",
        summary="Delete a PENDING or CANCELLED order at the expected version",
        rules="ddbguard.domain.orders",
        problems={404: ("order_not_found",), 409: ("invalid_transition",)},
        walkthrough=Walkthrough(18, "deletes ord-demo-0003.", {"orderId": "order to delete"}, if_match=0),
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
        entity=ORDER,
        reply="The PAID order (a replay with the same key answers the first result).",
        response="Order",
        problems={404: ("order_not_found", "ledger_not_found"), 409: ("insufficient_funds", "invalid_transition")},
        walkthrough=Walkthrough(17, "pays ord-demo-0001 from alice's ledger.", {"orderId": "order to pay"}),
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
_AUDITED = tuple(entity for entity in ENTITIES if entity.unique)
_AUDITED_ITEMS = tuple(entity.partition_pattern for entity in _AUDITED)
_AUDITED_LOCKS = tuple(pattern for entity in _AUDITED for pattern in entity.lock_patterns)

# The scheduled lock audit (functions/audit/audit_locks.py, not an API route), over every entity with unique fields.
# Scan is the only way to see every lock; dynamodb:LeadingKeys cannot narrow a Scan (it names no partition), so
# infra/ grants it unconditioned.
AUDIT_TABLE_ACCESS: TableAccess = {
    "Scan": (),
    # Each Scan page's locks' owners and its items' locks, read by key: memory stays flat.
    "BatchGetItem": (*_AUDITED_ITEMS, *_AUDITED_LOCKS),
    "GetItem": (*_AUDITED_ITEMS, *_AUDITED_LOCKS),
    "ConditionCheckItem": _AUDITED_ITEMS,
    "PutItem": _AUDITED_LOCKS,
    "DeleteItem": _AUDITED_LOCKS,
}


# The table stream's settlement (functions/streams/settle_entries.py, not an API route): reads a balance's `pending`
# map, its entries' request digests, copies each value onto its entry and request marker, drops it from `pending`.
SETTLEMENT_TABLE_ACCESS: TableAccess = {
    "GetItem": (ACCOUNTS,),
    "BatchGetItem": (ACCOUNTS,),
    "UpdateItem": (ACCOUNTS, REQUEST_MARKERS),
}
# The scheduled sweeper (functions/streams/sweep_pending.py): finds the balances that wait in the sparse
# unsettled-balances index (never the table), then settles each exactly as the stream's settlement does. An index
# pattern (`index/<name>`) is granted on that index's ARN alone, without dynamodb:LeadingKeys (it names no table
# partition).
UNSETTLED_BALANCES = f"{INDEX_PREFIX}{UNSETTLED_INDEX}"
SWEEPER_TABLE_ACCESS: TableAccess = {"Query": (UNSETTLED_BALANCES,), **SETTLEMENT_TABLE_ACCESS}


def gateway_problem_body(status: int, code: str, detail: str) -> str:
    """The problem+json body of an error API Gateway answers itself, as the handlers render theirs."""
    return json.dumps(problem_document(status, code, detail))
