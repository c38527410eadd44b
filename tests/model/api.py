"""`ApiModel`: one method per route of the API, answering as the API must, from the model's `World`.

Each method takes what the request says (the caller, the path's ids, the body as the model reads it, If-Match and
the Idempotency-Key) and returns the `Answer` the API owes it. What the edge refuses before the domain is asked
anything (a missing key on a money route, a missing If-Match, an invalid body) is answered here first, as the
edge does, whatever the key remembers. Values only the API can choose (new ids) are passed in from its answer.
"""

from __future__ import annotations

import json
from typing import Any

from tests.model import accounts, ledgers, orders
from tests.model.keys import remember_body
from tests.model.ledgers import Bounds
from tests.model.world import Answer, KeyScope, Unique, World, refused

ACCOUNTS = "POST /accounts"
ACCOUNT = "/accounts/{accountId}"
LEDGER = "/accounts/{accountId}/ledger"
HOLD = "/accounts/{accountId}/ledger/holds/{holdId}"
ORDER = "/orders/{orderId}"


def _scope(caller: str, route: str, key: str | None) -> KeyScope | None:
    return None if key is None else (caller, route, key)


def _request(path: dict[str, str], body: Any) -> str:
    """What a request asks, as its fingerprint sees it: the path's ids and the body (never If-Match)."""
    return json.dumps({"path": path, "body": body}, sort_keys=True)


class ApiModel:
    def __init__(self, bounds: Bounds):
        self.world = World()
        self.bounds = bounds

    # --- time, settlement, what the key remembers ---------------------------------------------

    def advance_clock(self, seconds: float) -> None:
        self.world.now_s += seconds

    def pause_settlement(self) -> None:
        self.world.settlement_paused = True

    def resume_settlement(self) -> None:
        self.world.settlement_paused = False
        self.world.settle()

    def remember_body(self, body: Any) -> None:
        """The body of the answer just given: if a key recorded it, a replay must give it again."""
        remember_body(self.world, body)

    # --- accounts -----------------------------------------------------------------------------

    def create_account(
        self,
        caller: str,
        values: dict[str, Unique],
        display_name: tuple[str, str | None] | None,
        *,
        sent: Any,
        key: str | None,
        assigned_id: str | None,
    ) -> Answer:
        """`display_name`: (as sent, as stored; None when it shows nothing visible), or None when not sent."""
        if display_name is not None and display_name[1] is None:
            return refused(422, "validation_failed", "displayName")
        stored = None if display_name is None else display_name[1]
        return accounts.create(
            self.world,
            caller,
            values,
            stored,
            scope=_scope(caller, ACCOUNTS, key),
            request=_request({}, sent),
            assigned_id=assigned_id,
        )

    def get_account(self, caller: str, account_id: str, *, is_admin: bool = False) -> Answer:
        return accounts.get(self.world, caller, account_id, is_admin=is_admin)

    def list_accounts(self, caller: str) -> set[str]:
        return accounts.listed(self.world, caller)

    def update_account(
        self,
        caller: str,
        account_id: str,
        values: dict[str, Unique],
        other: dict[str, Any],
        *,
        sent: Any,
        if_match: int | None,
        key: str | None,
    ) -> Answer:
        """`other`: displayName as (sent, stored or None) and closing, when sent."""
        if not values and not other:
            return refused(422, "validation_failed", "body")
        if "displayName" in other and other["displayName"][1] is None:
            return refused(422, "validation_failed", "displayName")
        if if_match is None:
            return refused(428, "precondition_required")
        stored = {name: value[1] if name == "displayName" else value for name, value in other.items()}
        return accounts.change(
            self.world,
            caller,
            account_id,
            values,
            stored,
            if_match,
            scope=_scope(caller, f"PATCH {ACCOUNT}", key),
            request=_request({"accountId": account_id}, sent),
        )

    def delete_account(self, caller: str, account_id: str, *, if_match: int | None, key: str | None) -> Answer:
        if if_match is None:
            return refused(428, "precondition_required")
        return accounts.delete(
            self.world,
            caller,
            account_id,
            if_match,
            scope=_scope(caller, f"DELETE {ACCOUNT}", key),
            request=_request({"accountId": account_id}, None),
        )

    # --- ledgers ------------------------------------------------------------------------------

    def open_ledger(self, caller: str, account_id: str, *, key: str | None) -> Answer:
        return ledgers.open_ledger(
            self.world,
            caller,
            account_id,
            scope=_scope(caller, f"POST {LEDGER}", key),
            request=_request({"accountId": account_id}, None),
        )

    def get_statement(self, caller: str, account_id: str) -> Answer:
        return ledgers.statement(self.world, caller, account_id)

    def move_money(
        self,
        caller: str,
        account_id: str,
        kind: str,
        amount: int,
        *,
        key: str | None,
        assigned_hold: str | None = None,
    ) -> Answer:
        """A deposit, a withdrawal or a hold (`kind`) on the caller's ledger."""
        if key is None:
            return refused(400, "idempotency_key_required")
        route = {"deposit": "deposits", "withdrawal": "withdrawals", "hold": "holds"}[kind]
        return ledgers.move(
            self.world,
            self.bounds,
            caller,
            account_id,
            kind,
            amount,
            scope=(caller, f"POST {LEDGER}/{route}", key),
            request=_request({"accountId": account_id}, {"amountCents": amount}),
            assigned_hold=assigned_hold,
        )

    def settle_hold(self, caller: str, account_id: str, hold_id: str, outcome: str, *, key: str | None) -> Answer:
        if key is None:
            return refused(400, "idempotency_key_required")
        verb = "capture" if outcome == "CAPTURED" else "release"
        return ledgers.settle_hold(
            self.world,
            self.bounds,
            caller,
            account_id,
            hold_id,
            outcome,
            scope=(caller, f"POST {HOLD}/{verb}", key),
            request=_request({"accountId": account_id, "holdId": hold_id}, None),
        )

    def transfer(self, caller: str, from_id: str, to_id: str, amount: int, *, key: str | None) -> Answer:
        if key is None:
            return refused(400, "idempotency_key_required")
        body = {"fromAccountId": from_id, "toAccountId": to_id, "amountCents": amount}
        return ledgers.transfer(
            self.world,
            self.bounds,
            caller,
            from_id,
            to_id,
            amount,
            scope=(caller, "POST /transfers", key),
            request=_request({}, body),
        )

    # --- orders -------------------------------------------------------------------------------

    def create_order(
        self,
        caller: str,
        account_id: str,
        total: int,
        order_id: str | None,
        *,
        sent: Any,
        key: str | None,
        assigned_id: str | None,
    ) -> Answer:
        return orders.create(
            self.world,
            caller,
            account_id,
            total,
            order_id,
            scope=_scope(caller, "POST /orders", key),
            request=_request({}, sent),
            assigned_id=assigned_id,
        )

    def get_order(self, caller: str, order_id: str) -> Answer:
        return orders.get(self.world, caller, order_id)

    def update_order_status(
        self, caller: str, order_id: str, target: str, *, if_match: int | None, key: str | None
    ) -> Answer:
        if if_match is None:
            return refused(428, "precondition_required")
        return orders.change_status(
            self.world,
            caller,
            order_id,
            target,
            if_match,
            scope=_scope(caller, f"PATCH {ORDER}", key),
            request=_request({"orderId": order_id}, {"status": target}),
        )

    def delete_order(self, caller: str, order_id: str, *, if_match: int | None, key: str | None) -> Answer:
        if if_match is None:
            return refused(428, "precondition_required")
        return orders.delete(
            self.world,
            caller,
            order_id,
            if_match,
            scope=_scope(caller, f"DELETE {ORDER}", key),
            request=_request({"orderId": order_id}, None),
        )

    def pay_or_refund_order(self, caller: str, order_id: str, *, refund: bool, key: str | None) -> Answer:
        if key is None:
            return refused(400, "idempotency_key_required")
        verb = "refund" if refund else "pay"
        return orders.pay_or_refund(
            self.world,
            self.bounds,
            caller,
            order_id,
            refund,
            scope=(caller, f"POST {ORDER}/{verb}", key),
            request=_request({"orderId": order_id}, None),
        )
