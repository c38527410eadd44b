"""Accounts for ledger tests, written straight into the table in the contract's format (section 4).

Ledger tests need an account to open a ledger on, not the account routes; each account comes
with its two lock items so the table stays consistent for the lock audit.
"""

from __future__ import annotations

import os
import uuid


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
        "createdAt": {"S": "2025-01-01T00:00:00.000Z"},
        "updatedAt": {"S": "2025-01-01T00:00:00.000Z"},
    }
    owner = {"S": f"ACCT#{account_id}"}
    locks = [
        {"PK": {"S": f"UNIQ#EMAIL#{email}"}, "SK": {"S": "LOCK"}, "owner": owner},
        {"PK": {"S": f"UNIQ#HANDLE#{username}"}, "SK": {"S": "LOCK"}, "owner": owner},
    ]
    raw_client.transact_write_items(
        TransactItems=[{"Put": {"TableName": table, "Item": item}} for item in (account, *locks)]
    )
    return account_id
