"""Section 1: DynamoDB calls and write units per route and outcome, ddbguard beside three alternatives.

ddbguard goes through its real handlers (`local.api_client.ApiClient`, in process) and is counted on
its own client; the alternatives are counted on theirs. A replay of a money route is counted after the
table stream's settlement ran (the normal case; before it, the replay reads `pending` once more).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench.capacity import WriteUnits
from bench.counter import Tally, counting
from local.api_client import ApiClient, HttpAnswer


@dataclass
class CallRow:
    operation: str
    implementation: str
    outcome: str  # what the row really does
    tally: Tally
    answer: str  # what the client was told
    target: int | None = None  # most calls allowed

    @property
    def verdict(self) -> str:
        if self.target is None:
            return ""
        return "ok" if len(self.tally.calls) <= self.target else f"MISSED (target <= {self.target})"


def _key() -> str:
    return f"bench-{uuid.uuid4()}"


def _tag() -> str:
    return uuid.uuid4().hex[:12]


class DdbguardRoutes:
    """Set-ups and measured requests through ddbguard's handlers."""

    def __init__(
        self, api: ApiClient, ddb_client: Any, settle: Callable[[], object], units: WriteUnits | None = None
    ) -> None:
        self.api, self.client, self.settle, self.units = api, ddb_client, settle, units
        self.rows: list[CallRow] = []

    def measure(self, operation: str, outcome: str, send: Callable[[], HttpAnswer], target: int | None) -> HttpAnswer:
        with counting(self.client) as tally:
            reply = send()
        if self.units:
            self.units.of(tally)
        self.rows.append(
            CallRow(operation, "ddbguard", outcome, tally, f"{reply.status} {reply.code or ''}".strip(), target)
        )
        return reply

    def sign_up(self, sub: str = "bench", key: str | None = None) -> str:
        tag = _tag()
        reply = self.api.post(
            "/accounts", {"email": f"{tag}@bench.example", "username": f"b{tag}"}, sub=sub, idempotency_key=key
        )
        assert reply.status == 201, reply.json
        return reply.json["accountId"]

    def funded(self, cents: int, sub: str = "bench") -> str:
        account = self.sign_up(sub)
        assert self.api.post(f"/accounts/{account}/ledger", sub=sub).status == 201
        if cents:
            reply = self.api.post(
                f"/accounts/{account}/ledger/deposits", {"amountCents": cents}, sub=sub, idempotency_key=_key()
            )
            assert reply.status == 201, reply.json
        self.settle()
        return account

    def order(self, account: str, sub: str = "bench") -> str:
        body = {"accountId": account, "items": [{"sku": "BOOK-1", "quantity": 2, "unitPriceCents": 150}]}
        reply = self.api.post("/orders", body, sub=sub, idempotency_key=_key())
        assert reply.status == 201, reply.json
        return reply.json["orderId"]

    def run(self) -> list[CallRow]:
        api, m = self.api, self.measure
        # sign-up: account + two locks (+ the key's marker) in one transaction
        tag, k = _tag(), _key()
        body: dict[str, Any] = {"email": f"{tag}@bench.example", "username": f"b{tag}"}
        m(
            "sign-up",
            "success: 1 transaction (account, 2 locks, key marker)",
            lambda: api.post("/accounts", body, sub="bench", idempotency_key=k),
            1,
        )
        m(
            "sign-up",
            "refusal: email taken, the transaction cancelled",
            lambda: api.post("/accounts", {**body, "username": f"x{tag}"}, sub="bench", idempotency_key=_key()),
            1,
        )
        m(
            "sign-up",
            "replay: same key, the transaction finds its marker",
            lambda: api.post("/accounts", body, sub="bench", idempotency_key=k),
            1,
        )
        # PATCH displayName: one UpdateItem conditioned on the version
        account = self.sign_up()
        path, k = f"/accounts/{account}", _key()
        m(
            "PATCH account displayName",
            "success, no key: 1 conditional update",
            lambda: api.patch(path, {"displayName": "Ada"}, sub="bench", if_match=0),
            1,
        )
        send = lambda: api.patch(path, {"displayName": "Bea"}, sub="bench", if_match=1, idempotency_key=k)  # noqa: E731
        m("PATCH account displayName", "success, with key: 1 update stamped with the key", send, 1)
        m(
            "PATCH account displayName",
            "refusal: stale If-Match, the update's condition fails",
            lambda: api.patch(path, {"displayName": "C"}, sub="bench", if_match=0),
            1,
        )
        m("PATCH account displayName", "replay: same key, the failed condition shows its stamp", send, 1)
        # money routes
        for route, name in (("deposits", "deposit"), ("withdrawals", "withdrawal"), ("holds", "hold")):
            account, k = self.funded(1_000), _key()
            path = f"/accounts/{account}/ledger/{route}"
            send = lambda path=path, k=k: api.post(path, {"amountCents": 100}, sub="bench", idempotency_key=k)  # type: ignore[misc]  # noqa: E731
            m(name, "success: 1 transaction + 1 GetItem of the exact availableCentsAfter", send, 2)
            self.settle()
            m(name, "replay (after settlement): the transaction finds its marker", send, 1)
            if route != "deposits":
                m(
                    name,
                    "refusal: insufficient funds, the transaction cancelled",
                    lambda path=path: api.post(path, {"amountCents": 10**9}, sub="bench", idempotency_key=_key()),  # type: ignore[misc]
                    1,
                )
        for settle in ("capture", "release"):
            account = self.funded(1_000)
            hold = api.post(
                f"/accounts/{account}/ledger/holds", {"amountCents": 300}, sub="bench", idempotency_key=_key()
            ).json
            self.settle()
            path, k = f"/accounts/{account}/ledger/holds/{hold['holdId']}/{settle}", _key()
            send = lambda path=path, k=k: api.post(path, sub="bench", idempotency_key=k)  # type: ignore[misc]  # noqa: E731
            m(f"{settle} hold", "success: BatchGet (hold + marker), transaction, GetItem", send, 3)
            self.settle()
            m(f"{settle} hold", "replay: the BatchGet finds the marker", send, 2)
            m(
                f"{settle} hold",
                "refusal: already settled (BatchGet, cancelled transaction)",
                lambda path=path: api.post(path, sub="bench", idempotency_key=_key()),  # type: ignore[misc]
                2,
            )
        source, target = self.funded(1_000), self.funded(0)
        k, body = _key(), {"fromAccountId": source, "toAccountId": target, "amountCents": 250}
        send = lambda: api.post("/transfers", body, sub="bench", idempotency_key=k)  # noqa: E731
        m("transfer", "success: 1 transaction + 1 BatchGet of both balances' values", send, 2)
        self.settle()
        m("transfer", "replay (after settlement): the transaction finds its marker", send, 1)
        m(
            "transfer",
            "refusal: insufficient funds, the transaction cancelled",
            lambda: api.post("/transfers", {**body, "amountCents": 10**9}, sub="bench", idempotency_key=_key()),
            1,
        )
        # orders
        account = self.funded(1_000)
        body, k = {"accountId": account, "items": [{"sku": "BOOK-1", "quantity": 2, "unitPriceCents": 150}]}, _key()
        created = m(
            "order create",
            "success: 1 transaction (order, owner index, marker)",
            lambda: api.post("/orders", body, sub="bench", idempotency_key=k),
            1,
        )
        m(
            "order create",
            "replay: the transaction finds its marker",
            lambda: api.post("/orders", body, sub="bench", idempotency_key=k),
            1,
        )
        path, k = f"/orders/{created.json['orderId']}", _key()
        send = lambda: api.patch(path, {"status": "CANCELLED"}, sub="bench", if_match=0, idempotency_key=k)  # noqa: E731
        m("order update (versioned)", "success: 1 UpdateItem conditioned on version + status", send, 1)
        m(
            "order update (versioned)",
            "refusal: stale If-Match, the update's condition fails",
            lambda: api.patch(path, {"status": "CANCELLED"}, sub="bench", if_match=0, idempotency_key=_key()),
            1,
        )
        m("order update (versioned)", "replay: same key, the failed condition shows its stamp", send, 1)
        path, k = f"/orders/{self.order(account)}/pay", _key()
        send = lambda: api.post(path, sub="bench", idempotency_key=k)  # noqa: E731
        m("pay order", "success: BatchGet (order + marker), transaction", send, 2)
        m("pay order", "replay: the BatchGet finds the marker", send, 1)
        m(
            "pay order",
            "refusal: already paid (BatchGet, cancelled transaction)",
            lambda: api.post(path, sub="bench", idempotency_key=_key()),
            2,
        )
        return self.rows


def alternative_rows(name: str, service: Any, clients: list[Any], units: WriteUnits) -> list[CallRow]:
    """Sign-up, withdrawal and versioned order update, each as success / refusal / replay."""
    rows: list[CallRow] = []

    def measure(operation: str, outcome: str, send: Callable[[], Any]) -> Any:
        with counting(*clients) as tally:
            answer = send()
        units.of(tally)
        rows.append(CallRow(operation, name, outcome, tally, answer.status))
        return answer

    tag, k = _tag(), _key()
    measure("sign-up", "success", lambda: service.sign_up(f"{tag}@bench.example", f"b{tag}", k))
    measure("sign-up", "refusal: email taken", lambda: service.sign_up(f"{tag}@bench.example", f"x{tag}", _key()))
    measure("sign-up", "replay: same request again", lambda: service.sign_up(f"{tag}@bench.example", f"b{tag}", k))
    account, k = f"ACCT#{uuid.uuid4()}", _key()
    service.open_balance(account, 1_000)
    measure("withdrawal", "success", lambda: service.withdraw(account, 100, k))
    measure("withdrawal", "replay: same key", lambda: service.withdraw(account, 100, k))
    measure("withdrawal", "refusal: insufficient funds", lambda: service.withdraw(account, 10**9, _key()))
    order = f"ORDER#{uuid.uuid4()}"
    version, k = service.create_order(order), _key()
    measure("order update (versioned)", "success", lambda: service.update_order(order, version, "paid", k))
    measure(
        "order update (versioned)",
        "refusal: stale version",
        lambda: service.update_order(order, version, "late", _key()),
    )
    measure("order update (versioned)", "replay: same key", lambda: service.update_order(order, version, "paid", k))
    return rows
