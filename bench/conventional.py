"""(b) The conventional Powertools service: guards in the write, idempotency in a separate record.

The writes are as safe as ddbguard's (conditions and a transaction), and the Idempotency-Key is
handled the way Powertools documents it: `idempotent_function` over `DynamoDBPersistenceLayer`,
which puts an INPROGRESS record before the work, updates it to COMPLETED after, and deletes it when
the work raises (a refusal), so a retry of a refused request runs again.
"""

from __future__ import annotations

import uuid
import warnings
from typing import Any

from aws_lambda_powertools.utilities.idempotency import (
    DynamoDBPersistenceLayer,
    IdempotencyConfig,
    idempotent_function,
)

from bench.outcome import Outcome

# Outside Lambda there is no context to register; the record's in-progress expiry is not under test.
warnings.filterwarnings("ignore", message="Couldn't determine the remaining time left")


class Refused(Exception):
    def __init__(self, status: str) -> None:
        super().__init__(status)
        self.status = status


class ConventionalService:
    def __init__(self, client: Any, table: str) -> None:
        self.client, self.table = client, table
        store = DynamoDBPersistenceLayer(
            table_name=table, key_attr="PK", sort_key_attr="SK", static_pk_value="IDEMPOTENCY", boto3_client=client
        )
        config = IdempotencyConfig(event_key_jmespath="key", raise_on_no_idempotency_key=False)
        guard = idempotent_function(data_keyword_argument="request", persistence_store=store, config=config)
        self._sign_up = guard(self._sign_up_once)
        self._withdraw = guard(self._withdraw_once)
        self._update_order = guard(self._update_order_once)

    def _run(self, operation: Any, request: dict[str, Any]) -> Outcome:
        try:
            return Outcome(True, operation(request=request)["status"])
        except Refused as refused:
            return Outcome(False, refused.status)

    # --- sign-up: account + two lock items, each put only if absent, in one transaction -------------
    def sign_up(self, email: str, username: str, key: str | None = None) -> Outcome:
        return self._run(self._sign_up, {"key": key, "email": email, "username": username})

    def _sign_up_once(self, request: dict[str, Any]) -> dict[str, Any]:
        account = f"ACCT#{uuid.uuid4()}"
        absent = {"ConditionExpression": "attribute_not_exists(#pk)", "ExpressionAttributeNames": {"#pk": "PK"}}
        items = [
            {"PK": {"S": account}, "SK": {"S": "A"}, "email": {"S": request["email"]}},
            {"PK": {"S": f"EMAIL#{request['email']}"}, "SK": {"S": "LOCK"}, "owner": {"S": account}},
            {"PK": {"S": f"HANDLE#{request['username']}"}, "SK": {"S": "LOCK"}, "owner": {"S": account}},
        ]
        try:
            self.client.transact_write_items(
                TransactItems=[{"Put": {"TableName": self.table, "Item": item, **absent}} for item in items]
            )
        except self.client.exceptions.TransactionCanceledException:
            raise Refused("taken") from None
        return {"status": "created", "account": account}

    # --- withdrawal: balance decremented only if enough, entry put, one transaction ------------------
    def open_balance(self, account: str, cents: int) -> None:
        item = {"PK": {"S": account}, "SK": {"S": "BALANCE"}, "cents": {"N": str(cents)}}
        self.client.put_item(TableName=self.table, Item=item)

    def withdraw(self, account: str, cents: int, key: str | None = None) -> Outcome:
        return self._run(self._withdraw, {"key": key, "account": account, "cents": cents})

    def _withdraw_once(self, request: dict[str, Any]) -> dict[str, Any]:
        account, cents = request["account"], request["cents"]
        entry = {"PK": {"S": account}, "SK": {"S": f"ENTRY#{uuid.uuid4()}"}, "cents": {"N": str(-cents)}}
        try:
            self.client.transact_write_items(
                TransactItems=[
                    {
                        "Update": {
                            "TableName": self.table,
                            "Key": {"PK": {"S": account}, "SK": {"S": "BALANCE"}},
                            "UpdateExpression": "SET #c = #c - :a",
                            "ConditionExpression": "#c >= :a",
                            "ExpressionAttributeNames": {"#c": "cents"},
                            "ExpressionAttributeValues": {":a": {"N": str(cents)}},
                        }
                    },
                    {"Put": {"TableName": self.table, "Item": entry}},
                ]
            )
        except self.client.exceptions.TransactionCanceledException:
            raise Refused("insufficient_funds") from None
        return {"status": "withdrawn"}

    # --- versioned order update: one UpdateItem conditioned on the version --------------------------
    def create_order(self, order: str) -> int:
        item = {"PK": {"S": order}, "SK": {"S": "ORDER"}, "version": {"N": "0"}, "note": {"S": "new"}}
        self.client.put_item(TableName=self.table, Item=item)
        return 0

    def update_order(self, order: str, expected: int, note: str, key: str | None = None) -> Outcome:
        return self._run(self._update_order, {"key": key, "order": order, "expected": expected, "note": note})

    def _update_order_once(self, request: dict[str, Any]) -> dict[str, Any]:
        try:
            self.client.update_item(
                TableName=self.table,
                Key={"PK": {"S": request["order"]}, "SK": {"S": "ORDER"}},
                UpdateExpression="SET #n = :n, #v = :next",
                ConditionExpression="#v = :expected",
                ExpressionAttributeNames={"#n": "note", "#v": "version"},
                ExpressionAttributeValues={
                    ":n": {"S": request["note"]},
                    ":expected": {"N": str(request["expected"])},
                    ":next": {"N": str(request["expected"] + 1)},
                },
            )
        except self.client.exceptions.ConditionalCheckFailedException:
            raise Refused("version_mismatch") from None
        return {"status": "updated"}
