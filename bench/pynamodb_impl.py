"""(c) The same guards with PynamoDB: `TransactWrite` with `does_not_exist()` conditions, `VersionAttribute`.

Idempotency the PynamoDB way, without a separate record: the withdrawal's entry is keyed by the
Idempotency-Key and put only if absent, so a retry is refused by the transaction and then answered
from the entry (one read more). Sign-up has no key of its own: a retry is refused as a duplicate.
"""

from __future__ import annotations

import uuid
from typing import Any

from pynamodb.attributes import NumberAttribute, UnicodeAttribute, VersionAttribute
from pynamodb.connection import Connection
from pynamodb.exceptions import DoesNotExist, TransactWriteError, UpdateError
from pynamodb.models import Model
from pynamodb.transactions import TransactWrite

from bench.outcome import Outcome


def _meta(table: str, endpoint: str) -> type:
    return type("Meta", (), {"table_name": table, "host": endpoint, "region": "us-east-1", "max_pool_connections": 64})


class PynamoService:
    def __init__(self, endpoint: str, table: str) -> None:
        meta = _meta(table, endpoint)

        class Item(Model):  # the table's key; each kind below adds its attributes
            Meta = meta  # type: ignore[assignment]  # pynamodb types Meta as its protocol, not a class
            pk = UnicodeAttribute(hash_key=True, attr_name="PK")
            sk = UnicodeAttribute(range_key=True, attr_name="SK")

        class Account(Item):
            email = UnicodeAttribute()
            username = UnicodeAttribute()

        class Lock(Item):
            owner = UnicodeAttribute()

        class Balance(Item):
            cents = NumberAttribute()

        class Entry(Item):
            cents = NumberAttribute()

        class Order(Item):
            note = UnicodeAttribute()
            version = VersionAttribute()

        self.Account, self.Lock, self.Balance, self.Entry, self.Order = Account, Lock, Balance, Entry, Order
        self.connection = Connection(host=endpoint, region="us-east-1", max_pool_connections=64)

    def clients(self) -> list[Any]:
        """Every botocore client this service sends through (for counting)."""
        models = (self.Account, self.Lock, self.Balance, self.Entry, self.Order)
        return [
            self.connection.client,
            *{id(c): c for c in (m._get_connection().connection.client for m in models)}.values(),
        ]

    def sign_up(self, email: str, username: str, key: str | None = None) -> Outcome:
        account = f"ACCT#{uuid.uuid4()}"
        try:
            with TransactWrite(connection=self.connection) as transaction:
                transaction.save(
                    self.Account(account, "A", email=email, username=username),
                    condition=self.Account.pk.does_not_exist(),
                )
                transaction.save(
                    self.Lock(f"EMAIL#{email}", "LOCK", owner=account), condition=self.Lock.pk.does_not_exist()
                )
                transaction.save(
                    self.Lock(f"HANDLE#{username}", "LOCK", owner=account), condition=self.Lock.pk.does_not_exist()
                )
        except TransactWriteError:
            return Outcome(False, "taken")
        return Outcome(True, "created")

    def open_balance(self, account: str, cents: int) -> None:
        self.Balance(account, "BALANCE", cents=cents).save()

    def withdraw(self, account: str, cents: int, key: str | None = None) -> Outcome:
        entry = self.Entry(account, f"ENTRY#{key or uuid.uuid4()}", cents=-cents)
        try:
            with TransactWrite(connection=self.connection) as transaction:
                transaction.update(
                    self.Balance(account, "BALANCE"),
                    actions=[self.Balance.cents.add(-cents)],
                    condition=self.Balance.cents >= cents,
                )
                transaction.save(entry, condition=self.Entry.pk.does_not_exist())
        except TransactWriteError:
            try:
                self.Entry.get(account, entry.sk, consistent_read=True)
            except DoesNotExist:
                return Outcome(False, "insufficient_funds")
            return Outcome(True, "replayed")
        return Outcome(True, "withdrawn")

    def create_order(self, order: str) -> int:
        """The order's version after it is created (VersionAttribute's first save makes it 1)."""
        created = self.Order(order, "ORDER", note="new")
        created.save()
        return int(created.version)

    def update_order(self, order: str, expected: int, note: str, key: str | None = None) -> Outcome:
        # VersionAttribute: the update is conditioned on `version = expected` and increments it; no read first.
        known = self.Order(order, "ORDER", version=expected)
        try:
            known.update(actions=[self.Order.note.set(note)])
        except UpdateError:
            return Outcome(False, "version_mismatch")
        return Outcome(True, "updated")
