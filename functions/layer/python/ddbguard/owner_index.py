"""The owner index: one small item per account under its owner, so an owner can list their accounts.

`OWNERS#<ownerSub>` / `ACCT#<createdAt>#<accountId>`, attributes `accountId` and `createdAt`.
It is put in the account's own create transaction and deleted in its delete transaction, so
the list is exactly the live accounts and a Query on it is strongly consistent (a GSI would be
eventually consistent: a just-created account could be missing from the list). It carries no
copy of the account's values, so an update never has to touch it.
"""

from __future__ import annotations

from typing import Any

from ddbguard import keys, transactions

KIND = "owner_index"


def index_item(owner_sub: str, created_at: str, account_id: str) -> dict[str, Any]:
    return {
        **keys.owner_index_key(owner_sub, created_at, account_id),
        "kind": KIND,
        "accountId": account_id,
        "createdAt": created_at,
    }


def put_action(owner_sub: str, created_at: str, account_id: str) -> dict:
    """For the account's create transaction (its key derives from the account's, so no guard is needed)."""
    return transactions.put(index_item(owner_sub, created_at, account_id))


def delete_action(owner_sub: str, created_at: str, account_id: str) -> dict:
    """For the account's delete transaction; deleting an absent index item is harmless."""
    return transactions.delete(keys.owner_index_key(owner_sub, created_at, account_id))
