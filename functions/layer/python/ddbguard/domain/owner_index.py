"""The owner index: one small item per account under its owner, so an owner can list their accounts.

`OWNERS#<ownerSub>` / `ACCT#<createdAt>#<accountId>`, attributes `accountId` and `createdAt`.
It is put in the account's own create transaction and deleted in its delete transaction, so
the list is exactly the live accounts and a Query on it is strongly consistent (a GSI would be
eventually consistent: a just-created account could be missing from the list). It carries no
copy of the account's values, so an update never has to touch it.
"""

from __future__ import annotations

from ddbguard.store import keys, writes
from ddbguard.store.schema import CREATED_AT, KIND
from ddbguard.store.shapes import Action, Item

INDEX_KIND = "owner_index"


def index_item(owner_sub: str, created_at: str, account_id: str) -> Item:
    return {
        **keys.owner_index_key(owner_sub, created_at, account_id),
        KIND: INDEX_KIND,
        "accountId": account_id,
        CREATED_AT: created_at,
    }


def put_action(owner_sub: str, created_at: str, account_id: str) -> Action:
    """For the account's create transaction (its key derives from the account's, so no guard is needed)."""
    return writes.put(index_item(owner_sub, created_at, account_id))


def delete_action(owner_sub: str, created_at: str, account_id: str) -> Action:
    """For the account's delete transaction; deleting an absent index item is harmless."""
    return writes.delete(keys.owner_index_key(owner_sub, created_at, account_id))
