"""The owner index: one small item per owned item under its owner, so an owner can list what they have.

`OWNERS#<ownerSub>` / `<item prefix><createdAt>#<id>`, attributes `<id field>` and `createdAt` (an
account: `ACCT#<createdAt>#<accountId>`, `accountId`). It is put in the item's own create transaction
and deleted in its delete transaction, so the list is exactly the live items and a Query on it is
strongly consistent (a GSI would be eventually consistent: a just-created item could be missing from
the list). It carries no copy of the item's values, so an update never has to touch it. Entries of
several kinds share the owner's partition, told apart by their sort-key prefix.
"""

from __future__ import annotations

from ddbguard.store import keys, writes
from ddbguard.store.attribute_names import CREATED_AT, KIND, PK, SK
from ddbguard.store.shapes import Action

__all__ = ["INDEX_KIND", "delete_action", "index_item", "put_action"]

INDEX_KIND = "owner_index"


def index_item(owner_sub: str, created_at: str, item_id: str, *, prefix: str, id_field: str) -> dict[str, str]:
    """The entry as stored: every attribute a string (its id field is named by the listed kind)."""
    key = keys.owner_index_key(owner_sub, created_at, item_id, prefix)
    return {
        PK: key[PK],
        SK: key[SK],
        KIND: INDEX_KIND,
        id_field: item_id,
        CREATED_AT: created_at,
    }


def put_action(owner_sub: str, created_at: str, item_id: str, *, prefix: str, id_field: str) -> Action:
    """For the item's create transaction (its key derives from the item's, so no guard is needed)."""
    return writes.put(index_item(owner_sub, created_at, item_id, prefix=prefix, id_field=id_field))


def delete_action(owner_sub: str, created_at: str, item_id: str, *, prefix: str) -> Action:
    """For the item's delete transaction; deleting an absent index item is harmless."""
    return writes.delete(keys.owner_index_key(owner_sub, created_at, item_id, prefix))
