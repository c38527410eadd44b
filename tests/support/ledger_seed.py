"""The one place tests get accounts, balances and funded ledgers from.

- `seed_account`: an account in its documented format (docs/data-model.md), written straight into the
  table with its two lock items (so the lock audit stays clean); for suites that need an
  account, not the account routes.
- `seed_balance`: a balance item with any amounts and no entries, written straight into the
  table; for suites that need money on an account, not the ledger routes (orders, deletes).
- `open_funded_ledger`: a seeded account whose ledger is opened and funded through the ledger
  routes (the handlers), so its entries and balance agree.
"""

from __future__ import annotations

import os
import uuid

from ddbguard.domain.ledger import new_balance_item
from local.api_client import ApiClient
from local.scenarios import fund_ledger
from tests.support.table_reads import attribute_values, lock_pk

SEEDED_AT = "2025-01-01T00:00:00.000Z"


def seed_account(raw_client, owner_sub: str, account_id: str | None = None) -> str:
    account_id = account_id or str(uuid.uuid4())
    table, tag = os.environ["TABLE_NAME"], account_id.replace("-", "")[:20]
    email, username = f"ledger.{tag}@example.com", f"ledger_{tag}"
    account = {
        "PK": {"S": f"ACCT#{account_id}"},
        "SK": {"S": "PROFILE"},
        "kind": {"S": "account"},
        "accountId": {"S": account_id},
        "ownerSub": {"S": owner_sub},
        "email": {"S": email},
        "username": {"S": username},
        "displayName": {"S": "Ledger Test"},
        "version": {"N": "0"},
        "createdAt": {"S": SEEDED_AT},
        "updatedAt": {"S": SEEDED_AT},
    }
    owner = {"S": f"ACCT#{account_id}"}
    locks = [
        {"PK": {"S": lock_pk("EMAIL", f"{email}")}, "SK": {"S": "LOCK"}, "owner": owner},
        {"PK": {"S": lock_pk("HANDLE", f"{username}")}, "SK": {"S": "LOCK"}, "owner": owner},
    ]
    raw_client.transact_write_items(
        TransactItems=[{"Put": {"TableName": table, "Item": item}} for item in (account, *locks)]
    )
    return account_id


def seed_balance(
    raw_client, account_id: str, owner_sub: str, cleared_cents: int, held_cents: int = 0, version: int = 0
) -> None:
    """A balance item as the ledger would hold it (available = cleared - held), without entries."""
    item = new_balance_item(account_id, owner_sub, SEEDED_AT)
    item.update(
        {
            "clearedCents": cleared_cents,
            "holdCents": held_cents,
            "availableCents": cleared_cents - held_cents,
            "version": version,
        }
    )
    raw_client.put_item(TableName=os.environ["TABLE_NAME"], Item=attribute_values(item))


def open_funded_ledger(api: ApiClient, raw_client, sub: str, deposit: int = 0) -> str:
    """A seeded account of `sub` with its ledger opened and (when `deposit`) one deposit, through the handlers."""
    return fund_ledger(api, sub, seed_account(raw_client, sub), deposit)
